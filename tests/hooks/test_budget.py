"""Every session-boundary hook ends within its budget on any transcript (#37, hooks/budget.py).

SessionStart (a resume: its warning reads the transcript), PreCompact, SessionEnd and Stop run
as Claude Code runs them on four transcripts built to hurt, with the budget made small
(`hooks.budget_seconds`) and the inputs scaled to it: malformed two-byte lines (every one looks
like a record's start: none is passed over unread), one line far over the readers' cap, a
transcript that grows faster than it can be read while the hook runs, a FIFO. Each must exit 0
with its heartbeat written (no crash hides as a fast exit) within the budget plus the
interpreter's start and exit, with its peak memory at most 256 MiB (the long line never held
whole), and hooks.log must say what a step left for the next run. bench/bench_bounded.py
runs the same at full size (24 million lines, 384 MB) and prints the figures
docs/RELIABILITY.md quotes; its helper measures here too (peak RSS from `wait4`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ccstate.config import Config, defaults
from ccstate.hooks import HookEnv, budget
from helpers import REPO, SRC

sys.path.insert(0, str(REPO / "bench"))
import bench_bounded

BUDGET = 2.0  # seconds: hooks.budget_seconds for these runs
SLACK = 3.0  # the interpreter's start, imports and exit on a loaded 2-CPU machine
KILL = BUDGET + SLACK + 10  # a hook still running then is killed (and fails)
MALFORMED_LINES = 3_000_000  # `{` lines: over 10 s unbounded, for each reader
LONG_LINE = 160 << 20  # ten times the readers' cap
GROWTH = 4 << 20  # bytes a second appended while the hook runs: more than a reader gets through
HOOKS = ("SessionStart", "PreCompact", "SessionEnd", "Stop")
STEPS = {  # what hooks.log must say each hook left for the next run on the malformed lines
    "SessionStart": (),
    "PreCompact": ("handoff transcript scan stopped", "recall index left for the next run"),
    "SessionEnd": (
        "handoff transcript scan stopped",
        "recall index left for the next run",
        "kept-out count",
    ),
    "Stop": ("kept-out count",),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("bounded")
    bench_bounded.write_malformed(folder / "malformed.jsonl", MALFORMED_LINES)
    bench_bounded.write_long_line(folder / "long-line.jsonl", LONG_LINE, folder)
    yield folder


def _env_now() -> dict[str, str]:
    """The hook's environment as the test's isolation has it now (HOME in tmp_path)."""
    return bench_bounded.hook_env(SRC)


def _run(event: str, project: Path, path: Path) -> bench_bounded.Run:
    (project / ".ccstate.yaml").write_text(f"hooks:\n  budget_seconds: {BUDGET}\n")
    data = bench_bounded.payload(event, project, path)
    run = bench_bounded.run_hook(sys.executable, event, data, project, _env_now(), KILL)
    beat = project / ".ccstate" / "heartbeat" / f"{event}.json"
    assert (run.code, run.killed, run.stderr) == (0, False, ""), run.log[-2000:]
    assert beat.exists(), run.log[-2000:]  # the hook did its work (a crash logs, no heartbeat)
    assert json.loads(beat.read_text())["outcome"] in ("ok", "output"), run.log[-2000:]
    assert run.seconds <= BUDGET + SLACK, (run.seconds, run.log[-2000:])
    assert run.peak_mib <= bench_bounded.LIMIT_MIB
    return run


@pytest.mark.parametrize("event", HOOKS)
def test_malformed_lines_end_within_the_budget_and_say_what_is_left(
    event: str, inputs: Path, git_project: Path
) -> None:
    run = _run(event, git_project, inputs / "malformed.jsonl")
    said = [line for line in run.log.splitlines() if "(time budget" in line]
    for step in STEPS[event]:
        assert any(f"{event}: {step}" in line for line in said), (step, said)
    assert all(line.endswith(f"(time budget {BUDGET:g} s)") for line in said)


def test_the_next_run_goes_on_where_the_handoff_scan_stopped(
    inputs: Path, git_project: Path, tmp_path: Path
) -> None:
    """What a stopped scan did not reach is the next run's: SessionEnd twice on the malformed
    lines; between the runs a prompt is written over lines the first run had read (in place,
    far before where it stopped). The second run goes on from the first one's stop, so it
    never reads the prompt; a scan that started over would keep it as the session's (#37)."""
    path = tmp_path / "malformed.jsonl"
    shutil.copyfile(inputs / "malformed.jsonl", path)
    stops = re.compile(r"handoff transcript scan stopped at line (\d+) .*goes on from there")
    first = _run("SessionEnd", git_project, path)
    (stopped,) = [int(m.group(1)) for m in stops.finditer(first.log)]
    prompt = json.dumps({"type": "user", "message": {"role": "user", "content": "PLANTED ask"}})
    span = 2 * 1000  # the first thousand `{` lines, rewritten to the same length
    assert stopped > 10 * 1000
    with path.open("r+b") as fh:
        fh.write(prompt.encode().ljust(span - 1) + b"\n")
    second = _run("SessionEnd", git_project, path)
    lines = [int(m.group(1)) for m in stops.finditer(second.log)]
    assert len(lines) == 2 and lines[1] > stopped, second.log[-2000:]
    (kept,) = (git_project / ".ccstate" / "handoff" / "scans").iterdir()
    scan = json.loads(kept.read_text())["scan"]
    assert scan["first_prompt"] is None and scan["prompt_count"] == 0, scan


@pytest.mark.parametrize("event", HOOKS)
def test_a_line_over_the_cap_is_never_held_whole(
    event: str, inputs: Path, git_project: Path
) -> None:
    run = _run(event, git_project, inputs / "long-line.jsonl")
    assert run.peak_kib * 1024 < LONG_LINE / 2  # not read into memory


@pytest.mark.parametrize("event", HOOKS)
def test_a_transcript_growing_while_it_is_read_ends(
    event: str, git_project: Path, tmp_path: Path
) -> None:
    path = tmp_path / "growing.jsonl"
    bench_bounded.write_records(path, 1 << 20, git_project)
    before = path.stat().st_size
    with bench_bounded.growing(path, GROWTH):
        _run(event, git_project, path)
    assert path.stat().st_size > before  # it grew meanwhile


@pytest.mark.parametrize("event", HOOKS)
def test_a_fifo_named_as_the_transcript_never_blocks(
    event: str, git_project: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    _run(event, git_project, fifo)


def _env(budget_seconds: float, environ: dict[str, str] | None = None) -> HookEnv:
    config = Config({**defaults(), "hooks.budget_seconds": budget_seconds})
    return HookEnv("/p", "/p/.ccstate", config, now=0.0, environ=environ, begun=100.0)


def test_the_budget_is_the_timeout_less_the_margin_unless_set() -> None:
    assert budget.seconds(_env(0), "SessionEnd") == 30 - budget.MARGIN
    assert budget.seconds(_env(0), "SessionStart") == 15 - budget.MARGIN
    assert budget.seconds(_env(1.5), "SessionEnd") == 1.5
    # the plugin launcher kills its venv's interpreter sooner: its budget wins when smaller
    launched = {budget.LAUNCHER_BUDGET: "18"}
    assert budget.seconds(_env(0, launched), "SessionEnd") == 18.0
    assert budget.seconds(_env(1.5, launched), "SessionEnd") == 1.5
    assert budget.seconds(_env(0, {budget.LAUNCHER_BUDGET: "junk"}), "Stop") == 25.0


def test_each_step_ends_at_its_share_counted_from_the_hooks_start() -> None:
    env = _env(10.0)
    handoff, recall = (budget.deadline(env, "SessionEnd", s) for s in ("handoff", "recall"))
    assert 100.0 < handoff < recall < budget.deadline(env, "SessionEnd", "kept") == 110.0
    assert budget.deadline(env, "Stop", "kept") == 110.0
