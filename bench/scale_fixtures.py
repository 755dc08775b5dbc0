"""Fixtures for bench/bench_scale.py (#14): a project's history, grown to the sizes users reach.

Imported by bench/bench_scale.py and bench/bench_recall.py; docs/BENCHMARKS.md lists the
history it builds.

Each builder makes one kind of history through ccstate's own code, so the fixture has the shape
the product writes today and keeps it when the formats change:

- `copy_corpus`: N copies of the public transcripts with fresh session, message and request ids
  and uuids (so they count as N times the sessions), laid out as
  `~/.claude/projects/<slug>/<session>.jsonl` the way bench/ccusage_setup.py lays out one copy;
- `grow_read_session`: one session's read ledger after N Reads of 2,000-line files, through the
  PostToolUse hook run in-process (the same code path as the hook process, minus the start-up),
  with the blob store's size on disk sampled as it grows;
- `write_blobs`: N small blobs in the ledger's blob store (`ledger.store.write_blob`);
- `write_decisions`: DECISIONS.md with N entries (`decisions.log.render_log`);
- `write_handoffs`: N sessions' handoffs (`handoff.store.persist`, the writer PreCompact uses);
- `make_plugin_data`: a ready plugin venv the way `bootstrap` marks one, built in milliseconds.

tests/test_bench_scale.py runs them small. Standard library plus ccstate (from this checkout).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
# The ccstate under test: this checkout, or CCSTATE_BENCH_ROOT (a tree with src/, hooks/ and
# pyproject.toml, e.g. `git archive main | tar -x`), for figures of another version.
ROOT = Path(os.environ.get("CCSTATE_BENCH_ROOT") or REPO).resolve()
sys.path.insert(0, str(BENCH))
if str(ROOT / "src") not in sys.path:
    sys.path.insert(1, str(ROOT / "src"))

from bench_hooks import source_text  # noqa: E402
from ccusage_setup import corpus_files  # noqa: E402

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_UUID_RE = re.compile(UUID)
# Every id that makes a record or a session distinct: uuids wherever they occur (uuid,
# parentUuid, sessionId, leafUuid, file names in text...), and the values of the id fields that
# are not uuids (message ids `msg_...`, request ids `req_...`, session ids like `my-session`).
_ID_RE = re.compile(
    rf'(?P<uuid>{UUID})|"(?P<key>sessionId|requestId|messageId|id)":"(?P<value>[^"\\]*)"'
)
SESSION_ID = "5b0c1f2e-0000-4c1d-9a7e-00000000a11b"


# --------------------------------------------------------------------------- transcripts


def fresh_uuid(uuid: str, copy: int) -> str:
    """The uuid of copy `copy`: its first 32 bits xor the copy number (copy 0 is the original).

    A bijection per copy, so distinct ids stay distinct, and two copies of one id differ."""
    return f"{int(uuid[:8], 16) ^ copy:08x}{uuid[8:]}"


def fresh_id(value: str, copy: int) -> str:
    """A session, message or request id as copy `copy` carries it."""
    if not copy:
        return value
    if _UUID_RE.fullmatch(value):
        return fresh_uuid(value, copy)
    return f"{value}-c{copy}"


def fresh_ids(text: str, copy: int) -> str:
    """A transcript's text with every id replaced by copy `copy`'s (the rest byte for byte)."""
    if not copy:
        return text

    def swap(match: re.Match[str]) -> str:
        if match.group("uuid"):
            return fresh_uuid(match.group("uuid"), copy)
        key, value = match.group("key"), match.group("value")
        if key == "id" and not value.startswith("msg_") and not _UUID_RE.fullmatch(value):
            return match.group(0)  # tool_use ids and the like: not what makes a call distinct
        return f'"{key}":"{fresh_id(value, copy)}"'

    return _ID_RE.sub(swap, text)


def copy_corpus(
    corpus: Path,
    home: Path,
    copies: int,
    first: int = 0,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """Copies `first`..`copies - 1` of `corpus/*.jsonl` under `home/.claude/projects/<slug>/`,
    each with fresh ids and named by its fresh session id. Returns the projects folder."""
    projects = home / ".claude" / "projects"
    for copy in range(first, copies):
        for source, slug, session in corpus_files(corpus):
            target = projects / slug / f"{fresh_id(session, copy)}.jsonl"
            target.parent.mkdir(parents=True, exist_ok=True)
            text = source.read_text(encoding="utf-8", errors="surrogateescape")
            target.write_text(fresh_ids(text, copy), encoding="utf-8", errors="surrogateescape")
        if progress is not None:
            progress(f"corpus copy {copy + 1}/{copies}")
    return projects


def link_tree(source: Path, target: Path) -> None:
    """`target` mirrors `source`'s files as hard links (a corpus shared by several HOMEs)."""
    for folder, _dirs, files in os.walk(source):
        rel = Path(folder).relative_to(source)
        (target / rel).mkdir(parents=True, exist_ok=True)
        for name in files:
            os.link(Path(folder) / name, target / rel / name)


def ids_of(text: str) -> set[str]:
    """Every id `fresh_ids` replaces (for checking that copies share none)."""
    found = set()
    for match in _ID_RE.finditer(text):
        if match.group("uuid"):
            found.add(match.group("uuid"))
        elif match.group("key") != "id" or match.group("value").startswith("msg_"):
            found.add(match.group("value"))
    return found


# --------------------------------------------------------------------------- projects


def git_project(root: Path, config: str = "") -> Path:
    """A git repository with one commit and, when given, this `.ccstate.yaml` (the same
    commit for the same config: the dates are fixed)."""
    root.mkdir(parents=True, exist_ok=True)
    stamp = "2026-01-01T00:00:00Z"
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    git = ["git", "-C", str(root), "-c", "user.name=Bench", "-c", "user.email=bench@example.org"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True, env=env)
    (root / "README.md").write_text("# bench project\n", encoding="utf-8")
    if config:
        (root / ".ccstate.yaml").write_text(config, encoding="utf-8")
    subprocess.run([*git, "add", "-A"], check=True, env=env)
    subprocess.run([*git, "commit", "-q", "-m", "initial"], check=True, env=env)
    return root


def hook_environ(project: Path) -> dict[str, str]:
    """What the hooks see: state in the project's .ccstate/, no plugin, no Claude settings."""
    drop = ("CCSTATE_", "CLAUDE_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["CLAUDE_PROJECT_DIR"] = str(project)
    return env


def run_hook(event: str, payload: dict[str, object], environ: dict[str, str]) -> str:
    """One hook, in this process, through the same entry as `python -m ccstate.hooks`."""
    from ccstate.hooks import __main__ as hooks

    out = io.StringIO()
    hooks.run(event, io.StringIO(json.dumps(payload)), out, environ)
    return out.getvalue()


def read_payload(
    project: Path,
    path: Path,
    content: str,
    tool_use_id: str,
    *,
    session: str = SESSION_ID,
    offset: int | None = None,
    limit: int | None = None,
) -> dict[str, object]:
    """PostToolUse for a Read of `path` that returned `content` (reference §2.5)."""
    lines = content.split("\n")
    start = offset or 1
    if offset or limit:
        lines = lines[start - 1 : start - 1 + (limit or len(lines))]
    tool_input: dict[str, object] = {"file_path": str(path)}
    if offset:
        tool_input["offset"] = offset
    if limit:
        tool_input["limit"] = limit
    return {
        "session_id": session,
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_use_id": tool_use_id,
        "tool_input": tool_input,
        "tool_response": {
            "type": "text",
            "file": {
                "filePath": str(path),
                "content": "\n".join(lines),
                "numLines": len(lines),
                "startLine": start,
                "totalLines": content.count("\n") + 1,
            },
        },
    }


def revision(base: str, k: int, n: int) -> str:
    """File `k`'s text after its `n`th edit: every line changed (a reformat, a rename), so the
    next Read of it is served in full. (With a few lines changed, the ledger would answer with
    a diff; with half of them, difflib takes seconds: not what this fixture is about.)"""
    return "\n".join(f"{line}  # m{k}r{n}" for line in base.split("\n"))


def disk_bytes(folder: str | Path) -> int:
    """Bytes the files directly in `folder` occupy on disk (blocks, not apparent size)."""
    total = 0
    try:
        with os.scandir(folder) as it:
            for entry in it:
                try:
                    if entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_blocks * 512
                except OSError:
                    continue
    except OSError:
        return 0
    return total


def grow_read_session(
    project: Path,
    reads: int,
    *,
    files: int = 320,
    lines: int = 2000,
    sample_every: int = 25,
    progress: Callable[[str], None] | None = None,
) -> dict[str, int]:
    """One session of `reads` Reads of `lines`-line files, as PostToolUse sees them.

    Files are read in turn, and each is edited throughout before it is read again, so every
    whole-file Read delivers new text in full and leaves a new blob (the "10,000 Reads of
    2,000-line files" of #14); with more files than the ledger tracks per context (256), it
    stays full. Every tenth Read is a
    part (offset/limit) of a file read a moment before, which the ledger answers from what the
    context holds. Returns counts, and the blob store's peak size on disk, sampled every
    `sample_every` Reads and at the end."""
    environ = hook_environ(project)
    folder = project / "src" / "many"
    folder.mkdir(parents=True, exist_ok=True)
    base = source_text(lines)
    blobs = project / ".ccstate" / "ledger" / "blobs"
    edits = [0] * files
    peak = replaced = 0
    for n in range(reads):
        if n % 10 == 9 and n >= 20:  # a part of a file read a moment ago, unchanged since
            k = (n - 7) % files
            text = revision(base, k, edits[k])
            offset, limit = 1 + (n * 37) % (lines - 400), 200 + n % 200
            payload = read_payload(
                project, _many(folder, k), text, f"toolu_grow_{n}", offset=offset, limit=limit
            )
        else:
            k = n % files
            edits[k] += 1
            text = revision(base, k, edits[k])
            _many(folder, k).write_text(text, encoding="utf-8")
            payload = read_payload(project, _many(folder, k), text, f"toolu_grow_{n}")
        out = run_hook("PostToolUse", payload, environ)
        replaced += '"updatedToolOutput"' in out
        if n % sample_every == 0 or n == reads - 1:
            peak = max(peak, disk_bytes(blobs))
        if progress is not None and (n + 1) % 1000 == 0:
            progress(f"{n + 1:,}/{reads:,} Reads, blob store peak {peak / 2**20:,.0f} MiB")
    return {"reads": reads, "files": files, "replaced": replaced, "blob_peak_bytes": peak}


def _many(folder: Path, k: int) -> Path:
    return folder / f"module_{k:04d}.py"


def write_blobs(project: Path, count: int, size: int = 600) -> int:
    """`count` distinct blobs of about `size` bytes in the project's blob store, under the
    project's `dedupe.store_max_mb` (the store holds its cap at every write); their bytes on
    disk."""
    from ccstate import config as config_mod
    from ccstate.ledger import store as ledger_store

    state = str(project / ".ccstate")
    cap = int(config_mod.load_config(project).get("dedupe.store_max_mb")) << 20
    for n in range(count):
        body = f"blob {n}\n" + "x = 1  # filler\n" * (size // 16)
        ledger_store.write_blob(state, body, max_bytes=cap)
    return disk_bytes(ledger_store.blob_dir(state))


def write_decisions(project: Path, count: int) -> Path:
    """DECISIONS.md with `count` entries like real ones; every tenth superseded by the next."""
    from ccstate.decisions import log

    made = []
    for n in range(1, count + 1):
        superseded = n % 10 == 0 and n < count
        made.append(
            log.Decision(
                number=n,
                title=f"Decision {n}: keep module {n % 97} behind its interface",
                status="superseded" if superseded else "active",
                superseded_by=n + 1 if superseded else None,
                date=f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}",
                supersedes=(n - 1,) if n % 10 == 1 and n > 1 else (),
                context=f"Module {n % 97} grew callers in three packages; changes broke them.",
                decision="Callers go through the module's public functions; no private imports.",
                consequences="A lint rule flags private imports; two call sites need a wrapper.",
            )
        )
    preamble = log.template_text().replace(log.marker_line(1), log.marker_line(count + 1))
    path = project / "DECISIONS.md"
    path.write_text(log.render_log(preamble, made), encoding="utf-8")
    return path


def write_handoffs(project: Path, count: int, first: int = 0) -> int:
    """Sessions `first`..`first + count - 1`'s handoffs, written by `handoff.store.persist`
    (what PreCompact and SessionEnd call); the config decides how many are kept
    (`handoff.keep_sessions`). Returns the index's size in bytes."""
    from ccstate import config as config_mod
    from ccstate.handoff import doc as handoff_doc
    from ccstate.handoff import index as handoff_index
    from ccstate.handoff import store as handoff_store
    from ccstate.secrets import redact

    state = project / ".ccstate"
    cfg = config_mod.load_config(project)
    redactor = redact.for_project(project)
    head = _git_head(project)
    for n in range(first, first + count):
        session = f"{n:08x}-0000-4000-8000-00000000beef"
        meta = handoff_doc.Meta(
            project=project.name,
            session=session,
            event="SessionEnd",
            written=f"2026-11-{1 + n % 28:02d}T12:00:00Z",
            written_epoch=1_795_000_000 + n * 600,
            transcript=f"{session}.jsonl",
            records=100 + n,
            last_line=100 + n,
            branch="main" if n % 4 else f"feature/{n}",
            head=head,
            head_subject="initial",
            base=head,
        )
        item = handoff_doc.Item
        sections = (
            ("goal", (item(f"Speed up importer step {n}", f"L{n + 1}", f"importer step {n}"),)),
            ("changed", (item(f"src/mod_{n}.py (+3 -1)", "git diff", f"file:src/mod_{n}.py"),)),
            ("checks", (item("pytest: 12 passed", "L40", "pytest passed"),)),
        )
        draft = handoff_doc.Handoff(meta, sections, ())
        doc = handoff_doc.Handoff(meta, sections, handoff_doc.make_gist(draft))
        handoff_store.persist(state, cfg, doc, redactor)
    return os.path.getsize(handoff_index.index_path(state))


def copy_handoffs(source: Path, target: Path) -> None:
    """`source`'s handoffs (index, documents, progress log) into `target`'s state dir: cheaper
    than writing them again (the index is rewritten at every write: quadratic)."""
    shutil.copytree(source / ".ccstate" / "handoff", target / ".ccstate" / "handoff")


def _git_head(project: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def make_plugin_data(folder: Path, python: str) -> Path:
    """A plugin data folder whose venv `bootstrap.check` calls ready: a venv without pip whose
    site-packages points at `python`'s (a .pth line), and `venv.ready.json` as bootstrap writes
    it. Built in well under a second instead of a pip install."""
    venv = folder / "venv"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True)
    theirs = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    site = next((venv / "lib").glob("python3.*/site-packages"))
    (site / "bench-deps.pth").write_text(theirs + "\n", encoding="utf-8")
    code = (
        "import json, sys; from pathlib import Path; from ccstate.install import bootstrap;"
        "print(json.dumps(bootstrap.ready_marker(Path(sys.argv[1]), Path(sys.argv[2]))))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    ready = subprocess.run(
        [python, "-c", code, str(ROOT), str(venv / "bin" / "python")],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    (folder / "venv.ready.json").write_text(ready, encoding="utf-8")
    return folder


def tree_files(folder: Path) -> Iterator[Path]:
    yield from sorted(p for p in folder.rglob("*") if p.is_file())
