"""Decisions across sessions in the real Claude Code CLI: what the model receives.

Session 1: the (fake) model records two decisions through the Bash tool, the second
superseding the first. Session 2: its first request carries the active one as a one-line
index entry in the SessionStart capsule, and nothing of the superseded one.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fake_api import find_text, system_texts, text, tool_results, tool_use

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
# `ccstate` is not on PATH inside a --plugin-dir session; the test's interpreter has it.
CCSTATE = f"{shlex.quote(sys.executable)} -m ccstate"
OLD = "Use PostgreSQL for the usage cache"
NEW = "Use SQLite for the usage cache"


def all_system_text(request: dict) -> str:
    return "\n".join(system_texts(request))


def stop_venv_builds(home: Path) -> None:
    """Stop the background venv build a --plugin-dir session starts under this test's HOME.

    Nothing here needs the venv, and a pip install per test would load a shared machine.
    The builder runs in its own session, so its process group is its pid (Linux /proc).
    """
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"ccstate.install.bootstrap" in argv and any(str(home).encode() in a for a in argv):
            with contextlib.suppress(OSError):
                os.killpg(int(proc.name), signal.SIGTERM)


def decisions_section(capsule: str) -> list[str]:
    """The capsule's decisions lines: the `- decisions` line and the index lines under it."""
    lines = capsule.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("- decisions"))
    end = start + 1
    while end < len(lines) and lines[end].startswith("  - "):
        end += 1
    return lines[start:end]


def decide(title: str, decision: str, *extra: str) -> str:
    args = [title, "--decision", decision, *extra]
    return f"{CCSTATE} decide " + " ".join(shlex.quote(a) for a in args)


@pytest.mark.parametrize("wiring", ["plugin", "init"])
def test_a_decision_from_session_1_is_indexed_in_session_2(
    claude, fake_api, project: Path, claude_home: Path, wiring: str
) -> None:
    try:
        check_sessions(claude, fake_api, project, wiring)
    finally:
        stop_venv_builds(claude_home)


def check_sessions(claude, fake_api, project: Path, wiring: str) -> None:
    plugin_dir = REPO if wiring == "plugin" else None
    if wiring == "init":
        init = subprocess.run(
            [sys.executable, "-m", "ccstate", "init"], cwd=project, capture_output=True, text=True
        )
        assert init.returncode == 0, init.stderr
        assert "create  DECISIONS.md  (numbered decision log, header only)" in init.stdout
    fake_api.set_script(
        [
            tool_use("Bash", {"command": decide(OLD, "Run a local PostgreSQL server.")}),
            tool_use(
                "Bash",
                {"command": decide(NEW, "One SQLite file under .ccstate/.", "--supersedes", "D1")},
            ),
            text("recorded"),
        ]
    )
    _, result = claude("record the cache decision", plugin_dir=plugin_dir)
    assert result is not None and result["result"] == "recorded"
    session1 = fake_api.agent_requests()
    if wiring == "plugin":  # one skill line names `ccstate decide`; /decide is the user's (#43)
        assert find_text(session1[0], "- ccstate:ccstate: `ccstate recall KEYWORDS`")
        assert find_text(session1[0], "`ccstate decide` records a settled choice (cite Dn)")
        assert not find_text(session1[0], "- ccstate:decide:")
    assert "- decisions" not in all_system_text(session1[0])  # none yet: no line (#43)
    assert [out.strip() for out in tool_results(session1[1]).values()] == [
        f"Recorded D1 (DECISIONS.md): {OLD}"
    ]
    assert [out.strip() for out in tool_results(session1[2]).values()] == [
        f"Recorded D2 (DECISIONS.md): {NEW}\nD1 is now superseded by D2"
    ]

    fake_api.set_script([text("ok")])
    _, result = claude("what did we decide about the cache?", plugin_dir=plugin_dir)
    assert result is not None and result["result"] == "ok"
    first = fake_api.agent_requests()[len(session1)]
    section = decisions_section(all_system_text(first))
    assert section == [
        "- decisions (DECISIONS.md), newest first; cite as `D2 (DECISIONS.md)` instead of "
        "restating; `ccstate decide` records one:",
        f"  - D2: {NEW}",  # one line: ID + title; the superseded D1 is not listed
    ]
    assert "One SQLite file" not in all_system_text(first)  # an index, never the bodies
