"""Transcript JSONL read line by line, bounded, into records, tolerating anything odd.

Files can be tens of MB: read line by line, never whole. Unknown record types pass through as
dicts; a malformed line (e.g. a partial last line written while the session is live) is
skipped and counted. Every reader here and in `runs.py` is bounded (#12, #37): regular files
only, up to the size seen when opened, lines over `MAX_LINE_BYTES` skipped unheld, a deadline
checked on lines and bytes. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Every reader is bounded (#12, #37): a line longer than this is skipped without being held in
# memory (the longest in ../shared/transcripts is 1 MB), a file is read up to the size it had
# when opened, and a deadline, when given, is checked as lines and chunks are read. 16 MiB, not
# 32: a line of ASCII and one emoji decodes to 4 bytes a character, and at 32 MiB a hook held
# 298 MiB (#37: at most 256).
MAX_LINE_BYTES = 16 << 20
_READ_CHUNK = 1 << 20
_CHECK_YIELDS = 256  # lines iter_lines yields between two looks at the clock


@dataclass
class ReadStats:
    """Lines and records read from a transcript, and the lines that were skipped."""

    lines: int = 0
    records: int = 0
    skipped: int = 0  # blank, malformed, non-object or over-long lines
    skipped_lines: list[int] = field(default_factory=list)
    too_long: int = 0  # lines over MAX_LINE_BYTES, skipped unread
    stopped: str = ""  # why reading stopped early ("" when it did not)
    # (offset, line number) after the last whole line, when the read reached the size it had
    # when opened and that ended with a newline: where a later read of a longer file goes on
    end: tuple[int, int] | None = None


class Deadline(Exception):
    """Raised by `iter_lines` when its time budget is spent: `offset` is where the first line
    it did not hand over starts, `line` the number of the line before it, so a later read can
    go on from there (`iter_lines(start=(offset, line))`)."""

    def __init__(self, message: str = "", offset: int = 0, line: int = 0) -> None:
        super().__init__(message)
        self.offset = offset
        self.line = line


def open_regular(path: Path | str) -> int:
    """A read-only descriptor of `path`, which must be a regular file (never blocks on a FIFO);
    OSError otherwise (`store.open_regular`)."""
    from ccstate import store

    return store.open_regular(path)


def iter_lines(
    path: Path | str,
    stats: ReadStats | None = None,
    *,
    deadline: float | None = None,
    max_line: int | None = None,
    objects_only: bool = False,
    start: tuple[int, int] = (0, 0),
) -> Iterator[tuple[int, bytes | bytearray]]:
    """(line number, bytes without the newline) for each line of a regular file, lines over
    `max_line` skipped (counted in `stats.too_long`); raises Deadline past `deadline`
    (time.monotonic(), checked every `_CHECK_YIELDS` lines and every chunk read: on
    lines and bytes, not records, #37). The file is read up to the size it had when opened:
    one that grows meanwhile never makes the read endless. `objects_only`: lines that cannot
    hold a JSON object (their first byte but spaces is no `{`) are passed over in bulk, counted
    in `stats.lines` only. `start`: (byte offset of a line's start, the number of the line
    before it), where a Deadline said it stopped. Memory stays under `max_line` plus one
    chunk."""
    stats = stats if stats is not None else ReadStats()
    max_line = MAX_LINE_BYTES if max_line is None else max_line
    objects = _object_line() if objects_only else None
    fd = open_regular(path)
    with os.fdopen(fd, "rb", buffering=0) as fh:
        base, number = start
        left = os.fstat(fd).st_size - base
        if base:
            fh.seek(base)
        line_start = base  # where the line not yet handed over starts, in the file
        pending = bytearray()
        skipping = False
        check = 0
        while left > 0:
            if deadline is not None and time.monotonic() > deadline:
                raise Deadline(f"stopped at line {number} (time budget)", line_start, number)
            chunk = fh.read(min(_READ_CHUNK, left))
            if not chunk:
                break
            left -= len(chunk)
            at = 0
            while True:
                if objects is not None and not pending and not skipping:
                    at, passed = _pass_over(objects, chunk, at)
                    number += passed
                    stats.lines += passed
                    line_start = base + at
                nl = chunk.find(b"\n", at)
                if nl < 0:
                    break
                number += 1
                stats.lines += 1
                line_start = base + nl + 1
                if skipping or len(pending) + nl - at > max_line:
                    stats.too_long += 1
                    tally(stats, number, None)
                    skipping = False
                    pending.clear()
                else:
                    line: bytes | bytearray
                    if pending:  # handed over whole, not copied: a long line is held once
                        pending += chunk[at:nl]
                        line, pending = pending, bytearray()
                    else:
                        line = chunk[at:nl]
                    yield number, line
                    check += 1
                    if deadline is not None and check >= _CHECK_YIELDS:
                        check = 0
                        if time.monotonic() > deadline:
                            raise Deadline(
                                f"stopped at line {number} (time budget)", line_start, number
                            )
                at = nl + 1
            base += len(chunk)
            if not skipping:
                pending += chunk[at:]
                if len(pending) > max_line:
                    skipping = True
                    pending.clear()
        if pending or skipping:  # a last line without its newline
            number += 1
            stats.lines += 1
            if skipping:
                stats.too_long += 1
                tally(stats, number, None)
            else:
                yield number, pending
        else:
            stats.end = (line_start, number)


def _object_line() -> re.Pattern[bytes]:
    """A line whose first byte but spaces is `{`: the start of any line that can hold a JSON
    object (`json.loads` allows JSON's whitespace before it, and a UTF-8 BOM before that)."""
    return re.compile(rb"^(?:\xef\xbb\xbf)?[ \t\r]*\{", re.MULTILINE)


def _pass_over(objects: re.Pattern[bytes], chunk: bytes, start: int) -> tuple[int, int]:
    """(where the next line of `chunk` that may hold an object starts, the whole lines passed
    over to get there); `start` is a line's start. Without one, the chunk's last line start."""
    found = objects.search(chunk, start)
    jump = found.start() if found is not None else max(start, chunk.rfind(b"\n", start) + 1)
    return jump, chunk.count(b"\n", start, jump)


def iter_records(
    path: Path, stats: ReadStats | None = None, *, deadline: float | None = None
) -> Iterator[dict[str, Any]]:
    """Each JSON object in `path`, in file order (bounded: `iter_lines`). Past `deadline`
    it stops, and `stats.stopped` says where."""
    stats = stats if stats is not None else ReadStats()
    try:
        for number, line in iter_lines(path, stats, deadline=deadline):
            if not line.strip():
                continue
            record = tally(stats, number, load_line(line.decode("utf-8", "replace")))
            if record is not None:
                yield record
    except Deadline as exc:
        stats.stopped = str(exc)


def load_line(line: str | bytes | memoryview) -> Any:
    try:
        return json.loads(line if isinstance(line, (str, bytes)) else bytes(line))
    except (ValueError, RecursionError):  # RecursionError: nesting no transcript has
        return None


def tally(stats: ReadStats, number: int, record: Any) -> dict[str, Any] | None:
    """Tally one parsed line: a dict is a record; anything else is skipped (first 20 noted)."""
    if not isinstance(record, dict):
        stats.skipped += 1
        if len(stats.skipped_lines) < 20:
            stats.skipped_lines.append(number)
        return None
    stats.records += 1
    return record


def iter_numbered(
    path: Path,
    deadline: float | None = None,
    start: tuple[int, int] = (0, 0),
    stats: ReadStats | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each JSON object line of `path`; odd lines are skipped.

    Bounded (#12, #37): a regular file only, read up to its size when opened, lines over
    `MAX_LINE_BYTES` skipped unread, lines that hold no object passed over in bulk,
    `Deadline` raised past `deadline` (checked on lines and bytes read; it says where to go
    on from: `start`). Plain `json.loads` per line: about 0.5 s for 57 MB here, far inside
    SessionEnd's 30 s.
    """
    lines = iter_lines(path, stats, deadline=deadline, objects_only=True, start=start)
    for number, line in lines:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # a partial line; nesting no transcript has
            continue
        if isinstance(record, dict):
            yield number, record
