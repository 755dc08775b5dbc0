"""Prefix breaks in the requests a fake API received: where a request stopped extending what
an earlier one had sent and cached, and whether ccstate's text is what changed.

For each agent request the *reference* is the previous request of the same context (the main
thread of a session, or one subagent: its first user message). A session's first request has
the previous session's first request as its reference when both open with the same user
message, as a scripted loop of `claude -p` runs does: then everything up to the earlier one's
last cache breakpoint could have been read from the cache. A *break* is a request that differs
from its reference before that breakpoint (blocks compared as the cache sees them, without
`cache_control`). It is *ccstate's* when the first differing block holds ccstate's text.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cache_sim import request_blocks
from fake_api import Body, first_user_text, is_subagent

from helpers import BYTECODE_ENV

CCSTATE_MARK = "[ccstate"
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Break:
    request: int  # index among the agent requests
    reference: int
    block: int  # first differing block
    cached_upto: int  # the reference's last cache breakpoint
    before: str  # that block in the reference, and in the request (canonical JSON, cut)
    after: str
    ccstate: bool


def session_of(body: Body) -> str:
    try:
        return str(json.loads(body["metadata"]["user_id"]).get("session_id") or "")
    except (KeyError, TypeError, ValueError):
        return ""


def context_of(body: Body) -> tuple[str, str]:
    if is_subagent(body):
        return session_of(body), "subagent:" + first_user_text(body)[-200:]
    return session_of(body), "main"


def prefix_breaks(bodies: Sequence[Body]) -> list[Break]:
    """Every break in `bodies` (agent requests, in the order they arrived)."""
    blocks = [request_blocks(b) for b in bodies]
    last: dict[tuple[str, str], int] = {}
    openings: list[int] = []  # first request of each main-thread session
    out = []
    for i, body in enumerate(bodies):
        key = context_of(body)
        ref = last.get(key)
        if ref is None and key[1] == "main":
            ref = next(
                (
                    j
                    for j in reversed(openings)
                    if first_user_text(bodies[j]) == first_user_text(body)
                ),
                None,
            )
            openings.append(i)
        last[key] = i
        if ref is None:
            continue
        found = _break(i, ref, blocks[ref], blocks[i])
        if found is not None:
            out.append(found)
    return out


def _break(i: int, ref: int, before: list[Any], after: list[Any]) -> Break | None:
    marks = [k for k, (_c, _t, ttl) in enumerate(before) if ttl is not None]
    if not marks:
        return None
    cached_upto = marks[-1]
    for k in range(cached_upto + 1):
        old = before[k][0]
        new = after[k][0] if k < len(after) else ""
        if old != new:
            mine = CCSTATE_MARK in old or CCSTATE_MARK in new
            return Break(i, ref, k, cached_upto, old[:300], new[:300], mine)
    return None


def ccstate_breaks(bodies: Sequence[Body]) -> list[Break]:
    return [b for b in prefix_breaks(bodies) if b.ccstate]


def rebuild_counts(report: dict[str, Any]) -> dict[str, int]:
    """Rebuilds by class in a `ccstate report --json` document (classes with any)."""
    by_class = report["total"]["cache_audit"]["by_class"]
    return {kind: t["count"] for kind, t in by_class.items() if t["count"]}


def report_json(home: Path, scratch: Path) -> dict[str, Any]:
    """`ccstate report --json` over the transcripts the CLI wrote under `home` (the report's
    own HOME, hence its scan cache, is `scratch`)."""
    proc = subprocess.run(
        [sys.executable, "-m", "ccstate", "report", str(home / ".claude" / "projects"), "--json"],
        capture_output=True,
        text=True,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(scratch),
            "PYTHONPATH": str(REPO / "src"),
            **BYTECODE_ENV,
        },
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def stamped_capsule_copy(target: Path) -> Path:
    """A copy of the plugin whose capsule carries a timestamp: it changes at every injection."""
    for part in ("hooks", ".claude-plugin", "src", "commands", "skills"):
        shutil.copytree(REPO / part, target / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", target / "pyproject.toml")
    capsule = target / "src" / "ccstate" / "capsule.py"
    source = capsule.read_text()
    line = '    header = f"{HEADER} for {project_name}"'
    assert line in source, "capsule.render_capsule changed: update this patch"
    stamped = '    import time\n\n    header = f"{HEADER} for {project_name} at {time.time_ns()}"'
    capsule.write_text(source.replace(line, stamped))
    return target
