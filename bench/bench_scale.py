#!/usr/bin/env python3
"""The scaling bench (#14): costs that must stay flat as a project's history grows.

Makes issue #14's scaling rows docs/BENCHMARKS.md quotes (and its Performance at a glance).

Builds the history users reach after months (bench/scale_fixtures.py: one session of 10,000
Reads, 16k/64k blobs, DECISIONS.md with 500/5,000 entries, 1,000 handoffs, the public
transcripts copied 1x/10x/50x with fresh ids) and times every row of #14's table against its
baseline, run side by side: rounds interleave a row's command with its baseline's, rotating the
order, so a busy moment on the shared machine hits both. A row is its median over the
baseline's median (lower is better), next to #14's target, with the peak RSS of the process
(wait4; for `report`, its largest process). The blob-store row is bytes on disk (blocks),
sampled while the session grows, over `dedupe.store_max_mb`. Hooks run as project hooks run
them, through the `ccstate-hook` console script beside the interpreter (`--launch module`:
`python -m ccstate.hooks`, which also pays for runpy's imports). PreToolUse is no longer
registered (#14): its row checks that and shows the cost nobody pays, 0.

What is timed is ccstate as users install it (#24.6): by default a venv made by a plain
`pip install` of the tree, as install.sh makes it (bench/plain_venv.py: not editable, no
test tools, built once per tree under ~/.cache/ccstate-bench), with its `ccstate` and
`ccstate-hook` and no PYTHONPATH; the floor is that venv's interpreter. `--python PATH` times
another interpreter instead (the tree's src/ first on its PYTHONPATH), e.g. the test venv.

Not a test: run it on a machine as idle as you can get; docs/BENCHMARKS.md quotes it. 50x
takes minutes. To measure another version, point CCSTATE_BENCH_ROOT at its tree (src/, hooks/,
pyproject.toml).

Example:
    .venv/bin/python bench/bench_scale.py                   # every row, 1x/10x/50x
    .venv/bin/python bench/bench_scale.py --quick           # smaller fixtures, 1x/10x
    .venv/bin/python bench/bench_scale.py --rows start,plugin --runs 20 --json
    .venv/bin/python bench/bench_scale.py --rows report --scales 50 --work /tmp/scale
    .venv/bin/python bench/bench_scale.py --rows hot,noop --launch module
    .venv/bin/python bench/bench_scale.py --rows hot,noop --python .venv/bin/python
    git archive main | tar -x -C /tmp/main && \\
        CCSTATE_BENCH_ROOT=/tmp/main .venv/bin/python bench/bench_scale.py --rows start
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale_fixtures as fx
from bench_hooks import bench_env, source_text
from bench_session_start import payload as session_payload
from bench_session_start import write_transcript
from ccusage_setup import (
    CCUSAGE_VERSION,
    CORPUS,
    ccstate_command,
    ccstate_env,
    ccstate_launch,
    ccusage_bin,
    ccusage_command,
    ccusage_env,
)
from paired_runner import Cmd, Row, Spawner, measure, progress, record, render, result, selected

ROOT = fx.ROOT  # the ccstate under test (CCSTATE_BENCH_ROOT, default this checkout)
PY = sys.executable  # the timed interpreter: the plain-install venv's, or --python (set by main)
PLAIN: list[bool] = [False]  # timing the plain-install venv (no PYTHONPATH; set by main)
FLOOR = "python -c pass"
GROUPS = ("hot", "noop", "blobs", "start", "plugin", "decide", "report", "replay")


def floor_cmd(cwd: Path) -> Cmd:
    return Cmd(FLOOR, [PY, "-c", "pass"], cwd, hook_env())


SCRATCH: list[Path] = []  # the run's temp dir (set by main)
SPAWNER: list[Spawner] = []  # the helper that starts the timed processes (set by main)
LAUNCH: list[str] = ["script"]  # how hooks are started: `--launch` (set by main)


def hook_argv(event: str) -> list[str]:
    """The hook process: the `ccstate-hook` console script beside the interpreter, what
    `ccstate init`'s project hooks run (install/wiring.py), or `python -m ccstate.hooks`."""
    script = Path(PY).with_name("ccstate-hook")
    if LAUNCH[0] == "script" and script.is_file():
        return [str(script), event]
    return [PY, "-m", "ccstate.hooks", event]


def hook_env() -> dict[str, str]:
    """As bench/bench_hooks.py runs hooks: bytecode caches on (kept in the temp dir), no
    plugin, no CCSTATE_HOME; the tree's src/ first on PYTHONPATH unless the interpreter is the
    plain-install venv (then the installed copy of the tree runs, as for users)."""
    env = {**bench_env(SCRATCH[0]), "PYTHONPATH": str(ROOT / "src")}
    if PLAIN[0]:
        env.pop("PYTHONPATH")
    return env


def hook_cmd(name: str, event: str, project: Path, stdin: Callable[[int], bytes]) -> Cmd:
    return Cmd(name, hook_argv(event), project, hook_env(), stdin)


def hooks_log(project: Path) -> str:
    try:
        return (project / ".ccstate" / "logs" / "hooks.log").read_text(errors="replace")[:2000]
    except OSError:
        return ""


# --------------------------------------------------------------------------- hot hooks


def hot_group(tmp: Path, args: argparse.Namespace, fixtures: dict[str, object]) -> list[Row]:
    """The hot hooks in a session that has seen `--reads` Reads; the blob store as it grew."""
    reads = f"{args.reads:,} Reads"
    cap_mib = 64.0  # dedupe.store_max_mb: the default
    rows = [
        Row("hot.read-notice", f"PostToolUse Read (notice) after {reads}", "notice", FLOOR, 2.3),
        Row("hot.read-full", f"PostToolUse Read (full) after {reads}", "full", FLOOR, 2.3),
        Row(
            "noop.pre-read",
            "PreToolUse Read: not registered since #14, no process (0)",
            "",
            FLOOR,
            1.5,
        ),
        Row("hot.edit", f"PostToolUse Edit of a read .py file after {reads}", "edit", FLOOR, 2.3),
        Row("hot.write", f"PostToolUse Write of a .py file after {reads}", "write", FLOOR, 2.3),
        Row("noop.post-bash", "PostToolUse Bash `ls -la`", "bash", FLOOR, 1.5),
        Row("noop.post-glob", "PostToolUse Glob of ten files", "glob", FLOOR, 1.5),
        Row(
            "blobs.session",
            f"blob store on disk, {reads} of 2,000-line files (peak)",
            "",
            "store_max_mb",
            1.0,
            base_value=cap_mib,
            unit="MiB",
        ),
    ]
    rows = [r for r in rows if selected(r.key, args.rows)]
    if not rows:
        return rows
    project = fx.git_project(tmp / "hot")
    progress(f"hot: a session of {reads}")
    started = time.perf_counter()
    grown = fx.grow_read_session(project, args.reads, progress=progress)
    fixtures["read_session"] = {**grown, "seconds": round(time.perf_counter() - started, 1)}
    for row in rows:
        if row.key == "blobs.session":
            row.value = grown["blob_peak_bytes"] / 2**20
    timed = {r.cmd for r in rows if r.cmd}
    floor = floor_cmd(project)
    if timed or any(r.key == "noop.pre-read" for r in rows):
        cmds = [floor, *hot_cmds(project)]
        measure(SPAWNER[0], [c for c in cmds if c.name in timed | {FLOOR}], args.runs)
        record(rows, cmds)
    for row in rows:
        if row.key == "noop.pre-read":  # what a Read costs in PreToolUse now: no process at all
            check_unregistered("PreToolUse")
            row.value, row.base_value, row.runs = 0.0, statistics.median(floor.ms), 0
    if log := hooks_log(project):
        raise SystemExit(f"bench_scale: hooks.log in {project} is not empty:\n{log}")
    return rows


def check_unregistered(event: str) -> None:
    """Stop the bench if `event` is registered after all (project hooks or the plugin's)."""
    sys.path.insert(0, str(ROOT / "src"))
    from ccstate.install import wiring

    plugin = json.loads((ROOT / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    if any(e == event for e, _m, _t in wiring.HOOK_SPECS) or event in plugin.get("hooks", {}):
        raise SystemExit(f"bench_scale: {event} is registered: time it instead of showing 0")


def hot_cmds(project: Path) -> list[Cmd]:
    environ = fx.hook_environ(project)
    base = source_text(2000)
    edits: dict[Path, int] = {}

    def edit(folder: str, run: int) -> tuple[Path, str]:
        path = project / "src" / folder / f"file_{run % 40:02d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        edits[path] = edits.get(path, 0) + 1
        text = fx.revision(base, run, edits[path])
        path.write_text(text, encoding="utf-8")
        return path, text

    held: dict[int, tuple[Path, str]] = {}

    def seed(run: int) -> None:  # an untimed full Read, so the timed one repeats it
        path, text = held[run] = edit("notice", run)
        fx.run_hook("PostToolUse", fx.read_payload(project, path, text, f"seed_{run}"), environ)

    fresh: dict[int, tuple[Path, str]] = {}

    def change(run: int) -> None:
        fresh[run] = edit("fresh", run)

    def read(store: dict[int, tuple[Path, str]], tag: str) -> Callable[[int], bytes]:
        def make(run: int) -> bytes:
            path, text = store[run]
            return json.dumps(fx.read_payload(project, path, text, f"{tag}_{run}")).encode()

        return make

    def replaced(expected: bool) -> Callable[[bytes], str]:
        def check(out: bytes) -> str:
            if (b'"updatedToolOutput"' in out) == expected:
                return ""
            return "the Read was " + ("served in full" if expected else "replaced")

        return check

    app = project / "src" / "app.py"
    app.write_text(base, encoding="utf-8")
    writes = WriteRuns(project, base, edit, environ)
    return [
        Cmd(*_hook("notice", "PostToolUse", project), read(held, "notice"), seed, replaced(True)),
        Cmd(*_hook("full", "PostToolUse", project), read(fresh, "full"), change, replaced(False)),
        Cmd(*_hook("edit", "PostToolUse", project), writes.edit_stdin, writes.edit_setup, _silent),
        Cmd(
            *_hook("write", "PostToolUse", project), writes.write_stdin, writes.write_setup, _silent
        ),
        hook_cmd("bash", "PostToolUse", project, _tool(project, "PostToolUse", "Bash", app)),
        hook_cmd("glob", "PostToolUse", project, _tool(project, "PostToolUse", "Glob", app)),
    ]


def _silent(out: bytes) -> str:
    return f"expected no output, got {out[:200]!r}" if out.strip() else ""


class WriteRuns:
    """The Edit and Write rows (#24): each timed Edit changes one line of a 2,000-line file the
    context read in full a moment before (an untimed Read), so the ledger computes the edited
    text and finds it on disk; each Write creates a 2,000-line file. Every setup checks that the
    previous run's write was recorded as held (the ledger's history), so the rows time real
    ledger work, never a write it gave up on."""

    def __init__(
        self,
        project: Path,
        base: str,
        edit: Callable[[str, int], tuple[Path, str]],
        environ: dict[str, str],
    ) -> None:
        self.project, self.base, self.change, self.environ = project, base, edit, environ
        self.edits: dict[int, tuple[Path, str, str, str]] = {}
        self.writes: dict[int, tuple[Path, str]] = {}

    def edit_setup(self, run: int) -> None:
        self._check_held(f"edit_{run - 1}")
        path, text = self.change("edit", run)
        fx.run_hook(
            "PostToolUse", fx.read_payload(self.project, path, text, f"eseed_{run}"), self.environ
        )
        old = text.split("\n")[1000]
        new = old + "  # edited"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        self.edits[run] = (path, text, old, new)

    def edit_stdin(self, run: int) -> bytes:
        path, text, old, new = self.edits[run]
        tool_input = {"file_path": str(path), "old_string": old, "new_string": new}
        response = {
            "filePath": str(path),
            "oldString": old,
            "newString": new,
            "originalFile": text,
            "structuredPatch": [
                {"oldStart": 998, "oldLines": 7, "newStart": 998, "newLines": 7, "lines": []}
            ],
            "userModified": False,
            "replaceAll": False,
        }
        return self._payload("Edit", tool_input, response, f"edit_{run}")

    def write_setup(self, run: int) -> None:
        self._check_held(f"write_{run - 1}")
        path = self.project / "src" / "write" / f"new_{run}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = fx.revision(self.base, run, 0)
        path.write_text(text, encoding="utf-8")
        self.writes[run] = (path, text)

    def write_stdin(self, run: int) -> bytes:
        path, text = self.writes[run]
        response = {
            "type": "create",
            "filePath": str(path),
            "content": text,
            "structuredPatch": [],
            "originalFile": None,
            "userModified": False,
        }
        return self._payload(
            "Write", {"file_path": str(path), "content": text}, response, f"write_{run}"
        )

    def _payload(self, tool: str, tool_input: dict, response: dict, tool_use_id: str) -> bytes:
        data = {
            "session_id": fx.SESSION_ID,
            "transcript_path": str(self.project / "transcript.jsonl"),
            "cwd": str(self.project),
            "permission_mode": "default",
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": tool_use_id,
            "tool_response": response,
        }
        return json.dumps(data).encode()

    def _check_held(self, tool_use_id: str) -> None:
        """The run before this one (if it ran) was recorded as held."""
        ledger = self.project / ".ccstate" / "ledger" / fx.SESSION_ID / "main.json"
        history = json.loads(ledger.read_text(encoding="utf-8"))["history"]
        kinds = [h.get("kind") for h in history if h.get("tool_use_id") == tool_use_id]
        if kinds and kinds != ["held"]:
            raise SystemExit(f"bench_scale: {tool_use_id} was not held: {history[-3:]}")


def _hook(name: str, event: str, project: Path) -> tuple[str, list[str], Path, dict[str, str]]:
    return name, hook_argv(event), project, hook_env()


def _tool(project: Path, event: str, tool: str, path: Path) -> Callable[[int], bytes]:
    """A tool call the hooks have nothing to do for (reference §2.5 shapes)."""
    names = [str(project / "src" / "pkg" / f"module_{i:02d}.py") for i in range(10)]
    inputs: dict[str, dict[str, object]] = {
        "Read": {"file_path": str(path)},
        "Bash": {"command": "ls -la", "description": "List files"},
        "Glob": {"pattern": "src/pkg/*.py"},
    }
    responses: dict[str, object] = {
        "Bash": {"stdout": "total 8\napp.py\n", "stderr": "", "interrupted": False},
        "Glob": {"filenames": names, "durationMs": 4, "numFiles": 10, "truncated": False},
    }

    def make(run: int) -> bytes:
        data: dict[str, object] = {
            "session_id": fx.SESSION_ID,
            "transcript_path": str(project / "transcript.jsonl"),
            "cwd": str(project),
            "permission_mode": "default",
            "hook_event_name": event,
            "tool_name": tool,
            "tool_input": inputs[tool],
            "tool_use_id": f"toolu_{tool}_{run}",
        }
        if event == "PostToolUse":
            data["tool_response"] = responses[tool]
        return json.dumps(data).encode()

    return make


# --------------------------------------------------------------------------- SessionStart


def start_group(tmp: Path, args: argparse.Namespace, fixtures: dict[str, object]) -> list[Row]:
    """SessionStart on big histories, the plugin launcher, and `decide` on a long log."""
    small, large = args.blobs
    few, many = args.decisions
    k = _thousands
    specs = {  # project -> (blobs, decisions, handoffs)
        "no-history": (0, 0, 0),  # what the rows below add to
        f"blobs-{k(small)}": (small, 0, 0),
        f"blobs-{k(large)}": (large, 0, 0),
        f"decisions-{few}": (0, few, 0),
        f"decisions-{many}": (0, many, 0),
        f"handoffs-{args.handoffs}": (0, 0, args.handoffs),
        "all": (large, many, args.handoffs),
        "all-no-blobs": (0, many, args.handoffs),
    }
    rows = [
        Row(f"start.{name}", f"SessionStart, {_history(*spec)}", name, FLOOR, 3.0)
        for name, spec in specs.items()
    ]
    rows += [
        Row(
            f"start.handoffs-{args.handoffs}-written",
            f"SessionStart after a handoff was written, {args.handoffs:,} handoffs",
            "handoff-written",
            FLOOR,
            3.0,
        ),
        Row(
            f"start.decisions-{many}-decided",
            f"SessionStart after `ccstate decide`, {many:,} decisions",
            "decided",
            FLOOR,
            3.0,
        ),
        Row(
            f"start.decisions-{many}-hand-edited",
            f"SessionStart after a hand edit of DECISIONS.md, {many:,} decisions",
            "hand-edited",
            FLOOR,
            None,
        ),
        Row(
            "plugin.start",
            "plugin SessionStart (hooks/run.py, venv ready)",
            "plugin",
            "project",
            1.3,
        ),
        Row(
            f"decide.{many}",
            f"ccstate decide, {many:,} decisions",
            f"decide-{many}",
            f"decide-{few}",
            1.2,
        ),
    ]
    rows = [r for r in rows if selected(r.key, args.rows)]
    if not rows:
        return rows
    names = {r.cmd for r in rows} | {r.baseline for r in rows}
    cmds = [floor_cmd(tmp)]
    for name, spec in specs.items():
        written = "handoff-written" in names and spec == (0, 0, args.handoffs)
        if name in names or written:
            cmds += start_cmds(tmp, name, spec, fixtures)
    if names & {"decided", "hand-edited"}:
        cmds += decision_cmds(tmp, many, fixtures)
    if "plugin" in names:
        cmds += plugin_cmds(tmp)
    if names & {f"decide-{many}", f"decide-{few}"}:
        cmds += [decide_cmd(tmp, few), decide_cmd(tmp, many)]
    cmds = [c for c in cmds if c.name in names]
    measure(SPAWNER[0], cmds, args.runs)
    record(rows, cmds)
    for cmd in cmds:
        if log := hooks_log(cmd.cwd):
            raise SystemExit(f"bench_scale: hooks.log in {cmd.cwd} is not empty:\n{log}")
    return rows


def _thousands(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def _history(blobs: int, decisions: int, handoffs: int) -> str:
    parts = [f"{blobs:,} blobs" * bool(blobs), f"{decisions:,} decisions" * bool(decisions)]
    parts.append(f"{handoffs:,} handoffs" * bool(handoffs))
    return ", ".join(p for p in parts if p) or "no history"


HISTORY_CONFIG = "dedupe:\n  store_max_mb: 4096\nhandoff:\n  keep_sessions: 1000\n"


def history_project(root: Path, blobs: int, decisions: int, handoffs: int) -> Path:
    """A project with that much history; the config keeps it all (blobs under the cap)."""
    project = fx.git_project(root, HISTORY_CONFIG)
    if blobs:
        fx.write_blobs(project, blobs)
    if decisions:
        fx.write_decisions(project, decisions)
    if handoffs:
        fx.copy_handoffs(handoff_template(root.parent, handoffs), project)
    return project


def handoff_template(tmp: Path, count: int) -> Path:
    """A project with `count` handoffs, written once per run and copied (same commit)."""
    template = tmp / f"handoffs-{count}"
    if not template.exists():
        progress(f"start: writing {count:,} handoffs")
        fx.git_project(template, HISTORY_CONFIG)
        fx.write_handoffs(template, count)
    return template


def start_cmds(
    tmp: Path, name: str, spec: tuple[int, int, int], fixtures: dict[str, object]
) -> list[Cmd]:
    started = time.perf_counter()
    progress(f"start: project {name}")
    project = history_project(tmp / f"start-{name}", *spec)
    fixtures[f"start-{name}"] = {
        "blobs": _count(project / ".ccstate" / "ledger" / "blobs"),
        "blobs_bytes_on_disk": fx.disk_bytes(project / ".ccstate" / "ledger" / "blobs"),
        "decisions_bytes": _size(project / "DECISIONS.md"),
        "handoff_index_bytes": _size(project / ".ccstate" / "handoff" / "index.json"),
        "seconds": round(time.perf_counter() - started, 1),
    }
    stdin = _start_stdin(tmp, project)
    cmds = [hook_cmd(name, "SessionStart", project, stdin)]
    if spec[:2] == (0, 0):  # the handoff project: also after each new handoff
        count = [spec[2]]

        def write_one(run: int) -> None:
            count[0] += 1
            fx.write_handoffs(project, 1, first=count[0])

        argv = hook_argv("SessionStart")
        cmds.append(Cmd("handoff-written", argv, project, hook_env(), stdin, write_one))
    return cmds


def _start_stdin(tmp: Path, project: Path) -> Callable[[int], bytes]:
    transcript = write_transcript(tmp, project)
    data = session_payload(project, transcript, source="startup")
    return lambda _run: data


def _count(folder: Path) -> int:
    try:
        return len(os.listdir(folder))
    except OSError:
        return 0


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def decision_cmds(tmp: Path, count: int, fixtures: dict[str, object]) -> list[Cmd]:
    """SessionStart right after `ccstate decide` (in-process), and after a hand edit."""
    from ccstate.decisions import edit as decisions_edit

    decided = history_project(tmp / "start-decided", 0, count, 0)
    edited = history_project(tmp / "start-hand-edited", 0, count, 0)
    fixtures["start-decided"] = {"decisions_bytes": _size(decided / "DECISIONS.md")}

    def decide(run: int) -> None:
        decisions_edit.record(
            decided, decided / ".ccstate", f"Bench decision {run}", "Keep it.", date="2026-12-01"
        )

    def hand_edit(run: int) -> None:
        path = edited / "DECISIONS.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("Keep module", "keep module", 1), encoding="utf-8")

    argv = hook_argv("SessionStart")
    return [
        Cmd("decided", argv, decided, hook_env(), _start_stdin(tmp, decided), decide),
        Cmd("hand-edited", argv, edited, hook_env(), _start_stdin(tmp, edited), hand_edit),
    ]


def plugin_cmds(tmp: Path) -> list[Cmd]:
    """hooks/run.py with a ready venv (as the plugin runs it) and the project hook, alike."""
    project = fx.git_project(tmp / "start-plugin")
    data = fx.make_plugin_data(tmp / "plugin-data", PY)
    env = {**hook_env(), "CLAUDE_PLUGIN_ROOT": str(ROOT), "CLAUDE_PLUGIN_DATA": str(data)}
    env.pop("PYTHONPATH")  # the launcher finds src/ itself
    stdin = _start_stdin(tmp, project)
    script = Path(PY).with_name("ccstate-hook")
    argv = (
        [str(script), "SessionStart"]
        if script.is_file()
        else [PY, "-m", "ccstate.hooks", "SessionStart"]
    )
    return [
        Cmd("plugin", [PY, str(ROOT / "hooks" / "run.py"), "SessionStart"], project, env, stdin),
        Cmd("project", argv, project, hook_env(), stdin),
    ]


def decide_cmd(tmp: Path, count: int) -> Cmd:
    project = history_project(tmp / f"decide-{count}", 0, count, 0)
    cmd = Cmd(f"decide-{count}", [], project, hook_env())

    def setup(run: int) -> None:
        title = f"Bench decision {run}"
        cmd.argv = [
            *ccstate_launch(PY),
            "decide",
            title,
            "--decision",
            "Keep it.",
            "-C",
            str(project),
        ]

    cmd.setup = setup
    return cmd


# --------------------------------------------------------------------------- report


def report_group(tmp: Path, args: argparse.Namespace, fixtures: dict[str, object]) -> list[Row]:
    """`ccstate report` and `replay` on N copies of the public corpus, against ccusage."""
    scales = sorted(args.scales)
    warm_at = scales[-1]
    replay_at = max([s for s in scales if s <= 10] or [scales[0]])
    rows: list[Row] = []
    for scale in scales:
        rows.append(
            Row(
                f"report.cold-{scale}x",
                f"ccstate report --json --no-cache, {scale}x corpus",
                f"cold-{scale}",
                f"ccusage-{scale}",
                1.0 if scale < 10 else 1.5,  # #24.6 restated #14's target at 10x and 50x
            )
        )
    rows.append(
        Row(
            f"report.warm-change-{warm_at}x",
            f"report after one transcript changed, {warm_at}x (vs fully warm)",
            f"change-{warm_at}",
            f"warm-{warm_at}",
            1.2,
        )
    )
    rows.append(
        Row(
            f"replay.{replay_at}x",
            f"ccstate replay, {replay_at}x (vs a cold report)",
            f"replay-{replay_at}",
            f"cold-{replay_at}",
            1.5,
        )
    )
    rows = [r for r in rows if selected(r.key, args.rows)]
    if not rows:
        return rows
    pool = corpus_pool(args, max(scales))
    launcher = ccusage_bin()
    for scale in scales:
        names = {n for r in rows for n in (r.cmd, r.baseline) if n.endswith(f"-{scale}")}
        if not names:
            continue
        cmds = scale_cmds(tmp / f"report-{scale}x", pool, scale, launcher, fixtures)
        cmds = [c for c in cmds if c.name in names]
        progress(f"report: {scale}x ({', '.join(c.name for c in cmds)})")
        runs = args.report_runs or {1: 11, 10: 5}.get(scale, 3)
        measure(SPAWNER[0], cmds, runs, warmup=1)
        record([r for r in rows if r.cmd in {c.name for c in cmds}], cmds)
    return rows


def corpus_pool(args: argparse.Namespace, copies: int) -> Path:
    """Copies 0..copies-1 of the corpus, each in its own folder (kept in --work between runs)."""
    pool = args.work / "corpus-pool"
    for copy in range(copies):
        done = pool / f"copy-{copy:03d}.done"
        if not done.exists():
            fx.copy_corpus(args.corpus, pool / f"copy-{copy:03d}", copy + 1, first=copy)
            done.touch()
            if copy % 10 == 9:
                progress(f"report: corpus copy {copy + 1}/{copies}")
    return pool


def scale_cmds(
    work: Path, pool: Path, scale: int, launcher: Path, fixtures: dict[str, object]
) -> list[Cmd]:
    home = work / "home"
    for copy in range(scale):
        fx.link_tree(pool / f"copy-{copy:03d}", home)
    projects = home / ".claude" / "projects"
    files = sorted(projects.rglob("*.jsonl"), key=lambda p: p.stat().st_size)
    fixtures[f"corpus-{scale}x"] = {
        "files": len(files),
        "bytes": sum(p.stat().st_size for p in files),
    }
    live = files[-1]  # the largest transcript takes the new records (its own copy, not a link)
    live.write_bytes(live.read_bytes())

    def append(run: int) -> None:
        record = {
            "type": "user",
            "uuid": f"bench-{run}",
            "sessionId": live.stem,
            "timestamp": "2026-12-01T00:00:00.000Z",
            "message": {"role": "user", "content": f"bench line {run}"},
        }
        with live.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")

    mine = {**ccstate_env(work), "PYTHONPATH": str(ROOT / "src")}  # the ccstate under test
    if PLAIN[0]:
        mine.pop("PYTHONPATH")  # its installed copy
    theirs = ccusage_env(home)
    empty = work / "project"
    empty.mkdir(exist_ok=True)
    replay = [*ccstate_launch(PY), "replay", str(projects), "--json", "-C", str(empty)]
    return [
        Cmd(f"ccusage-{scale}", ccusage_command(launcher), work, theirs),
        Cmd(f"cold-{scale}", ccstate_command(home, cache=False, python=PY), work, mine),
        Cmd(f"warm-{scale}", ccstate_command(home, python=PY), work, mine),
        Cmd(f"change-{scale}", ccstate_command(home, python=PY), work, mine, setup=append),
        Cmd(f"replay-{scale}", replay, work, mine),
    ]


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--rows", default=",".join(GROUPS), help="row groups or keys, e.g. hot,start.all")
    add("--scales", help="corpus copies for the report rows (default 1,10,50; quick 1,10)")
    add("--quick", action="store_true", help="smaller fixtures, 1x/10x, fewer runs")
    add("--runs", type=int, help="timed rounds of the hook rows (default 30; quick 10)")
    add("--report-runs", type=int, help="timed rounds of the report rows (default 11/5/3)")
    add("--reads", type=int, help="Reads in the long session (default 10000; quick 1000)")
    add("--blobs", help="blob counts for SessionStart (default 16000,64000; quick 4000,16000)")
    add("--handoffs", type=int, help="handoffs for SessionStart (default 1000; quick 200)")
    add("--corpus", type=Path, default=CORPUS, help="the transcripts to copy")
    add("--work", type=Path, help="keep the corpus copies here, to reuse them next time")
    add(
        "--launch",
        choices=("script", "module"),
        default="script",
        help="start hooks as "
        "`ccstate-hook` (what project hooks run; default) or `python -m ccstate.hooks`",
    )
    add(
        "--python",
        help="the interpreter to time (default: a plain `pip install` of the tree in a venv, "
        "as install.sh makes it; bench/plain_venv.py)",
    )
    add("--json", action="store_true", help="print the results as JSON")
    add("--check", action="store_true", help="exit 1 when a row misses its target")
    args = parser.parse_args(argv)
    quick = args.quick
    args.rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    args.scales = sorted(
        {int(s) for s in (args.scales or ("1,10" if quick else "1,10,50")).split(",")}
    )
    args.runs = args.runs or (10 if quick else 30)
    args.reads = args.reads or (1000 if quick else 10_000)
    blobs = args.blobs or ("4000,16000" if quick else "16000,64000")
    args.blobs = tuple(int(n) for n in blobs.split(","))
    args.decisions = (500, 5000)
    args.handoffs = args.handoffs or (200 if quick else 1000)
    args.corpus = args.corpus.resolve()
    if len(args.blobs) != 2 or min(args.scales) < 1 or args.runs < 1 or args.reads < 30:
        parser.error("--blobs takes two counts; --scales, --runs >= 1; --reads >= 30")
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus}: no such corpus directory")
    return args


def timed_python(args: argparse.Namespace) -> tuple[str, bool]:
    """(the interpreter to time, whether it is the plain-install venv of the tree)."""
    if args.python:
        return str(Path(args.python).absolute()), False
    import plain_venv

    progress(f"plain-install venv of {ROOT} (bench/plain_venv.py)")
    return str(plain_venv.ensure(ROOT)), True


def main(argv: list[str] | None = None) -> int:
    global PY
    args = parse_args(argv)
    PY, PLAIN[0] = timed_python(args)
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.perf_counter()
    fixtures: dict[str, object] = {}
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="ccstate-bench-scale-") as scratch:
        tmp = Path(scratch)
        SCRATCH[:] = [tmp]
        LAUNCH[:] = [args.launch]
        SPAWNER[:] = [Spawner(sys.executable, tmp)]
        args.work = (args.work or tmp / "work").resolve()
        args.work.mkdir(parents=True, exist_ok=True)
        try:
            for group in (hot_group, start_group, report_group):
                rows += group(tmp, args, fixtures)
        finally:
            SPAWNER[0].close()
    results = [result(r) for r in rows]
    report = {
        "python": f"{platform.python_version()} ({PY}{', plain install' if PLAIN[0] else ''})",
        "machine": f"{platform.platform()} ({os.cpu_count()} CPUs)",
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": {"before": load_before, "after": [round(x, 2) for x in os.getloadavg()]},
        "seconds": round(time.perf_counter() - started),
        "ccusage": CCUSAGE_VERSION,
        "hooks": " ".join(Path(a).name if a == PY else a for a in hook_argv("<Event>")),
        "fixtures": fixtures,
        "rows": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(render_report(report, results))
    return 1 if args.check and any(r["verdict"] == "FAIL" for r in results) else 0


def render_report(report: dict[str, object], results: list[dict[str, object]]) -> str:
    load = report["load_average"]
    assert isinstance(load, dict)
    lines = [
        "ccstate scaling bench (#14)",
        f"python   {report['python']}",
        f"machine  {report['machine']}",
        f"date     {report['date']}; load average {load['before']} before, {load['after']} after",
        f"took     {report['seconds']} s",
        f"hooks    {report['hooks']}",
        "",
        *render(results),
        "",
        "fixtures " + json.dumps(report["fixtures"], sort_keys=True),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
