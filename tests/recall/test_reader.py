"""recall.reader: from a byte offset, bounded, never consuming a partial line."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ccstate.recall import reader
from helpers import prompt_record, text_record, write_jsonl


def lines_of(path: Path, cursor: reader.Cursor, **kw: object) -> list[int]:
    return [line for line, _r in reader.iter_records(path, cursor, **kw)]  # type: ignore[arg-type]


def test_resumes_from_the_offset_with_the_right_line_numbers(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [prompt_record("one"), {"type": "progress"}])
    cursor = reader.Cursor()
    assert lines_of(path, cursor) == [1]  # progress is not a wanted record
    assert (cursor.offset, cursor.line) == (path.stat().st_size, 2)
    with path.open("a") as fh:
        fh.write(json.dumps(text_record("two")) + "\n")
    assert lines_of(path, cursor) == [3]


def test_a_partial_last_line_is_left_for_the_next_run(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [prompt_record("one")])
    whole = json.dumps(text_record("two"))
    with path.open("a") as fh:
        fh.write(whole[:20])
    cursor = reader.Cursor()
    assert lines_of(path, cursor) == [1]
    with path.open("a") as fh:
        fh.write(whole[20:] + "\n")
    assert lines_of(path, cursor) == [2]


def test_an_oversized_line_is_skipped_and_counted(tmp_path: Path) -> None:
    big = prompt_record("x" * 5000)
    path = write_jsonl(tmp_path / "t.jsonl", [big, prompt_record("small")])
    cursor = reader.Cursor()
    assert lines_of(path, cursor, max_line_bytes=1000) == [2]
    assert cursor.oversize == 1 and cursor.offset == path.stat().st_size


def test_the_deadline_stops_at_a_line_boundary(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(tmp_path / "t.jsonl", [prompt_record(f"p{i}") for i in range(600)])
    cursor = reader.Cursor()
    assert lines_of(path, cursor, deadline=time.monotonic() - 1) == []  # spent: nothing read
    assert cursor.stopped and (cursor.offset, cursor.line) == (0, 0)
    clock = iter(range(1000))  # one tick per look: at the read, then every 256 lines
    monkeypatch.setattr(reader.time, "monotonic", lambda: next(clock))
    got = lines_of(path, cursor, deadline=1.5)
    assert cursor.stopped and got == list(range(1, 512))  # stopped before taking line 512
    monkeypatch.undo()
    rest = lines_of(path, cursor)
    assert rest[0] == 512 and rest[-1] == 600  # nothing lost


def test_junk_lines_and_an_endless_line_end_at_the_deadline(tmp_path: Path) -> None:
    """#37: a deadline checked per record never fires where no line is a record; here it is
    checked on lines and on bytes read, and the next run starts where this one stopped."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"{\n" * 300_000 + b"x" * (3 * reader._CHUNK) + b"\n")
    cursor = reader.Cursor()
    started = time.monotonic()
    assert lines_of(path, cursor, deadline=started + 0.05) == []
    assert cursor.stopped and time.monotonic() - started < 1.0
    assert 0 < cursor.line < 300_000 and cursor.offset == 2 * cursor.line
    assert lines_of(path, cursor, max_line_bytes=1000) == []  # the rest, unbounded in time
    assert (cursor.line, cursor.oversize, cursor.offset) == (300_001, 1, path.stat().st_size)


def test_a_growing_file_is_read_to_its_size_when_opened(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [prompt_record("one"), prompt_record("two")])
    cursor = reader.Cursor()
    lines = reader.iter_records(path, cursor)
    assert next(lines)[0] == 1
    with path.open("a") as fh:  # written while it is read
        fh.write(json.dumps(prompt_record("three")) + "\n")
    assert [n for n, _r in lines] == [2]
    assert lines_of(path, cursor) == [3]  # the next run reads on


def test_what_is_not_a_regular_file_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        lines_of(fifo, reader.Cursor())


def test_skip_declines_lines_before_decoding(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [prompt_record("y" * 6000), prompt_record("z")])
    seen: list[int] = []

    def skip(raw: bytes) -> bool:
        seen.append(len(raw))
        return len(raw) > 4096

    assert lines_of(path, reader.Cursor(), skip=skip) == [2] and len(seen) == 2


def test_lines_across_read_chunks_come_out_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [prompt_record(f"prompt number {i} " + "x" * (i * 7)) for i in range(40)]
    path = write_jsonl(tmp_path / "t.jsonl", records)
    whole = [(n, r["message"]["content"]) for n, r in reader.iter_records(path, reader.Cursor())]
    monkeypatch.setattr(reader, "_CHUNK", 7)  # every line spans several reads
    cursor = reader.Cursor()
    small = [(n, r["message"]["content"]) for n, r in reader.iter_records(path, cursor)]
    assert small == whole and len(whole) == 40 and cursor.offset == path.stat().st_size
    sizes = [len(line) for line in path.read_bytes().splitlines(keepends=True)]
    short = [n for n, size in enumerate(sizes, start=1) if size <= 200]
    cut = reader.Cursor()
    assert lines_of(path, cut, max_line_bytes=200) == short  # longer lines skipped, counted
    assert cut.oversize == 40 - len(short) > 0 and cut.offset == path.stat().st_size
