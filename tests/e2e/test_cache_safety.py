"""ccstate never changes a prefix Claude Code already sent (issue #16): a multi-turn session
with every ccstate feature on, in the real CLI against the cache-simulating fake, compared
with the same session without ccstate. Also the hook tax from the transcripts it wrote.

The session: three user turns in one process (Reads, a re-read the ledger answers with a
notice, Bash, a subagent that re-reads too), a second and a third session that open the same
way (a scripted loop: each can read the cached opening of the one before), then the first
session resumed
(a Read, an Edit and a re-read answered with a notice naming the Edit), compacted (PreCompact writes
the handoff, SessionStart(compact) injects the capsule) and resumed once more. The machinery
(cache_audit.py) finds every prefix break in the requests and whose text caused it; the
rebuild audit of `ccstate report` counts the rebuilds in the transcripts. With ccstate: no
break of its own and the same rebuilds as without, except where the state it reports changed
between two sessions (the first session's work is indexed for recall, so the second session's
capsule differs from the first's): identical state, as between the second and third sessions,
gives a byte-identical capsule and a cached opening. The same machinery fails a copy of the
plugin patched (in tmp, never by a switch in the product) to put a timestamp in its capsule.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cache_audit import (
    ccstate_breaks,
    prefix_breaks,
    rebuild_counts,
    report_json,
    stamped_capsule_copy,
)
from cache_sim import CacheSim
from claude_runner import provision_plugin_runtime, run_claude, run_claude_turns
from fake_api import Body, FakeAnthropic, find_text, is_main_thread, is_subagent, text, tool_use

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
OPENING = "read app.py twice and check git"
APP = "".join(f"def step_{i}(value):\n    return value * {i} + 1\n\n\n" for i in range(60))


@dataclass
class Run:
    bodies: list[Body]
    report: dict[str, Any]
    session: str


def make_project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "app.py").write_text(APP)
    (root / "README.md").write_text("# Demo\n\nScales values. " * 40 + "\n")
    (root / "CLAUDE.md").write_text("# Demo\n\nRun `pytest -q` before committing.\n")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.name", "E2E"],
        ["config", "user.email", "e2e@example.org"],
        ["config", "commit.gpgsign", "false"],
        ["add", "-A"],
        ["commit", "-q", "-m", "initial"],
    ):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    decide = [sys.executable, "-m", "ccstate", "decide", "Values scale linearly"]
    decide += ["--decision", "step_i multiplies by i.", "-C", str(root), "--date", "2026-11-30"]
    subprocess.run(decide, env=_ccstate_env(root), check=True, capture_output=True)
    env_commit = ["commit", "-q", "-am", "decision"]
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
    subprocess.run(["git", *env_commit], cwd=root, env=env, check=True, capture_output=True)
    return root


def _ccstate_env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO / "src"), "CCSTATE_HOME": str(root.parent / "st")}


def session_a_script(project: Path) -> list[Any]:
    app, readme = str(project / "app.py"), str(project / "README.md")
    agent = {
        "description": "Look at the README",
        "prompt": "SUB-TASK: read README.md twice",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    main = {"when": is_main_thread}
    return [
        tool_use("Read", {"file_path": app}, **main),
        tool_use("Read", {"file_path": app}, **main),  # the ledger: a notice
        tool_use("Bash", {"command": "git status --short", "description": "status"}, **main),
        text("turn 1 done", **main),
        tool_use("Agent", agent, **main),
        tool_use("Read", {"file_path": readme}, when=is_subagent),
        tool_use("Read", {"file_path": readme}, when=is_subagent),
        text("SUB DONE", when=is_subagent),
        text("turn 2 done", **main),
        text("turn 3 done", **main),
    ]


def play(claude_bin: Path, work: Path, plugin: Path | None, *, full: bool = True) -> Run:
    """The scenario of the module docstring; `full=False` stops after the third session."""
    home = work / "home"
    home.mkdir(parents=True)
    project = make_project(work / "project")
    app = str(project / "app.py")
    if plugin is not None:
        provision_plugin_runtime(home, plugin)
    with FakeAnthropic(usage=CacheSim().usage) as api:
        kw: dict[str, Any] = {"cwd": project, "home": home, "api_url": api.url}
        kw["plugin_dir"] = plugin
        api.set_script(session_a_script(project))
        first = run_claude_turns(claude_bin, [OPENING, "ask a helper about the README", "ok"], **kw)
        session = str(first[0]["session_id"])
        for name in ("B", "C"):  # two sessions that change no state
            api.set_script([tool_use("Read", {"file_path": app}), text(f"{name} done")])
            run_claude_turns(claude_bin, [OPENING], **kw)
        if full:
            edit = {"file_path": app, "old_string": "value * 7 + 1", "new_string": "value * 7 + 2"}
            read = tool_use("Read", {"file_path": app})
            api.set_script([read, tool_use("Edit", edit), read, text("changed")])  # a notice
            run_claude_turns(claude_bin, ["change step_7"], resume=session, **kw)
            compact = run_claude(claude_bin, "/compact keep the decisions", resume=session, **kw)
            assert compact.proc.returncode == 0, compact.describe()
            api.set_script([tool_use("Read", {"file_path": app}), text("checked")])
            run_claude_turns(claude_bin, ["check app.py again"], resume=session, **kw)
        assert api.errors == [] and api.remaining_steps() == 0, api.summary()
        bodies = api.agent_requests()
    return Run(bodies, report_json(home, work), session)


def test_ccstate_causes_no_prefix_break_and_no_rebuild(claude_bin: Path, tmp_path: Path) -> None:
    without = play(claude_bin, tmp_path / "without", None)
    with_ = play(claude_bin, tmp_path / "with", REPO)
    # ccstate was on: the capsule, a notice in the main thread and in the subagent, and after
    # the Edit a notice naming it (the context holds the edited text, #24)
    assert find_text(with_.bodies[0], "[ccstate] project state")
    notices = [b for b in with_.bodies if find_text(b, "[ccstate: not file content]")]
    assert any(is_subagent(b) for b in notices) and any(is_main_thread(b) for b in notices)
    assert any(find_text(b, "unchanged since your Edit #1 ") for b in with_.bodies)
    # the machinery sees breaks: the compaction's, in both runs; none is ccstate's
    for run in (without, with_):
        breaks = prefix_breaks(run.bodies)
        assert breaks, "the compaction should rewrite the conversation"
    openers = [i for i, b in enumerate(with_.bodies) if is_main_thread(b) and _first(b)]
    assert len(openers) == 3
    # ccstate's only break: the second session's capsule, after the first session's work
    # changed the state it reports (recall's count of indexed sessions)
    mine = ccstate_breaks(with_.bodies)
    assert [b.request for b in mine] in ([], [openers[1]])
    assert all("[ccstate] project state" in b.before for b in mine)
    # identical state, identical capsule: the third session read the second one's opening
    assert not [b for b in prefix_breaks(with_.bodies) if b.request == openers[2]]
    # and the rebuild audit of the transcripts finds the same rebuilds with ccstate as without
    assert rebuild_counts(with_.report) == rebuild_counts(without.report)
    assert rebuild_counts(with_.report).get("compaction") == 1
    # the hook tax: ccstate's recorded runs (hooks that printed something) with durations
    hooks = with_.report["total"]["hooks"]
    mine = [c for c in hooks["commands"] if c["ccstate"]]
    assert mine and all(c["runs"] and c["max_ms"] > 0 for c in mine)
    assert "SessionStart" in {e for c in mine for e in c["events"]}
    assert hooks["ccstate_share"] == 1.0  # no other plugin's hooks ran
    assert without.report["total"]["hooks"]["runs"] == 0


def _first(body: Body) -> bool:
    return sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant") == 0


def test_the_machinery_catches_a_capsule_that_changes(claude_bin: Path, tmp_path: Path) -> None:
    plugin = stamped_capsule_copy(tmp_path / "plugin")
    run = play(claude_bin, tmp_path / "patched", plugin, full=False)
    openers = [i for i, b in enumerate(run.bodies) if is_main_thread(b) and _first(b)]
    breaks = [b for b in ccstate_breaks(run.bodies) if b.request == openers[2]]
    assert breaks, "a capsule with a timestamp must break the third session's opening"
    assert "project state for project at" in breaks[0].before
