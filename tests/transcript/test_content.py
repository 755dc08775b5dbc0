"""What a transcript record says (src/ccstate/transcript/content.py)."""

from __future__ import annotations

from ccstate.transcript import content


def test_message_content_normalises_strings_and_lists() -> None:
    assert content.message_content({"message": {"content": "x"}}) == [{"type": "text", "text": "x"}]
    blocks = [{"type": "tool_use", "id": "t"}, "junk"]
    assert content.message_content({"message": {"content": blocks}}) == [blocks[0]]
    assert content.message_content({"type": "system"}) == []
