#!/usr/bin/env python3
"""Time each ccstate hook process against a bare interpreter start (standard library only).

Makes the hook latency ratios docs/BENCHMARKS.md quotes; README.md the status line's.

Every row runs as its own process, the way Claude Code runs a hook: a realistic
payload on stdin, in a throwaway git project whose state lands in its own
`.ccstate/` (CCSTATE_HOME is unset). Rows are interleaved round by round, so a
busy moment on the machine hits every row alike. The ratio is row median /
baseline median; the target for PostToolUse and PreModelSwitch is 2.5 or less, for the status
line (`ccstate-statusline`, after every assistant message) 1.5 or less (docs/BENCHMARKS.md).

Not a test: run it by hand before a release, or when a hook grows.

`--against REF` adds rows that run the same hooks from the code of another commit (its
`src/`, extracted with `git archive`), interleaved with the rest: a change's effect on latency,
measured side by side rather than on two different days.

Example:
    python bench/bench_hooks.py --runs 40
    python bench/bench_hooks.py --json > bench.json
    python bench/bench_hooks.py --against HEAD~3      # this tree vs three commits ago
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# PreToolUse is registered no more (#14); `--against` still times it for the ref, which did.
# UserPromptSubmit (#26) runs at every prompt: timed with no compaction reminder waiting.
# PreModelSwitch (#25) at every `/model`.
EVENTS = (
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostToolUse",
    "UserPromptSubmit",
    "PreModelSwitch",
)
WARMUP_RUNS = 3
SESSION_ID = "5b0c1f2e-bench-4c1d-9a7e-000000000001"
# Variables that would send state elsewhere or change how the hooks run.
DROPPED_ENV = (
    "CCSTATE_HOME",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_PLUGIN_ROOT",
    "CLAUDE_PLUGIN_DATA",
    "CLAUDE_CONFIG_DIR",
    "PYTHONDONTWRITEBYTECODE",  # a real install has bytecode caches; measure with them
)


@dataclass(frozen=True)
class Row:
    name: str
    argv: list[str]
    payload: Callable[[int], bytes]  # run number -> stdin
    setup: Callable[[int], bytes] | None = None  # stdin for an untimed run just before
    src: Path | None = None  # the ccstate source the row runs (default: this checkout's)
    cwd: Path | None = None  # its project (default: the shared one)
    before: Callable[[], None] | None = None  # untimed, just before each run


@dataclass(frozen=True)
class Project:
    root: Path
    source: Path
    transcript: Path


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with _temporary_dir() as tmp:
        project = make_project(Path(tmp), args.file_lines, args.against)
        env = bench_env(Path(tmp))
        rows = make_rows(args.python, project, env)
        if args.against:
            rows += against_rows(args.python, args.file_lines, args.against, Path(tmp))
        samples = measure(rows, args.runs, env, project.root)
        failures = hook_failures(project.root)
        payload_bytes = len(next(r for r in rows if r.name.endswith(" PostToolUse")).payload(0))
        replaced = repeated_reads_replaced(project.root)
    report = build_report(args, rows, samples, payload_bytes)
    print(json.dumps(report, indent=2) if args.json else render_table(report))
    if failures:
        print(
            "bench_hooks: the hooks wrote to hooks.log (failures or warnings), so these "
            f"timings are not representative:\n{failures}",
            file=sys.stderr,
        )
        return 1
    if digests_served() != args.runs + WARMUP_RUNS:
        print(
            f"bench_hooks: the digest row should get a digest every time; got {digests_served()}",
            file=sys.stderr,
        )
        return 1
    wrong = moments_rows_off(rows, args.runs + WARMUP_RUNS)
    if wrong:
        print(f"bench_hooks: these rows did not print what they measure: {wrong}", file=sys.stderr)
        return 1
    if replaced != (args.runs + WARMUP_RUNS, 0):
        print(
            "bench_hooks: the repeated-Read row should be replaced by a notice every time and the "
            f"first-Read rows never; got (replaced, wrongly replaced) = {replaced}",
            file=sys.stderr,
        )
        return 1
    return 0


def repeated_reads_replaced(project: Path) -> tuple[int, int]:
    """(repeated Reads answered with a notice, first Reads that were not served in full),
    from the hooks' own output: proof that the rows measure the ledger's paths. (The ledger's
    files cannot tell: it keeps only the newest 64 sessions.)"""
    ours = {name: n for name, n in REPLACED.items() if not name.startswith(AGAINST_PREFIX)}
    hits = sum(n for name, n in ours.items() if "repeated" in name)
    wrong = sum(n for name, n in ours.items() if "repeated" not in name and DIGEST not in name)
    return hits, wrong


def moments_rows_off(rows: list[Row], runs: int) -> dict[str, int]:
    """#25's rows (the switch and resume warnings, the status line) whose output lacked its
    marker in some run: row name -> runs that had it."""
    out = {}
    for row in rows:
        prefix = next((p for p in EXPECTED_OUTPUT if row.name.startswith(p)), None)
        ours = prefix is not None and not row.name.startswith(AGAINST_PREFIX)
        if ours and SAID.get(row.name, 0) != runs:
            out[row.name] = SAID.get(row.name, 0)
    return out


def digests_served() -> int:
    """Runs of the digest row whose output replaced the test run's (proof it measures that)."""
    return REPLACED.get(DIGEST_ROW, 0)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="timed runs per row (default 40)")
    parser.add_argument(
        "--file-lines",
        type=int,
        default=2000,
        help="lines in the file the Read payloads name and PostToolUse carries (default 2000)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter for every row, baseline included (default: this one)",
    )
    parser.add_argument(
        "--against",
        metavar="REF",
        help="also time the hot hooks and SessionStart from the code of git REF, interleaved",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time CPU (user+system of each hook process and what it waited for) instead of "
        "the wall clock: far less moved by other jobs on a busy machine",
    )
    args = parser.parse_args(argv)
    CLOCK[0] = "cpu" if args.cpu else "wall"
    if args.runs < 1 or args.file_lines < 1:
        parser.error("--runs and --file-lines must be at least 1")
    return args


@contextlib.contextmanager
def _temporary_dir() -> Iterator[str]:
    """A temp dir removed at the end, once nothing writes there any more: PostToolUse on an
    Edit starts the code index's detached worker (#41), which may still be writing bytecode
    under PYTHONPYCACHEPREFIX when the rows are done."""
    tmp = tempfile.mkdtemp(prefix="ccstate-bench-")
    try:
        yield tmp
    finally:
        for _attempt in range(60):
            try:
                shutil.rmtree(tmp)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(1)


def make_project(tmp: Path, file_lines: int, against: str | None = None) -> Project:
    root = tmp / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    template = (REPO / "src" / "ccstate" / "templates" / "ccstate.yaml").read_text("utf-8")
    if against:  # REF's settings: both codes know every key (a key REF lacks would be logged
        # as unknown by REF's rows, and their config caches would keep evicting each other)
        template = subprocess.run(
            ["git", "-C", str(REPO), "show", f"{against}:src/ccstate/templates/ccstate.yaml"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    (root / ".ccstate.yaml").write_text(template, encoding="utf-8")
    source = root / "src" / "app.py"
    source.parent.mkdir()
    source.write_text(source_text(file_lines), encoding="utf-8")
    transcript = tmp / "claude" / "projects" / "bench" / f"{SESSION_ID}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(transcript_text(source), encoding="utf-8")
    return Project(root=root, source=source, transcript=transcript)


def source_text(lines: int) -> str:
    """Plausible Python, about 40 characters a line, `lines` lines long."""
    out = []
    for i in range(lines):
        match i % 8:
            case 0:
                out.append(f"def handler_{i}(request, *, timeout=30):")
            case 1:
                out.append(f'    """Serve request {i}; see the module docstring."""')
            case 2:
                out.append(f"    items = [x for x in request.items if x.id != {i}]")
            case 3:
                out.append("    if not items:")
            case 4:
                out.append("        return None")
            case 5:
                out.append(f"    total = sum(item.size for item in items) + {i}")
            case 6:
                out.append("    return {'items': items, 'total': total}")
            case _:
                out.append("")
    return "\n".join(out) + "\n"


def test_run_text() -> str:
    """A 600-line test run with three failures, as vitest prints it (about 29,000 chars)."""
    out = ["> shop@1.4.0 test", "> vitest run", "", " RUN  v3.1.4 /work/shop", ""]
    failed = {107: "cart", 303: "pricing", 519: "users"}
    for i in range(575):
        name = failed.get(i, ("cart", "pricing", "users")[i % 3])
        mark = "\u00d7" if i in failed else "\u2713"
        out.append(f" {mark} src/{name}.test.ts > {name} > case {i} computes totals {i % 9}ms")
    for i, name in failed.items():
        out += [f" FAIL  src/{name}.test.ts > {name} > case {i}", f"AssertionError: {i} != {i + 1}"]
    out += ["", "      Tests  3 failed | 572 passed (575)", "   Duration  1.84s", "exit 1"]
    return "\n".join(out)


def transcript_text(source: Path) -> str:
    """A short, well-formed session transcript: a prompt, a Read, its result, a reply."""
    base = {"sessionId": SESSION_ID, "cwd": str(source.parent.parent), "version": "2.1.328"}
    records = [
        {"type": "user", "message": {"role": "user", "content": "Tidy up app.py"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Reading the file first."},
                    {
                        "type": "tool_use",
                        "id": "toolu_bench_0000",
                        "name": "Read",
                        "input": {"file_path": str(source)},
                    },
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_bench_0000",
                        "content": source.read_text(encoding="utf-8")[:4000],
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "model": "claude-opus-5-5",
                "content": [{"type": "text", "text": "Done."}],
                "usage": {
                    "input_tokens": 6,
                    "cache_creation_input_tokens": 1_200,
                    "cache_read_input_tokens": 215_800,
                    "output_tokens": 40,
                    "cache_creation": {"ephemeral_5m_input_tokens": 1_200},
                },
            },
        },
    ]
    lines = []
    for n, record in enumerate(records):
        stamp = f"2026-01-01T00:00:{n:02d}.000Z"
        lines.append(json.dumps({**base, **record, "uuid": f"u{n}", "timestamp": stamp}))
    return "\n".join(lines) + "\n"


def payloads(project: Project, session_tag: str = "") -> dict[str, Callable[[int], bytes]]:
    """Per event: run number -> the stdin Claude Code would send (`session_tag` keeps another
    set of rows in sessions of their own)."""
    common = {
        "session_id": SESSION_ID,
        "transcript_path": str(project.transcript),
        "cwd": str(project.root),
    }
    content = project.source.read_text(encoding="utf-8")
    lines = content.count("\n")
    file_path = str(project.source)

    def fixed(event: str, **fields: object) -> Callable[[int], bytes]:
        data = json.dumps({**common, "hook_event_name": event, **fields}).encode()
        return lambda _run: data

    def tool(
        event: str, session: str = "", id_suffix: str = "", **fields: object
    ) -> Callable[[int], bytes]:
        def make(run: int) -> bytes:
            data = {
                **common,
                # A session per run (when named): every timed Read is the first of its context.
                **({"session_id": f"{SESSION_ID}-{session}{session_tag}-{run}"} if session else {}),
                "permission_mode": "default",
                "hook_event_name": event,
                "tool_name": "Read",
                "tool_input": {"file_path": file_path},
                "tool_use_id": f"toolu_bench_{run:04d}{id_suffix}",
                **fields,
            }
            return json.dumps(data).encode()

        return make

    response = {
        "type": "text",
        "file": {
            "filePath": file_path,
            "content": content,
            "numLines": lines + 1,  # Claude Code counts the empty string after the last newline
            "startLine": 1,
            "totalLines": lines + 1,
        },
    }
    test_run = {"stdout": test_run_text(), "stderr": "", "interrupted": False, "isImage": False}
    digest = json.dumps(
        {
            **common,
            "session_id": f"{SESSION_ID}-digest{session_tag}",
            "permission_mode": "default",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": 'npm test; echo "exit $?"'},
            "tool_use_id": "toolu_bench_digest",
            "tool_response": test_run,
            "duration_ms": 2300,
        }
    ).encode()
    switch = {
        "from_model": "claude-opus-5-5",
        "to_model": "claude-sonnet-5-5",
        "requested_model": "sonnet",
        "source": "command",
        "context_tokens": 217_000,
        "prompt_cache_warm": True,
        "cache_ttl": "5m",
        "estimated_cache_write_usd": 0.5425,
        "pricing": "catalog",
    }
    resume = {
        "source": "resume",
        "seconds_since_last_response": 2820,
        "context_tokens": 217_000,
        "prompt_cache_likely_expired": True,
        "estimated_cache_write_usd": 1.085,
    }

    def model_switch(run: int) -> bytes:  # a prompt_id per run: each one is a new /model
        data = {**common, "hook_event_name": "PreModelSwitch", "prompt_id": f"p{run}", **switch}
        return json.dumps(data).encode()

    status = statusline_payload(project, STATUS_SESSION)
    return {
        "PostToolUse digest": lambda _run: digest,
        "PreModelSwitch": model_switch,
        "SessionStart resume": fixed("SessionStart", **resume),
        "SessionStart resume warm": fixed(
            "SessionStart", **{**resume, "prompt_cache_likely_expired": False}
        ),
        "statusline": lambda _run: status,
        "Stop": fixed(
            "Stop",
            session_id=f"{SESSION_ID}-stop",
            stop_hook_active=False,
            transcript_path=str(stop_transcript(project, False)),
        ),
        "Stop scan": fixed(
            "Stop",
            session_id=f"{SESSION_ID}-stop-scan",
            stop_hook_active=False,
            transcript_path=str(stop_transcript(project, True)),
        ),
        "SessionStart": fixed("SessionStart", source="startup", model="claude-sonnet-4-5"),
        "SessionEnd": fixed("SessionEnd", reason="other"),
        "PreCompact": fixed("PreCompact", trigger="manual", custom_instructions=""),
        "UserPromptSubmit": fixed("UserPromptSubmit", prompt="go on", permission_mode="default"),
        "PreToolUse": tool("PreToolUse"),
        "PostToolUse": tool("PostToolUse", "miss", tool_response=response, duration_ms=3),
        "PostToolUse plugin": tool("PostToolUse", "plugin", tool_response=response, duration_ms=3),
        "PostToolUse project": tool(
            "PostToolUse", "project", tool_response=response, duration_ms=3
        ),
        "PostToolUse repeat": tool("PostToolUse", "hit", tool_response=response, duration_ms=3),
        # The untimed first Read before each repeated one: same context, its own tool_use_id.
        "PostToolUse seed": tool(
            "PostToolUse", "hit", "-seed", tool_response=response, duration_ms=3
        ),
    }


STATUS_SESSION = f"{SESSION_ID}-status"


def stop_transcript(project: Project, scan: bool) -> Path:
    return project.transcript.with_name(f"{SESSION_ID}-stop{'-scan' if scan else ''}.jsonl")


def grow_stop_transcript(project: Project, scan: bool) -> None:
    """One more line since the last Stop: a Read answered with a notice (`scan`), or not."""
    path = stop_transcript(project, scan)
    notice = f"[ccstate: not file content] {project.source} lines 1-400 of 400: unchanged"
    if not path.exists():
        path.write_text(transcript_text(project.source) + _read_answered(project.source, notice))
    with path.open("a", encoding="utf-8") as fh:
        if scan:
            fh.write(_read_answered(project.source, notice))
        else:
            fh.write(json.dumps({"type": "system", "subtype": "turn_duration"}) + "\n")


def status_transcript(project: Project) -> Path:
    return project.transcript.with_name(f"{STATUS_SESSION}.jsonl")


def prepare_status_session(python: str, project: Project, env: dict[str, str]) -> None:
    """The status line row's session: a Read and its repeat answered with a ccstate notice, the
    Stop hook's kept-out counter for it (what the line reads on every run), then 32 KB of
    transcript written since that Stop (what the line looks through for ccstate's mark)."""
    path = status_transcript(project)
    notice = f"[ccstate: not file content] {project.source} lines 1-400 of 400: unchanged"
    path.write_text(
        transcript_text(project.source) + _read_answered(project.source, notice), encoding="utf-8"
    )
    payload = {
        "session_id": STATUS_SESSION,
        "transcript_path": str(path),
        "cwd": str(project.root),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    subprocess.run(
        [python, "-m", "ccstate.hooks", "Stop"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=project.root,
        check=True,
    )
    reply = {"type": "assistant", "message": {"content": [{"type": "text", "text": "x" * 32768}]}}
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(reply) + "\n")


def _read_answered(source: Path, shown: str) -> str:
    """A Read of `source` whose result is `shown`, as two transcript lines."""
    use = {"type": "tool_use", "id": "toolu_bench_0001", "name": "Read"}
    use["input"] = {"file_path": str(source)}
    result = {"type": "tool_result", "tool_use_id": "toolu_bench_0001", "content": shown}
    records = [
        {"type": "assistant", "message": {"role": "assistant", "content": [use]}},
        {"type": "user", "cwd": str(source.parent.parent), "message": {"content": [result]}},
    ]
    return "".join(json.dumps(r) + "\n" for r in records)


def statusline_payload(project: Project, session: str) -> bytes:
    """What Claude Code 2.1.332 hands the status line mid-session: a warm cache counting down,
    in a session ccstate has kept text out of (prepare_status_session)."""
    data = {
        "session_id": session,
        "transcript_path": str(status_transcript(project)),
        "cwd": str(project.root),
        "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
        "workspace": {"current_dir": str(project.root), "project_dir": str(project.root)},
        "version": "2.1.332",
        "cost": {"total_cost_usd": 2.31, "total_duration_ms": 600_000},
        "context_window": {
            "total_input_tokens": 410_000,
            "total_output_tokens": 900,
            "context_window_size": 1_000_000,
            "used_percentage": 41,
            "remaining_percentage": 59,
        },
        "prompt_cache": {
            "warm": True,
            "caching_observed": True,
            "ttl": "5m",
            "expires_at": int(time.time()) + 24 * 3600,
            "requests": 40,
            "misses": 1,
            "hit_ratio": 0.93,
            "recache_tokens_if_cold": 410_900,
            "last_miss_cause": {"causes": ["ttl_expired_5m"]},
        },
    }
    return json.dumps(data).encode()


def make_rows(python: str, project: Project, env: dict[str, str]) -> list[Row]:
    by_event = payloads(project)
    rows = [Row("python -c pass (baseline)", [python, "-c", "pass"], lambda _run: b"")]
    for event in EVENTS:
        rows.append(
            Row(
                f"-m ccstate.hooks {event}", [python, "-m", "ccstate.hooks", event], by_event[event]
            )
        )
    # The read ledger replaces only a repeated Read: time that too (the first Read of the same
    # session runs untimed just before), next to the first-Read rows above.
    rows.append(
        Row(
            "-m ccstate.hooks PostToolUse repeated Read (notice)",
            [python, "-m", "ccstate.hooks", "PostToolUse"],
            by_event["PostToolUse repeat"],
            setup=by_event["PostToolUse seed"],
        )
    )
    # A bulky Bash result: the digest path (issue #15), reading and writing the original.
    rows.append(
        Row(
            DIGEST_ROW,
            [python, "-m", "ccstate.hooks", "PostToolUse"],
            by_event["PostToolUse digest"],
        )
    )
    # What `ccstate init` writes when the interpreter has the console script beside it.
    script = Path(python).parent / "ccstate-hook"
    if script.is_file():
        rows.append(
            Row(
                "ccstate-hook PostToolUse (project hooks)",
                [str(script), "PostToolUse"],
                by_event["PostToolUse project"],
            )
        )
    launcher = str(REPO / "hooks" / "run.py")
    rows.append(
        Row(
            "hooks/run.py PostToolUse (plugin)",
            [python, launcher, "PostToolUse"],
            by_event["PostToolUse plugin"],
        )
    )
    rows.append(
        Row(
            "hooks/run.py UserPromptSubmit (plugin)",
            [python, launcher, "UserPromptSubmit"],
            by_event["UserPromptSubmit"],
        )
    )
    # #25: the resume warning's path of SessionStart, and the status line. The installed
    # `ccstate-statusline` is what settings.json runs (init --statusline); without it, `-m`.
    rows.append(
        Row(
            "-m ccstate.hooks SessionStart resume (warning)",
            [python, "-m", "ccstate.hooks", "SessionStart"],
            by_event["SessionStart resume"],
        )
    )
    rows.append(  # the same resume on a warm cache: no warning, the row to subtract
        Row(
            "-m ccstate.hooks SessionStart resume, warm cache (no warning)",
            [python, "-m", "ccstate.hooks", "SessionStart"],
            by_event["SessionStart resume warm"],
        )
    )
    status = Path(python).parent / "ccstate-statusline"
    argv = [str(status)] if status.is_file() else [python, "-m", "ccstate.moments.statusline"]
    rows.append(
        Row(
            STATUSLINE_ROW + f" ({Path(argv[-1]).name})",
            argv,
            by_event["statusline"],
            # a fresh counter, and 32 KB written after it, for every run
            before=lambda: prepare_status_session(python, project, env),
        )
    )
    # The Stop hook behind the line's "kept out" (async: Claude Code does not wait for it),
    # each run on a transcript grown since the counter: by a notice (a full scan), or by a
    # line without ccstate's mark (the counter moves on unscanned).
    for scan, label in ((True, "a new notice: full scan"), (False, "no new mark: no scan")):
        rows.append(
            Row(
                f"-m ccstate.hooks Stop (kept-out counter, {label})",
                [python, "-m", "ccstate.hooks", "Stop"],
                by_event["Stop scan" if scan else "Stop"],
                before=lambda scan=scan: grow_stop_transcript(project, scan),
            )
        )
    cli = Path(python).parent / "ccstate"
    if cli.is_file():  # the click command with the same code: why settings.json does not run it
        rows.append(
            Row(
                STATUSLINE_ROW + " (ccstate statusline, click)",
                [str(cli), "statusline"],
                by_event["statusline"],
                before=lambda: prepare_status_session(python, project, env),
            )
        )
    return rows


AGAINST_PREFIX = "@"
STATUSLINE_ROW = "status line"
DIGEST = "digest"
DIGEST_ROW = "-m ccstate.hooks PostToolUse Bash digest (600-line test run)"


def against_rows(python: str, file_lines: int, ref: str, tmp: Path) -> list[Row]:
    """The hot hooks (the Bash digest too) and SessionStart from `ref`'s src/, each in its own
    sessions, in a project of their own: two codes sharing one state dir would evict each
    other's config cache when their settings differ."""
    target = tmp / "against"
    target.mkdir()
    project = make_project(target, file_lines, ref)
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", ref, "src"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    by_event = payloads(project, session_tag="against")
    hooks = [python, "-m", "ccstate.hooks"]
    label = f"{AGAINST_PREFIX}{ref} -m ccstate.hooks"
    src = target / "src"
    rows = [
        Row(f"{label} SessionStart", [*hooks, "SessionStart"], by_event["SessionStart"], src=src),
        Row(f"{label} PreToolUse", [*hooks, "PreToolUse"], by_event["PreToolUse"], src=src),
        Row(f"{label} PostToolUse", [*hooks, "PostToolUse"], by_event["PostToolUse"], src=src),
        Row(
            f"{label} PostToolUse repeated Read (notice)",
            [*hooks, "PostToolUse"],
            by_event["PostToolUse repeat"],
            setup=by_event["PostToolUse seed"],
            src=src,
        ),
        Row(
            f"{label} PostToolUse Bash digest (600-line test run)",
            [*hooks, "PostToolUse"],
            by_event["PostToolUse digest"],
            src=src,
        ),
    ]
    return [Row(**{**row.__dict__, "cwd": project.root}) for row in rows]


def bench_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    src = str(REPO / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    # Bytecode goes to the temp dir, not the checkout; warm-up runs fill it.
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


REPLACED: dict[str, int] = {}  # row name -> runs whose output replaced the Read
SAID: dict[str, int] = {}  # row name -> runs whose output held its EXPECTED_OUTPUT marker
# What the #25 rows must print every time, or they did not measure the path they name.
EXPECTED_OUTPUT = {
    "-m ccstate.hooks PreModelSwitch": b"drops the warm 5m cache",
    "-m ccstate.hooks SessionStart resume (warning)": b"resumed after 47m idle",
    STATUSLINE_ROW: b"kept out ",
}


def measure(rows: list[Row], runs: int, env: dict[str, str], cwd: Path) -> dict[str, list[float]]:
    """Wall milliseconds per row; rounds interleave the rows, rotating their order."""
    samples: dict[str, list[float]] = {row.name: [] for row in rows}
    for run in range(-WARMUP_RUNS, runs):
        shift = run % len(rows)
        for row in rows[shift:] + rows[:shift]:
            elapsed = run_once(row, run, env, cwd)
            if run >= 0:
                samples[row.name].append(elapsed)
    return samples


def run_once(row: Row, run: int, env: dict[str, str], cwd: Path) -> float:
    cwd = row.cwd or cwd
    if row.src is not None:
        env = {**env, "PYTHONPATH": str(row.src)}
    if row.setup is not None:
        subprocess.run(row.argv, input=row.setup(run), capture_output=True, env=env, cwd=cwd)
    if row.before is not None:
        row.before()
    stdin = row.payload(run)
    start, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(row.argv, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=60)
    elapsed = (time.perf_counter() - start) * 1000
    if CLOCK[0] == "cpu":
        elapsed = (_children_cpu() - cpu) * 1000
    if b'"updatedToolOutput"' in proc.stdout:
        REPLACED[row.name] = REPLACED.get(row.name, 0) + 1
    for marker in EXPECTED_OUTPUT.values():
        if marker in proc.stdout:
            SAID[row.name] = SAID.get(row.name, 0) + 1
    if proc.returncode != 0 or proc.stderr:
        raise SystemExit(
            f"bench_hooks: {' '.join(row.argv)} exited {proc.returncode}: "
            f"{proc.stderr.decode(errors='replace').strip()}"
        )
    return elapsed


CLOCK = ["wall"]  # or "cpu" (--cpu)


def _children_cpu() -> float:
    """User + system seconds of every finished child so far (the hook and what it waited for)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def hook_failures(project: Path) -> str:
    log = project / ".ccstate" / "logs" / "hooks.log"
    try:
        return log.read_text(encoding="utf-8").strip()[:2000]
    except OSError:
        return ""


def p95(values: list[float]) -> float:
    """Nearest-rank 95th percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def build_report(
    args: argparse.Namespace, rows: list[Row], samples: dict[str, list[float]], payload_bytes: int
) -> dict[str, object]:
    baseline = statistics.median(samples[rows[0].name])
    version = subprocess.run(
        [args.python, "-c", "import sys; print(sys.version.split()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    results = []
    for row in rows:
        values = samples[row.name]
        results.append(
            {
                "name": row.name,
                "command": " ".join([Path(row.argv[0]).name, *row.argv[1:]]),
                "median_ms": round(statistics.median(values), 2),
                "p95_ms": round(p95(values), 2),
                "ratio": round(statistics.median(values) / baseline, 2),
                "extra_ms": round(statistics.median(values) - baseline, 2),
            }
        )
    return {
        "python": f"{version} ({args.python})",
        "machine": f"{platform.platform()} ({platform.machine()}, {os.cpu_count()} CPUs)",
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "clock": CLOCK[0],
        "runs": args.runs,
        "warmup_runs": WARMUP_RUNS,
        "file_lines": args.file_lines,
        "post_tool_use_payload_bytes": payload_bytes,
        "baseline": {"median_ms": results[0]["median_ms"], "p95_ms": results[0]["p95_ms"]},
        "rows": results,
    }


def render_table(report: dict[str, object]) -> str:
    rows = report["rows"]
    assert isinstance(rows, list)
    width = max(len(str(row["name"])) for row in rows)
    lines = [
        "ccstate hook benchmark",
        f"python   {report['python']}",
        f"machine  {report['machine']}",
        f"date     {report['date']} (load average {report['load_average']} at the end)",
        f"runs     {report['runs']} per row, interleaved (after {report['warmup_runs']} warm-up"
        f" runs); Read payload file: {report['file_lines']} lines,"
        f" PostToolUse stdin {report['post_tool_use_payload_bytes']:,} bytes",
        f"clock    {'CPU (user+system)' if report['clock'] == 'cpu' else 'wall'} milliseconds",
        "",
        f"{'row':<{width}}  {'median ms':>9}  {'p95 ms':>7}  {'x baseline':>10}  {'+ms':>6}",
    ]
    for row in rows:
        lines.append(
            f"{row['name']:<{width}}  {row['median_ms']:>9.1f}  {row['p95_ms']:>7.1f}"
            f"  {row['ratio']:>10.2f}  {row['extra_ms']:>+6.1f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
