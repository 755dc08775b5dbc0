"""The hook wire format: stdin JSON -> HookInput, HookResult -> stdout JSON.

`render` is the only place output shapes are defined; each shape was checked
against Claude Code 2.1.328 (../shared/reference/claude-code.md §2.6) and is
exercised by the end-to-end suite.

Hot path: this module imports `fastjson` alone (json without its `re`). The records are
plain `__slots__` classes, not dataclasses: `import dataclasses` (with inspect) costs about as
much as the whole rest of a PostToolUse hook (docs/BENCHMARKS.md).
"""

from __future__ import annotations

from ccstate import fastjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal

    Event = Literal[
        "SessionStart",
        "SessionEnd",
        "PreCompact",
        "PostCompact",
        "PostToolUse",
        "UserPromptSubmit",
        "PreModelSwitch",
    ]

# PreToolUse is registered no more (#14): it did nothing but write a heartbeat on every Read.
EVENTS = (
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "PostToolUse",
    "UserPromptSubmit",
    "PreModelSwitch",
    "Stop",
)
# What PreModelSwitch may answer (2.1.328 and 2.1.332): "ask" shows the reason in Claude
# Code's confirm dialog; ccstate never sends "deny", nor "allow" (it skips that dialog).
MODEL_SWITCH_DECISIONS = ("ask",)
# Claude Code inlines at most 10,000 characters of hook context; more is persisted to a
# file and the model sees a 2 KB preview. Stay well under it.
MAX_CONTEXT_CHARS = 9_500
_EMPTY: dict[str, Any] = {}


class PayloadError(ValueError):
    """stdin was not a JSON object with the fields every event carries."""


class HookInput:
    """One hook payload; only the fields handlers use are typed, the rest is in `raw`."""

    __slots__ = (
        "agent_id",
        "agent_type",
        "custom_instructions",
        "cwd",
        "event",
        "raw",
        "reason",
        "session_id",
        "source",
        "tool_input",
        "tool_name",
        "tool_response",
        "tool_use_id",
        "transcript_path",
        "trigger",
    )

    def __init__(
        self,
        event: str,
        session_id: str,
        cwd: str,
        transcript_path: str = "",
        agent_id: str | None = None,
        agent_type: str | None = None,
        source: str | None = None,  # SessionStart: startup|resume|clear|compact|fork|...
        reason: str | None = None,  # SessionEnd
        trigger: str | None = None,  # PreCompact: manual|auto
        custom_instructions: str | None = None,
        tool_name: str | None = None,
        tool_use_id: str | None = None,
        tool_input: Mapping[str, Any] | None = None,
        tool_response: Any = None,
        raw: Mapping[str, Any] | None = None,
    ) -> None:
        self.event = event
        self.session_id = session_id
        self.cwd = cwd
        self.transcript_path = transcript_path
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.source = source
        self.reason = reason
        self.trigger = trigger
        self.custom_instructions = custom_instructions
        self.tool_name = tool_name
        self.tool_use_id = tool_use_id
        self.tool_input: Mapping[str, Any] = tool_input if tool_input is not None else _EMPTY
        self.tool_response = tool_response
        self.raw: Mapping[str, Any] = raw if raw is not None else _EMPTY

    def __repr__(self) -> str:
        return f"HookInput({self.event!r}, session_id={self.session_id!r}, tool={self.tool_name!r})"


class HookResult:
    """What a handler wants Claude Code to do. Empty means: print nothing."""

    __slots__ = (
        "additional_context",
        "compact_instructions",
        "detail",
        "permission_decision",
        "permission_reason",
        "system_message",
        "updated_mcp_tool_output",
        "updated_tool_output",
    )

    def __init__(
        self,
        additional_context: str | None = None,
        updated_tool_output: Mapping[str, Any] | None = None,
        system_message: str | None = None,  # shown to the user, never to the model
        compact_instructions: str | None = None,  # PreCompact: plain stdout
        detail: Mapping[str, Any] | None = None,  # for the heartbeat only
        updated_mcp_tool_output: list[dict[str, Any]] | None = None,  # an MCP tool's result
        permission_decision: str | None = None,  # PreModelSwitch: "ask" (confirm first)
        permission_reason: str | None = None,  # what the confirm dialog shows
    ) -> None:
        self.additional_context = additional_context
        self.updated_tool_output = updated_tool_output
        self.updated_mcp_tool_output = updated_mcp_tool_output
        self.system_message = system_message
        self.compact_instructions = compact_instructions
        self.permission_decision = permission_decision
        self.permission_reason = permission_reason
        self.detail: Mapping[str, Any] = detail if detail is not None else _EMPTY

    @classmethod
    def noop(cls, **detail: Any) -> HookResult:
        return cls(detail=detail)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HookResult):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__ if getattr(self, k))
        return f"HookResult({fields})"


def parse(event: str, text: str) -> HookInput:
    """Tolerant parse: unknown fields pass through in `raw`; PayloadError when unusable."""
    if not text.strip():
        raise PayloadError("empty stdin")
    try:
        data = fastjson.loads(text)
    except ValueError as exc:
        raise PayloadError(f"stdin is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise PayloadError(f"stdin is a JSON {type(data).__name__}, not an object")
    session_id, cwd = data.get("session_id"), data.get("cwd")
    if not isinstance(session_id, str) or not isinstance(cwd, str):
        raise PayloadError("payload lacks session_id or cwd")
    tool_input = data.get("tool_input")
    return HookInput(
        event=event,
        session_id=session_id,
        cwd=cwd,
        transcript_path=_str(data.get("transcript_path")) or "",
        agent_id=_str(data.get("agent_id")),
        agent_type=_str(data.get("agent_type")),
        source=_str(data.get("source")),
        reason=_str(data.get("reason")),
        trigger=_str(data.get("trigger")),
        custom_instructions=_str(data.get("custom_instructions")),
        tool_name=_str(data.get("tool_name")),
        tool_use_id=_str(data.get("tool_use_id")),
        tool_input=tool_input if isinstance(tool_input, dict) else {},
        tool_response=data.get("tool_response"),
        raw=data,
    )


def render(event: str, result: HookResult) -> str | None:
    """The exact stdout for `result`, or None for no output at all."""
    renderer = _RENDERERS.get(event)
    return renderer(event, result) if renderer else None


def _render_context_event(event: str, result: HookResult) -> str | None:
    out: dict[str, Any] = {}
    if result.additional_context:
        out["hookSpecificOutput"] = {
            "hookEventName": event,
            "additionalContext": result.additional_context[:MAX_CONTEXT_CHARS],
        }
    if result.system_message:
        out["systemMessage"] = result.system_message
    return _dump(out)


def _render_post_tool_use(event: str, result: HookResult) -> str | None:
    specific: dict[str, Any] = {}
    if result.updated_tool_output is not None:
        specific["updatedToolOutput"] = dict(result.updated_tool_output)
    if result.updated_mcp_tool_output is not None:
        specific["updatedMCPToolOutput"] = list(result.updated_mcp_tool_output)
    if result.additional_context:
        specific["additionalContext"] = result.additional_context[:MAX_CONTEXT_CHARS]
    out: dict[str, Any] = {}
    if specific:
        out["hookSpecificOutput"] = {"hookEventName": event, **specific}
    if result.system_message:
        out["systemMessage"] = result.system_message
    return _dump(out)


def _render_pre_compact(event: str, result: HookResult) -> str | None:
    # PreCompact stdout is plain text that becomes extra summariser instructions.
    return result.compact_instructions[:MAX_CONTEXT_CHARS] if result.compact_instructions else None


def _render_nothing(event: str, result: HookResult) -> str | None:
    return None  # SessionEnd and (async) Stop output reaches nobody


def _render_post_compact(event: str, result: HookResult) -> str | None:
    # Claude Code 2.1.328/2.1.332 reject PostCompact's additionalContext, and echo whatever it
    # prints into the model's context after a manual /compact (docs/COMPACTION.md, the
    # probe's answers): print nothing. The reminder goes through a later hook
    # (compaction/pending.py).
    return None


def _render_pre_model_switch(event: str, result: HookResult) -> str | None:
    """`systemMessage` for the user (shown under the switch's result line); with "ask",
    `permissionDecision` and its reason (shown in Claude Code's confirm dialog)."""
    out: dict[str, Any] = {}
    if result.permission_decision in MODEL_SWITCH_DECISIONS:
        specific = {"hookEventName": event, "permissionDecision": result.permission_decision}
        if result.permission_reason:
            specific["permissionDecisionReason"] = result.permission_reason
        out["hookSpecificOutput"] = specific
    if result.system_message:
        out["systemMessage"] = result.system_message
    return _dump(out)


# --------------------------------------------------------------------------- tool outputs
# What PostToolUse may put in place of a tool's output, per tool, as Claude Code 2.1.328
# accepts it (docs/OUTPUTS.md; tests/e2e/test_outputs.py). A wrong shape is rejected with
# "does not match <Tool>'s output shape" in the debug log and the original kept.


def output_text(tool_name: str, response: Any) -> tuple[str, str] | None:
    """(the text the model would be shown, the file Claude Code persisted all of it to or "")
    for a result ccstate knows how to replace; None for any other shape (an image, a
    background command, Grep's file lists, an MCP result with more than text)."""
    if not isinstance(response, dict):
        if tool_name.startswith("mcp__") and isinstance(response, str):
            return response, ""  # a structured MCP result reaches the hook as its JSON text
        if tool_name.startswith("mcp__") and isinstance(response, list):
            return _mcp_text(response)
        return None
    if tool_name == "Bash":
        stdout, stderr = response.get("stdout"), response.get("stderr")
        if not isinstance(stdout, str) or not isinstance(stderr, str):
            return None
        if response.get("isImage") or response.get("backgroundTaskId"):
            return None
        persisted = response.get("persistedOutputPath")
        text = f"{stdout}\n{stderr}" if stderr else stdout
        return text, persisted if isinstance(persisted, str) else ""
    if tool_name == "Grep":
        content = response.get("content")
        if response.get("mode") != "content" or not isinstance(content, str):
            return None
        return content, ""
    if tool_name == "Glob":
        names = response.get("filenames")
        ok = isinstance(names, list) and all(isinstance(n, str) for n in names)
        return ("\n".join(names), "") if ok and names else None
    if tool_name == "WebFetch":
        result = response.get("result")
        if not isinstance(result, str) or not all(k in response for k in _WEBFETCH_KEYS):
            return None
        return result, ""
    return None


_WEBFETCH_KEYS = ("bytes", "code", "codeText", "durationMs", "url")


def _mcp_text(blocks: list[Any]) -> tuple[str, str] | None:
    if len(blocks) != 1 or not isinstance(blocks[0], dict) or blocks[0].get("type") != "text":
        return None
    text = blocks[0].get("text")
    return (text, "") if isinstance(text, str) else None


def read_result(
    response: Any,
    content: str,
    *,
    start_line: int,
    num_lines: int,
    additional_context: str | None = None,
    detail: Mapping[str, Any] | None = None,
) -> HookResult:
    """A HookResult that shows the model `content` in place of a Read's output, in Read's own
    shape (reference §0.3): the model sees `content` with line numbers counted from
    `start_line` (0 for a notice: no file has a line 0)."""
    file = (response.get("file") if isinstance(response, dict) else None) or {}
    shape = {
        "type": "text",
        "file": {
            "filePath": file.get("filePath"),
            "content": content,
            "numLines": num_lines,
            "startLine": start_line,
            "totalLines": file.get("totalLines"),
        },
    }
    return HookResult(
        updated_tool_output=shape, additional_context=additional_context, detail=detail
    )


def output_result(
    tool_name: str, response: Any, text: str, detail: Mapping[str, Any] | None = None
) -> HookResult:
    """A HookResult that shows the model `text` in place of this tool's output, in the
    tool's own output shape (Bash: stdout; leaving out persistedOutputPath keeps Claude Code
    from showing a preview of its own file instead)."""
    if tool_name.startswith("mcp__"):
        return HookResult(updated_mcp_tool_output=[{"type": "text", "text": text}], detail=detail)
    shape: dict[str, Any]
    if tool_name == "Bash":
        shape = {"stdout": text, "stderr": "", "interrupted": bool(response.get("interrupted"))}
    elif tool_name == "Grep":
        shape = {
            "mode": "content",
            "numFiles": _int(response.get("numFiles")),
            "filenames": list(response.get("filenames") or []),
            "content": text,
            "numLines": text.count("\n") + 1,
        }
        # 2.1.x: the model is told "[Showing results with pagination = limit: 250]" (the
        # default head_limit) and that a search timed out from these; a digest keeps them
        for key in ("appliedLimit", "appliedOffset", "totalLines"):
            if _int(response.get(key)):
                shape[key] = _int(response.get(key))
        if response.get("timedOut") is True:
            shape["timedOut"] = True
    elif tool_name == "Glob":
        names = text.split("\n")
        shape = {
            "filenames": names,
            "durationMs": _int(response.get("durationMs")),
            "numFiles": _int(response.get("numFiles")) or len(names),
            "truncated": bool(response.get("truncated")),
        }
    elif tool_name == "WebFetch":
        shape = {k: response.get(k) for k in _WEBFETCH_KEYS}
        shape["result"] = text
    else:
        raise ValueError(f"no output shape for {tool_name}")
    return HookResult(updated_tool_output=shape, detail=detail)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _dump(out: Mapping[str, Any]) -> str | None:
    if not out:
        return None
    return fastjson.dumps(out, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


_RENDERERS = {
    "SessionStart": _render_context_event,
    "PostToolUse": _render_post_tool_use,
    "PreCompact": _render_pre_compact,
    "PostCompact": _render_post_compact,
    "SessionEnd": _render_nothing,
    "UserPromptSubmit": _render_context_event,
    "PreModelSwitch": _render_pre_model_switch,
    "Stop": _render_nothing,  # async (hooks/stop.py)
}
