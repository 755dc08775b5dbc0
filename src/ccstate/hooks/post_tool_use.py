"""PostToolUse: Read goes to the read ledger (#3); edits of instruction files to the lint (#6)."""

from __future__ import annotations

from ccstate.hookio import HookResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ccstate.hookio import HookInput
    from ccstate.hooks import HookEnv

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    detail = describe(inp)
    if inp.tool_name == "Read":
        return _on_read(inp, env, detail)
    if inp.tool_name in EDIT_TOOLS:
        return _on_edit(inp, env, detail)
    return HookResult.noop(**detail)


def _on_read(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> HookResult:
    return HookResult.noop(**detail)


def _on_edit(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> HookResult:
    return HookResult.noop(**detail)


def describe(inp: HookInput) -> dict[str, Any]:
    """The fields the handlers rely on, as seen in this payload (for the heartbeat)."""
    detail: dict[str, Any] = {"tool_name": inp.tool_name, "tool_use_id": inp.tool_use_id}
    if inp.agent_id:
        detail["agent_id"] = inp.agent_id
    response = inp.tool_response
    if inp.tool_name == "Read" and isinstance(response, dict):
        raw_file = response.get("file")
        file: dict[str, Any] = raw_file if isinstance(raw_file, dict) else {}
        detail.update(
            file_path=inp.tool_input.get("file_path"),
            response_type=response.get("type"),
            start_line=file.get("startLine"),
            num_lines=file.get("numLines"),
            total_lines=file.get("totalLines"),
            content_chars=len(file["content"]) if isinstance(file.get("content"), str) else None,
        )
    return detail
