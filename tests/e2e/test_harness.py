"""The e2e harness itself, checked against the real CLI (no ccstate plugin involved)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from claude_runner import command_hook, read_transcript, transcript_path, write_plugin
from fake_api import (
    FakeAnthropic,
    ToolCall,
    find_text,
    first_user_text,
    is_main_thread,
    is_subagent,
    prompt_contains,
    system_texts,
    text,
    tool_results,
    tool_use,
    tool_uses,
)

pytestmark = pytest.mark.e2e

MARKER = "E2E-MARKER-123"
BASE = "http://127.0.0.1"
SESSION_START_OUTPUT = (
    '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"' + MARKER + '"}}'
)


def _post(url: str, body: dict) -> tuple[int, str]:
    req = urllib.request.Request(url, json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def _sse(raw: str) -> list[tuple[str, dict]]:
    frames = [f for f in raw.split("\n\n") if f.strip()]
    out = []
    for frame in frames:
        event, data = frame.split("\n")
        out.append((event.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


def test_fake_api_wire_format() -> None:
    """The fake alone (no claude): SSE order, JSON replies, count_tokens, 404, step routing."""
    call = ToolCall("Read", {"file_path": "/x"})
    with FakeAnthropic([tool_uses(call, call), "plain"]) as api:
        tools_body = {"stream": True, "tools": [{"name": "Read"}], "messages": []}
        status, raw = _post(f"{api.url}/v1/messages?beta=true", tools_body)
        events = _sse(raw)
        _, side = _post(f"{api.url}/v1/messages", {"messages": [{"role": "user", "content": "t"}]})
        _, plain = _post(f"{api.url}/v1/messages", {"tools": [{"name": "Read"}], "messages": []})
        _, tokens = _post(f"{api.url}/v1/messages/count_tokens", {"messages": []})
        missing, _ = _post(f"{api.url}/v1/nope", {})

    assert status == 200
    assert [e for e, _ in events] == [
        "message_start",
        *["content_block_start", "content_block_delta", "content_block_stop"] * 2,
        "message_delta",
        "message_stop",
    ]
    assert events[1][1]["content_block"] == {
        "type": "tool_use",
        "id": "toolu_e2e_001",
        "name": "Read",
        "input": {},
    }
    assert json.loads(events[2][1]["delta"]["partial_json"]) == {"file_path": "/x"}
    assert events[4][1]["content_block"]["id"] == "toolu_e2e_002"
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"
    assert json.loads(side)["content"] == [{"type": "text", "text": "E2E side reply"}]
    assert json.loads(plain)["content"] == [{"type": "text", "text": "plain"}]
    assert json.loads(plain)["stop_reason"] == "end_turn"
    assert json.loads(tokens)["input_tokens"] >= 1
    assert missing == 404
    assert [r.kind for r in api.all_requests()] == [
        "agent",
        "side",
        "agent",
        "count_tokens",
        "other",
    ]


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
    claude, fake_api: FakeAnthropic, claude_home: Path, project: Path
) -> None:
    fake_api.set_script([text("first answer"), text("unused")])
    _, first = claude("remember the number 42")
    assert first is not None

    proc, _ = claude("/compact keep the number", resume=first["session_id"])

    assert proc.returncode == 0
    (compaction,) = fake_api.compaction_requests()
    assert find_text(compaction, "keep the number")
    assert fake_api.remaining_steps() == 1
    records = read_transcript(transcript_path(claude_home, project, first["session_id"]))
    assert any(r.get("subtype") == "compact_boundary" for r in records)
    summaries = [r for r in records if r.get("isCompactSummary")]
    assert "compacted summary" in summaries[-1]["message"]["content"]
