"""What a transcript record says: its message's content blocks (pure)."""

from __future__ import annotations

from typing import Any


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
