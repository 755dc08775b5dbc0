from __future__ import annotations

import json
from pathlib import Path

from ccstate import transcript


def test_streams_objects_and_skips_partial_and_odd_lines(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    rows = [{"type": "user", "message": {"content": "hi"}}, {"type": "brand-new"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n[1,2]\n" + '{"type": "assist')
    stats = transcript.ReadStats()
    got = list(transcript.iter_records(path, stats))
    assert got == rows
    assert (stats.records, stats.skipped, stats.skipped_lines) == (2, 2, [4, 5])


def test_message_content_normalises_strings_and_lists() -> None:
    assert transcript.message_content({"message": {"content": "x"}}) == [
        {"type": "text", "text": "x"}
    ]
    blocks = [{"type": "tool_use", "id": "t"}, "junk"]
    assert transcript.message_content({"message": {"content": blocks}}) == [blocks[0]]
    assert transcript.message_content({"type": "system"}) == []


def test_a_deeply_nested_line_is_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    deep = "[" * 5_000 + "]" * 5_000  # past orjson's limit and the interpreter's
    path.write_text(f'{{"type": "user", "message": {{"content": "ok"}}}}\n{deep}\n')
    for read in (transcript.iter_records, transcript.iter_light_records):
        stats = transcript.ReadStats()
        assert [r["type"] for r in read(path, stats)] == ["user"]
        assert (stats.records, stats.skipped, stats.skipped_lines) == (1, 1, [2])
