"""The e2e harness itself, checked against the real CLI (no ccstate plugin involved)."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_runner import command_hook, write_plugin
from fake_api import (
    FakeAnthropic,
    find_text,
    first_user_text,
    is_main_thread,
    is_subagent,
    prompt_contains,
    system_texts,
    text,
    tool_results,
    tool_use,
)

pytestmark = pytest.mark.e2e

MARKER = "E2E-MARKER-123"
SESSION_START_OUTPUT = (
    '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"' + MARKER + '"}}'
)


def test_read_result_reaches_next_request(claude, fake_api: FakeAnthropic, project: Path) -> None:
    fake_api.set_script([tool_use("Read", {"file_path": str(project / "app.py")}), text("read it")])

    proc, result = claude("Read app.py")

    assert proc.returncode == 0
    assert result is not None
    assert result["result"] == "read it"
    first, second = fake_api.agent_requests()
    assert fake_api.remaining_steps() == 0
    (output,) = tool_results(second).values()
    assert output.startswith('1\tdef greet(name):\n2\t    return f"hello {name}"')
    assert tool_results(first) == {}


def test_result_has_session_id(claude, fake_api: FakeAnthropic) -> None:
    fake_api.set_script([text("hi")])

    _, result = claude("Say hi")

    assert result is not None
    assert result["session_id"]
    assert result["num_turns"] == 1
    (request,) = fake_api.agent_requests()
    assert "Say hi" in first_user_text(request)


def test_plugin_session_start_context_reaches_model(
    claude, fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    hooks = {"SessionStart": [command_hook(f"echo '{SESSION_START_OUTPUT}'", matcher="startup")]}
    plugin = write_plugin(tmp_path / "plugin", "e2e-probe", hooks)
    fake_api.set_script([text("ok")])

    proc, _ = claude("hello", plugin_dir=plugin)

    assert proc.returncode == 0
    (request,) = fake_api.agent_requests()
    assert any(MARKER in t for t in system_texts(request)), find_text(request, MARKER)


def test_subagent_requests_are_scripted_separately(
    claude, fake_api: FakeAnthropic, project: Path
) -> None:
    main, sub = prompt_contains("MAIN-TASK"), prompt_contains("SUB-TASK")
    agent_input = {
        "description": "Read the readme",
        "prompt": "SUB-TASK: read README.md and report",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    fake_api.set_script(
        [
            tool_use("Agent", agent_input, when=main),
            tool_use("Read", {"file_path": str(project / "README.md")}, when=sub),
            text("SUB DONE", when=sub),
            text("MAIN DONE", when=main),
        ]
    )

    _, result = claude("MAIN-TASK: delegate reading the readme")

    assert result is not None
    assert result["result"] == "MAIN DONE"
    assert fake_api.remaining_steps() == 0
    requests = fake_api.agent_requests()
    sub_requests = [r for r in requests if sub(r)]
    assert len(sub_requests) == 2
    assert "1\t# Demo project" in "".join(tool_results(sub_requests[1]).values())
    assert [is_subagent(r) for r in requests] == [False, True, True, False]
    assert main(requests[-1])
    assert "SUB DONE" in "".join(tool_results(requests[-1]).values())


def test_builtin_thread_matchers_route_steps(claude, fake_api: FakeAnthropic) -> None:
    agent_input = {
        "description": "Say hi",
        "prompt": "Say hi",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    fake_api.set_script(
        [
            tool_use("Agent", agent_input, when=is_main_thread),
            text("MAIN DONE", when=is_main_thread),
            text("SUB DONE", when=is_subagent),
        ]
    )

    _, result = claude("delegate")

    assert result is not None
    assert result["result"] == "MAIN DONE"
    assert [r.step for r in fake_api.all_requests() if r.kind == "agent"] == [0, 2, 1]


def test_manual_compaction_is_answered_without_consuming_steps(
    claude, fake_api: FakeAnthropic
) -> None:
    fake_api.set_script([text("first answer"), text("unused")])
    _, first = claude("remember the number 42")
    assert first is not None

    proc, _ = claude("/compact keep the number", resume=first["session_id"])

    assert proc.returncode == 0
    (compaction,) = fake_api.compaction_requests()
    assert find_text(compaction, "keep the number")
    assert fake_api.remaining_steps() == 1
