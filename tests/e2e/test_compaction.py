"""Compaction in the real Claude Code CLI (#26): the block reaches the summariser's request after
the user's own `/compact` instructions, a summary that drops a decision ID is caught and the
ID comes back once, a summary that keeps everything adds nothing.

The fake API answers the summarisation request with the summary each test scripts
(`FakeAnthropic.compaction`); DECISIONS.md holds D1 and D3 active and D2 superseded, and
`decisions.capsule_max: 1` keeps D1 out of the SessionStart(compact) capsule, so only the
reminder can give it back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_runner import provision_plugin_runtime, run_claude_turns, transcript_path
from fake_api import last_user_text, text, tool_use

from ccstate.compaction.steer import HEADER
from ccstate.install.wiring import HOOK_SPECS

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
REMINDER = "[ccstate] The compaction summary left these out"
TITLE = "Use tabs for indentation"
D1 = f"D1 {TITLE}"
DECISIONS = """# Decisions

<!-- ccstate: next-id=4 -->

## D1: Use tabs for indentation

- Status: active

**Decision:** tabs.

## D2: Keep the old parser

- Status: superseded by D3

**Decision:** old.

## D3: Use the new parser

- Status: active

**Decision:** new.
"""


def keeps_all(body: dict[str, Any]) -> str:
    """A summariser that carries the whole block into its summary."""
    instructions = last_user_text(body)
    block = instructions[instructions.index(HEADER) :].split("\n\nREMINDER:")[0]
    return f"<analysis>ok</analysis>\n<summary>Work so far.\n{block}</summary>"


DROPS_D1 = "<analysis>D1 D3</analysis>\n<summary>D3 holds; app.py is edited.</summary>"


@pytest.fixture
def world(project: Path, claude_home: Path) -> Path:
    (project / "DECISIONS.md").write_text(DECISIONS)
    (project / ".ccstate.yaml").write_text("decisions:\n  capsule_max: 1\n")
    for args in (["add", "-A"], ["commit", "-qm", "decisions"]):
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)
    provision_plugin_runtime(claude_home, REPO)
    return project


def _usage(tokens: int) -> dict[str, int]:
    return {"input_tokens": tokens, "output_tokens": 10}


def _auto_session(fake_api: Any, project: Path, summary: Any) -> None:
    """Edit app.py, then Reads whose reported context passes the 100k window's threshold: Claude
    Code compacts, asks for one more tool call, then ends the turn; a second turn follows."""
    app, readme = str(project / "app.py"), str(project / "README.md")
    edit = {"file_path": app, "old_string": "hello", "new_string": "hi"}
    fake_api.compaction = summary
    fake_api.set_script(
        [
            tool_use("Read", {"file_path": app}, usage=_usage(5_000)),
            tool_use("Edit", edit, usage=_usage(20_000)),
            tool_use("Read", {"file_path": readme}, usage=_usage(75_000)),
            tool_use("Read", {"file_path": readme}),  # the first call after the compaction
            text("turn one done"),
            text("turn two done"),
        ]
    )


def _run_turns(claude_bin: Path, project: Path, home: Path, fake_api: Any) -> None:
    run_claude_turns(
        claude_bin,
        ["edit app.py and read the docs", "and now?"],
        cwd=project,
        home=home,
        api_url=fake_api.url,
        plugin_dir=REPO,
        env_extra={"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"},
    )


def _bodies(fake_api: Any) -> list[tuple[str, dict[str, Any]]]:
    kinds = ("agent", "compaction")
    return [(r.kind, r.body or {}) for r in fake_api.all_requests() if r.kind in kinds]


def _count(body: dict[str, Any], needle: str) -> int:
    return json.dumps(body, ensure_ascii=False).count(needle)


def _validate(claude_bin: Path, home: Path, plugin: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [str(claude_bin), "plugin", "validate", "--json", str(plugin)],
        capture_output=True,
        text=True,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    return dict(json.loads(proc.stdout))


def test_hook_events_are_known_to_this_cli(
    claude_bin: Path, claude_home: Path, tmp_path: Path
) -> None:
    """Nothing registered for an event the pinned CLI does not know (2.1.328 is the oldest):
    its validator names an unknown event ("unknown hook event; entry ignored at runtime").
    The plugin's manifest and hooks.json alone (the repo root validates as a marketplace)."""
    plugin = tmp_path / "plugin"
    for name in (".claude-plugin/plugin.json", "hooks/hooks.json"):
        (plugin / name).parent.mkdir(parents=True, exist_ok=True)
        (plugin / name).write_bytes((REPO / name).read_bytes())
    report = _validate(claude_bin, claude_home, plugin)
    assert "unknown hook event" not in json.dumps(report)
    provided = {h["event"] for h in report["provides"]["hooks"]}
    assert provided == {e for e, _m, _t in HOOK_SPECS} >= {"PostCompact", "UserPromptSubmit"}
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())
    hooks["hooks"]["NotAnEvent"] = hooks["hooks"]["PostCompact"]  # the check can fail
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    assert "NotAnEvent: unknown hook event" in json.dumps(
        _validate(claude_bin, claude_home, plugin)
    )


def test_a_dropped_decision_is_caught_and_comes_back_once(
    claude_bin: Path, fake_api: Any, world: Path, claude_home: Path
) -> None:
    _auto_session(fake_api, world, DROPS_D1)
    _run_turns(claude_bin, world, claude_home, fake_api)
    bodies = _bodies(fake_api)
    kinds = [k for k, _b in bodies]
    assert "compaction" in kinds, fake_api.summary()
    at = kinds.index("compaction")
    instructions = last_user_text(bodies[at][1])
    block = instructions[instructions.index(HEADER) :]
    assert f"- Active decisions (DECISIONS.md): D3 Use the new parser; {D1}" in block
    assert "D2" not in block and "- Edited, not committed: app.py" in block
    after = [b for k, b in bodies[at + 1 :] if k == "agent"]
    assert len(after) >= 3, fake_api.summary()
    assert _count(after[0], REMINDER) == 0  # the request right after: PostCompact ran, no hook yet
    for body in after[1:]:  # the PostToolUse after it handed the line over, once
        assert _count(body, REMINDER) == 1
        assert _count(body, TITLE) == 1  # the skills' "(D1, D2, ...)" aside, D1 is its title
    record = json.loads(next((world / ".ccstate" / "compaction").glob("*.json")).read_text())
    (entry,) = record["compactions"]
    assert entry["lost"][0] == "D1" and "D3" in entry["kept"]
    assert (entry["reminder"], entry["reminded"]) == ("delivered", "PostToolUse")
    _check_report(fake_api, world, claude_home, record["session"], entry)


def _check_report(fake_api: Any, project: Path, home: Path, sid: str, entry: dict) -> None:
    """`ccstate report` on the session: the summarising call measured from Claude Code's
    cost-state totals (what the fake API billed it), and the fidelity ccstate recorded."""
    (request,) = [r for r in fake_api.all_requests() if r.kind == "compaction"]
    billed = fake_api.usage_for(request.body or {}, request.reply)
    transcript = transcript_path(home, project, sid)
    proc = subprocess.run(
        [sys.executable, "-m", "ccstate", "report", str(transcript), "-C", str(project), "--json"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HOME": str(home)},
    )
    (session,) = json.loads(proc.stdout)["sessions"]
    (compaction,) = session["compactions"]
    summariser = compaction["summariser"]
    assert summariser["source"] == "measured"
    assert (summariser["input"], summariser["output"]) == (
        billed["input_tokens"],
        billed["output_tokens"],
    )
    assert compaction["fidelity"]["asked"] == entry["asked"]
    assert compaction["fidelity"]["lost"] == entry["lost"]
    assert session["compaction_fidelity"]["kept"] == len(entry["kept"])


def test_a_summary_that_keeps_everything_adds_nothing(
    claude_bin: Path, fake_api: Any, world: Path, claude_home: Path
) -> None:
    _auto_session(fake_api, world, keeps_all)
    _run_turns(claude_bin, world, claude_home, fake_api)
    bodies = _bodies(fake_api)
    assert "compaction" in [k for k, _b in bodies]
    assert all(_count(b, REMINDER) == 0 for _k, b in bodies)
    record = json.loads(next((world / ".ccstate" / "compaction").glob("*.json")).read_text())
    (entry,) = record["compactions"]
    assert entry["lost"] == [] and entry["kept"][:2] == ["D3", "D1"]


def test_manual_compact_keeps_the_users_instructions_first(
    claude: Any, fake_api: Any, world: Path
) -> None:
    """`/compact <args>`: the user's text, then the block; after it Claude Code itself echoes the
    block to the model (the command's output), so ccstate adds no reminder: D1 once."""
    app = str(world / "app.py")
    edit = {"file_path": app, "old_string": "hello", "new_string": "hi"}
    fake_api.set_script([tool_use("Edit", edit), text("edited")])
    _, first = claude("edit app.py", plugin_dir=REPO)
    assert first is not None
    sid = first["session_id"]
    fake_api.compaction = DROPS_D1
    proc, _ = claude("/compact keep the API notes", resume=sid, plugin_dir=REPO)
    assert proc.returncode == 0
    (compaction,) = [b for k, b in _bodies(fake_api) if k == "compaction"]
    instructions = last_user_text(compaction)
    assert f"Additional Instructions:\nkeep the API notes\n\n{HEADER}" in instructions
    fake_api.set_script([tool_use("Read", {"file_path": app}), text("done")])
    claude("go on", resume=sid, plugin_dir=REPO)
    later = [b for k, b in _bodies(fake_api) if k == "agent"][-2:]
    for body in later:
        assert _count(body, REMINDER) == 0 and _count(body, TITLE) == 1
    record = json.loads(next((world / ".ccstate" / "compaction").glob("*.json")).read_text())
    (entry,) = record["compactions"]
    assert entry["lost"][0] == "D1" and entry["reminder"] == "echoed"
