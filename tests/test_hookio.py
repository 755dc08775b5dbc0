from __future__ import annotations

import json

import pytest

from ccstate import hookio
from ccstate.hookio import HookResult, PayloadError


def test_parse_keeps_known_fields_and_passes_unknown_through() -> None:
    text = json.dumps(
        {
            "session_id": "s",
            "cwd": "/p",
            "source": "brand-new-source",
            "agent_id": "a235d80d2fdc9c84a",
            "tool_input": {"file_path": "/p/x"},
            "future_field": 1,
        }
    )
    inp = hookio.parse("SessionStart", text)
    assert inp.source == "brand-new-source"
    assert inp.agent_id == "a235d80d2fdc9c84a"
    assert inp.tool_input == {"file_path": "/p/x"}
    assert inp.raw["future_field"] == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty stdin"),
        ("garbage", "stdin is not JSON"),
        ("[1, 2]", "stdin is a JSON list, not an object"),
        ('{"cwd": "/p"}', "payload lacks session_id or cwd"),
    ],
)
def test_parse_rejects_unusable_payloads(text: str, message: str) -> None:
    with pytest.raises(PayloadError, match=message):
        hookio.parse("PostToolUse", text)


def test_wrong_typed_optional_fields_become_none() -> None:
    inp = hookio.parse("PostToolUse", '{"session_id":"s","cwd":"/p","tool_name":5,"tool_input":[]}')
    assert inp.tool_name is None
    assert inp.tool_input == {}


def test_noop_renders_nothing_for_every_event() -> None:
    for event in hookio.EVENTS:
        assert hookio.render(event, HookResult.noop(x=1)) is None


def test_session_start_context_shape() -> None:
    out = hookio.render("SessionStart", HookResult(additional_context="hi", system_message="m"))
    assert json.loads(out or "") == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "hi"},
        "systemMessage": "m",
    }


def test_post_tool_use_updated_output_shape() -> None:
    file = {"filePath": "/p/x", "content": "X", "numLines": 1, "startLine": 1, "totalLines": 1}
    result = HookResult(updated_tool_output={"type": "text", "file": file})
    out = hookio.render("PostToolUse", result)
    assert json.loads(out or "") == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": {"type": "text", "file": file},
        }
    }


def test_a_read_replacement_has_reads_shape() -> None:
    response = {
        "type": "text",
        "file": {"filePath": "/p/x.py", "content": "a\nb", "totalLines": 41},
    }
    result = hookio.read_result(
        response, "[ccstate: not file content] x", start_line=0, num_lines=1, detail={"k": 1}
    )
    assert result == HookResult(
        updated_tool_output={
            "type": "text",
            "file": {
                "filePath": "/p/x.py",
                "content": "[ccstate: not file content] x",
                "numLines": 1,
                "startLine": 0,
                "totalLines": 41,
            },
        },
        detail={"k": 1},
    )
    diff = hookio.read_result(response, "n", start_line=0, num_lines=1, additional_context="d")
    assert json.loads(hookio.render("PostToolUse", diff) or "")["hookSpecificOutput"] == {
        "hookEventName": "PostToolUse",
        "updatedToolOutput": {
            "type": "text",
            "file": {
                "filePath": "/p/x.py",
                "content": "n",
                "numLines": 1,
                "startLine": 0,
                "totalLines": 41,
            },
        },
        "additionalContext": "d",
    }


def test_pre_compact_prints_plain_instructions() -> None:
    assert hookio.render("PreCompact", HookResult(compact_instructions="keep D3")) == "keep D3"


def test_session_end_never_prints() -> None:
    assert hookio.render("SessionEnd", HookResult(additional_context="x")) is None


def test_context_is_capped_below_claude_codes_inline_limit() -> None:
    out = hookio.render("SessionStart", HookResult(additional_context="x" * 20_000))
    context = json.loads(out or "")["hookSpecificOutput"]["additionalContext"]
    assert len(context) == hookio.MAX_CONTEXT_CHARS < 10_000


def test_unknown_event_renders_nothing() -> None:
    assert hookio.render("Notification", HookResult(additional_context="x")) is None


def test_a_grep_digest_keeps_the_cap_and_the_timeout_claude_code_tells_the_model() -> None:
    """2.1.x writes "[Showing results with pagination = limit: 250]" after a capped Grep and
    a warning before one that timed out, from these fields (#24.2)."""
    response = {
        "mode": "content",
        "numFiles": 0,
        "filenames": [],
        "content": "a.py:1:x\n" * 250,
        "numLines": 250,
        "totalLines": 500,
        "appliedLimit": 250,
        "timedOut": True,
    }
    shape = hookio.output_result("Grep", response, "a.py:1:x\n[ccstate: ...]").updated_tool_output
    assert shape is not None
    assert (shape["appliedLimit"], shape["totalLines"], shape["timedOut"]) == (250, 500, True)
    assert "appliedOffset" not in shape  # not there: not made up
    plain = dict(response, appliedLimit=None, timedOut=False)
    shape = hookio.output_result("Grep", plain, "x").updated_tool_output
    assert shape is not None and "appliedLimit" not in shape and "timedOut" not in shape
