"""PreCompact -> SessionStart(compact) -> PostCompact -> the next hook, run as Claude Code runs
them (#26): the block, the check, the reminder handed over once, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import hook_env, make_payload, run_hook

SID = "5e55104e-0000-4000-8000-0000000c0mpa"
DECISIONS = """# Decisions

<!-- ccstate: next-id=4 -->

## D1: Use tabs for indentation

- Status: active

**Decision:** tabs.

## D2: An old choice

- Status: superseded by D3

**Decision:** old.

## D3: Use spaces in YAML files

- Status: active

**Decision:** spaces.
"""


def _records(project: Path) -> list[dict[str, Any]]:
    app = str(project / "app.py")
    base = {"sessionId": SID, "cwd": str(project), "gitBranch": "main"}
    return [
        {**base, "type": "user", "message": {"role": "user", "content": "fix the app"}},
        {
            **base,
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": app}},
                    {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "make"}},
                ],
            },
        },
        {**base, "type": "user", "message": {"content": [_result("t1", "ok", False)]}},
        {**base, "type": "user", "message": {"content": [_result("t2", "Error 2", True)]}},
    ]


def _result(tool_id: str, text: str, error: bool) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": error}


@pytest.fixture
def world(git_project: Path, tmp_path: Path) -> dict[str, Any]:
    (git_project / "DECISIONS.md").write_text(DECISIONS)
    (git_project / ".ccstate.yaml").write_text("decisions:\n  capsule_max: 1\n")
    (git_project / "app.py").write_text("print('changed')\n")  # edited, not committed
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in _records(git_project)))
    env = hook_env(HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "xdg"))
    return {"project": git_project, "transcript": str(transcript), "env": env, "tmp": tmp_path}


def _run(world: dict[str, Any], event: str, **fields: Any) -> tuple[int, Any, str, str]:
    payload = make_payload(event, world["project"], **fields)
    payload.update(session_id=SID, transcript_path=world["transcript"])
    return run_hook(event, payload, cwd=world["project"], env=world["env"])


def _compact(world: dict[str, Any], summary: Any, *, pre: bool = True) -> str:
    out = ""
    if pre:
        code, _, out, err = _run(world, "PreCompact", trigger="auto", custom_instructions=None)
        assert (code, err) == (0, "")
    assert _run(world, "SessionStart", source="compact")[0] == 0
    fields = {"trigger": "auto"}
    if summary is not None:
        fields["compact_summary"] = summary
    assert _run(world, "PostCompact", **fields) == (0, None, "", "")  # PostCompact prints nothing
    return out


def _bash(world: dict[str, Any], **extra: Any) -> tuple[int, Any, str, str]:
    response = {"stdout": "ok\n", "stderr": "", "interrupted": False}
    return _run(
        world,
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "ls"},
        tool_response=response,
        **extra,
    )


def _record(world: dict[str, Any]) -> dict[str, Any]:
    path = world["project"] / ".ccstate" / "compaction" / f"{SID}.json"
    return json.loads(path.read_text())


def _log(world: dict[str, Any]) -> str:
    path = world["project"] / ".ccstate" / "logs" / "hooks.log"
    return path.read_text() if path.exists() else ""


def test_the_block_lists_active_decisions_and_the_sessions_state(world: dict[str, Any]) -> None:
    block = _compact(world, "<summary>D1 D3 app.py make</summary>")
    assert block.startswith("[ccstate] Keep across this compaction")
    assert "D3 Use spaces in YAML files; D1 Use tabs for indentation" in block
    assert "D2" not in block  # superseded
    assert "- Edited, not committed: app.py" in block and "- Failing checks: `make`" in block
    assert f".ccstate/handoff/branches/main/{SID}.md" in block


def test_a_lost_decision_comes_back_once_at_the_next_tool_call(world: dict[str, Any]) -> None:
    _compact(world, "<analysis>D1</analysis><summary>We use D3. app.py; make fails.</summary>")
    entry = _record(world)["compactions"][-1]
    assert entry["lost"] == ["D1", f".ccstate/handoff/branches/main/{SID}.md"]
    assert entry["in_capsule"] == [f".ccstate/handoff/branches/main/{SID}.md"]
    assert entry["reminder"] == "pending"
    code, parsed, _, err = _bash(world)
    assert (code, err) == (0, "")
    context = parsed["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("[ccstate] The compaction summary left these out")
    assert context.count("D1 Use tabs for indentation") == 1 and "D3" not in context
    assert _bash(world) == (0, None, "", "")  # once
    assert _run(world, "UserPromptSubmit", prompt="go") == (0, None, "", "")
    entry = _record(world)["compactions"][-1]
    assert (entry["reminder"], entry["reminded"]) == ("delivered", "PostToolUse")
    handoff = (world["project"] / ".ccstate/handoff/branches/main" / f"{SID}.md").read_text()
    assert "## Compactions" in handoff and "auto compaction 1: the summary kept" in handoff


def test_or_at_the_next_prompt_and_never_to_a_subagent(world: dict[str, Any]) -> None:
    _compact(world, "<summary>We use D3. app.py; make fails.</summary>")
    assert _bash(world, agent_id="a1b2c3", agent_type="Explore")[1] is None
    code, parsed, _, _ = _run(world, "UserPromptSubmit", prompt="go on")
    assert code == 0 and "D1 Use tabs" in parsed["hookSpecificOutput"]["additionalContext"]
    assert parsed["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"


def test_a_summary_that_keeps_everything_adds_nothing(world: dict[str, Any]) -> None:
    _compact(world, f"<summary>D1, D3; app.py; `make`; .ccstate/handoff/x/{SID}.md</summary>")
    entry = _record(world)["compactions"][-1]
    assert entry["lost"] == [] and entry["reminder"] == ""
    assert _bash(world) == (0, None, "", "")
    assert _run(world, "UserPromptSubmit", prompt="go") == (0, None, "", "")


@pytest.mark.parametrize(
    ("summary", "logged"),
    [
        ("", "compact_summary is empty"),
        (None, "the payload has no compact_summary"),
        ("<summary>" + "x " * 1_100_000 + "D1</summary>", "characters; checked its first"),
    ],
    ids=["empty", "missing", "huge"],
)
def test_bad_summaries_are_recorded_and_logged(
    world: dict[str, Any], summary: Any, logged: str
) -> None:
    _compact(world, summary)
    entry = _record(world)["compactions"][-1]
    assert entry["asked"] == 5 and "D1" in entry["lost"]
    assert logged in _log(world)
    assert "D1 Use tabs" in _bash(world)[1]["hookSpecificOutput"]["additionalContext"]


def test_postcompact_without_precompact_is_recorded_unchecked(world: dict[str, Any]) -> None:
    _compact(world, "<summary>anything</summary>", pre=False)
    entry = _record(world)["compactions"][-1]
    assert entry["note"] == "no PreCompact record before it: nothing to check"
    assert "asked" not in entry
    assert f"compaction 1 of {SID}: no PreCompact record before it" in _log(world)
    assert _bash(world) == (0, None, "", "")


@pytest.mark.parametrize("bad", [b"\xff\xfe not utf-8", b"<<<<<<< HEAD\n## D1: x\n=======\n"])
def test_a_decisions_file_that_does_not_parse_costs_nothing_else(
    world: dict[str, Any], bad: bytes
) -> None:
    (world["project"] / "DECISIONS.md").write_bytes(bad)
    block = _compact(world, "<summary>nothing kept</summary>")
    assert "- Edited, not committed: app.py" in block  # the rest of the block is there
    assert "DECISIONS.md" in _log(world) and "compaction block" in _log(world)
    assert (world["project"] / ".ccstate/handoff/branches/main" / f"{SID}.md").exists()
    assert _record(world)["compactions"][-1]["asked"] >= 3


def test_user_prompt_submit_with_nothing_waiting_loads_nothing(world: dict[str, Any]) -> None:
    argv = [sys.executable, "-X", "importtime", "-m", "ccstate.hooks", "UserPromptSubmit"]
    payload = make_payload("UserPromptSubmit", world["project"], prompt="hi")
    code, _, out, err = run_hook(
        "UserPromptSubmit", payload, cwd=world["project"], env=world["env"], argv=argv
    )
    assert (code, out) == (0, "")
    baseline = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True
    ).stderr
    modules = _modules(err) - _modules(baseline)
    assert not {"ccstate.hooks.user_prompt_submit", "ccstate.compaction.pending"} & modules
    assert not {"json", "re", "pathlib", "typing"} & modules
    assert not (world["project"] / ".ccstate").exists()


def _modules(importtime: str) -> set[str]:
    return {line.split("|")[-1].strip() for line in importtime.splitlines() if "|" in line}


def test_secrets_never_reach_the_block_the_record_or_the_reminder(world: dict[str, Any]) -> None:
    secret = "ghp_" + "E2Eplanted0000000000000000000000000000"
    records = _records(world["project"])
    records[1]["message"]["content"][1]["input"]["command"] = f"make GH_TOKEN={secret}"
    Path(world["transcript"]).write_text("".join(json.dumps(r) + "\n" for r in records))
    (world["project"] / "DECISIONS.md").write_text(
        DECISIONS.replace("Use tabs for indentation", f"Rotate {secret} monthly")
    )
    block = _compact(world, "<summary>nothing</summary>")
    assert "make GH_TOKEN=[REDACTED" in block and "Rotate [REDACTED" in block
    reminder = _bash(world)[1]["hookSpecificOutput"]["additionalContext"]
    # what #26 writes (cache/decisions.json copies the committed DECISIONS.md's titles as is)
    state_dir = world["project"] / ".ccstate"
    written = [*state_dir.glob("compaction/*"), *state_dir.glob("handoff/**/*.*")]
    written += list(Path(world["env"]["XDG_STATE_HOME"]).rglob("*"))
    state = "".join(p.read_text() for p in written if p.is_file())
    for text in (block, reminder, state):
        assert secret not in text


def test_a_reminder_nobody_took_is_replaced_by_the_next_compactions(world: dict[str, Any]) -> None:
    _compact(world, "<summary>We use D3. app.py; make fails.</summary>")
    _compact(world, "<summary>D1 D3 app.py make</summary>")  # no tool call in between
    first, second = _record(world)["compactions"]
    assert (first["reminder"], second["reminder"]) == ("replaced", "none")  # the path: capsule
    assert _bash(world) == (0, None, "", "")


def test_a_subagents_compaction_is_not_steered(world: dict[str, Any]) -> None:
    code, _, out, _ = _run(world, "PreCompact", trigger="auto", agent_id="a1b2", agent_type="x")
    assert (code, out) == (0, "")
    assert _run(world, "PostCompact", trigger="auto", compact_summary="", agent_id="a1b2")[0] == 0
    assert not (world["project"] / ".ccstate" / "compaction").exists()
