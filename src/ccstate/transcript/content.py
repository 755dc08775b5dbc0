"""What a transcript record says (pure): its message's content blocks, a tool result's text, the
prompt a user record holds (or none: Claude Code's own rows, reminders, housekeeping slash
commands), and the markers of a call the user refused or a hook blocked (`REJECTED`)."""

from __future__ import annotations

import re
from typing import Any

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_COMMAND = re.compile(
    r"<command-name>/?([^<]*)</command-name>.*?(?:<command-args>(.*?)</command-args>|$)", re.S
)
_NOT_A_GOAL = ("compact", "clear", "resume", "handoff", "model", "cost", "help", "exit", "context")
REJECTED = (
    "The user doesn't want to proceed",
    "[Request interrupted",
    "User rejected",
    "was blocked. For security",
    "operation blocked by hook",
)
# User-role texts Claude Code writes itself (background task results, `!` shell echoes).
_NOT_A_PROMPT = (
    "<local-command-",
    "<task-notification",
    "<bash-",
    "<user-memory-input",
    "Caveat:",
    "[Request interrupted",
)


def message_content(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of a user/assistant record (a plain string becomes one text block)."""
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def user_prompt(record: dict[str, Any], blocks: list[dict[str, Any]]) -> str:
    """The prompt in a user record's text `blocks`; '' for meta records, compaction summaries,
    what Claude Code shows only in the transcript, and (2.1.332+) rows it did not get from the
    user's keyboard."""
    source = record.get("rowSource")  # Claude Code 2.1.332+: local | harness | hook | recorded
    if isinstance(source, str) and source != "local":
        return ""  # written by Claude Code, a hook or a replay: not what the user asked
    if record.get("isMeta") or record.get("isCompactSummary"):
        return ""
    if record.get("isVisibleInTranscriptOnly"):
        return ""
    return prompt_text("\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text"))


def prompt_text(text: str) -> str:
    """A user's prompt without reminders; slash commands as `/name args`; '' when not a prompt."""
    text = _REMINDER.sub("", text).strip()
    if not text or text.startswith(_NOT_A_PROMPT):
        return ""
    if text.startswith(("<command-name>", "<command-message>")):
        match = _COMMAND.search(text)
        if match is None:
            return ""
        name, args = match.group(1).strip(), (match.group(2) or "").strip()
        if name.split(":")[-1] in _NOT_A_GOAL:
            return ""
        return f"/{name} {args}".strip()
    return text


def block_text(content: Any) -> str:
    """Text of a tool_result's `content`: a string, or its text blocks joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""
