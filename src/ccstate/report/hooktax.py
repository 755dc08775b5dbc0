"""The hook tax: how long each hook command ran, every plugin's, and ccstate's own share
(pure; standard library only).

Claude Code 2.1.328 writes a run's duration in two places: an `attachment` of a `hook_*` type
(`hook_success`, errors) with `command`, `hookEvent` and `durationMs`, for runs that printed
something or failed; and the `hookInfos` of a `stop_hook_summary` system record, for every
Stop hook run. A hook that printed nothing on another event leaves no record: those runs
cannot be counted from a transcript (docs/REPORT.md). Older versions wrote no durations.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

# how ccstate's hooks are written: the plugin's launcher (wiring.PLUGIN_COMMAND), or the
# `ccstate-hook` / `python -m ccstate.hooks` commands `ccstate init` writes
_PLUGIN = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/run.py" '
_PROJECT = ("ccstate-hook", "ccstate.hooks")


class HookRow(NamedTuple):
    command: str
    events: tuple[str, ...]
    runs: int
    p50_ms: int
    p95_ms: int
    max_ms: int
    total_ms: int
    ccstate: bool


def is_ccstate(command: str) -> bool:
    """A hook command ccstate wrote (plugin or project hooks)."""
    return command.startswith(_PLUGIN) or any(name in command for name in _PROJECT)


def short_name(command: str) -> str:
    """A command as a table shows it: ccstate's marked, its plugin launcher shortened."""
    if command.startswith(_PLUGIN):
        return "[ccstate] plugin " + command[len(_PLUGIN) :]
    return ("[ccstate] " if is_ccstate(command) else "") + command


def percentile(ordered: list[int], share: float) -> int:
    """The nearest-rank percentile of a sorted list (0 for an empty one)."""
    if not ordered:
        return 0
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def hook_rows(runs: Iterable[tuple[str, str, int]]) -> list[HookRow]:
    """One row per command, the longest total first."""
    durations: dict[str, list[int]] = {}
    events: dict[str, Counter[str]] = {}
    for command, event, ms in runs:
        durations.setdefault(command, []).append(ms)
        events.setdefault(command, Counter())[event] += 1
    rows = []
    for command, values in durations.items():
        values.sort()
        rows.append(
            HookRow(
                command=command,
                events=tuple(sorted(events[command])),
                runs=len(values),
                p50_ms=percentile(values, 0.5),
                p95_ms=percentile(values, 0.95),
                max_ms=values[-1],
                total_ms=sum(values),
                ccstate=is_ccstate(command),
            )
        )
    return sorted(rows, key=lambda r: (-r.total_ms, r.command))


def hooks_json(runs: list[tuple[str, str, int]]) -> dict[str, Any]:
    rows = hook_rows(runs)
    total = sum(r.total_ms for r in rows)
    mine = sum(r.total_ms for r in rows if r.ccstate)
    return {
        "runs": sum(r.runs for r in rows),
        "total_seconds": round(total / 1000, 3),
        "ccstate_seconds": round(mine / 1000, 3),
        "ccstate_share": round(mine / total, 4) if total else 0.0,
        "commands": [
            {
                "command": r.command,
                "events": list(r.events),
                "runs": r.runs,
                "p50_ms": r.p50_ms,
                "p95_ms": r.p95_ms,
                "max_ms": r.max_ms,
                "total_seconds": round(r.total_ms / 1000, 3),
                "ccstate": r.ccstate,
            }
            for r in rows
        ],
    }
