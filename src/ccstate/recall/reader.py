"""Stream a transcript's user and assistant records from a byte offset, bounded.

Recall reads a growing transcript a piece at a time: it keeps the offset after the last
complete line and the line number there, and the next run starts from them. A line without
its newline (the session is still writing it) is left for the next run. Bounds: a line
longer than `max_line_bytes` is skipped (counted), and reading stops at `deadline` at a
line boundary, so a hook stays inside its budget and the next run carries on.

Regular files only, read up to the size they had when opened (#37).

Decoding follows `runs.iter_light_records`: records whose top-level type is cheap to
see and not wanted (progress, snapshots, system notices) are skipped undecoded, a long user
record is cut before `toolUseResult` (a second copy of the tool output), orjson decodes.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ccstate.transcript import lines, runs

WANTED = frozenset({"user", "assistant"})
# with the records of newer types that can hold a moment (2.1.x: `facts.record_moment`)
WANTED_ALL = WANTED | {"attachment", "system"}
MAX_LINE_BYTES = lines.MAX_LINE_BYTES  # a longer record is skipped, never held whole
_CHUNK = 4 << 20  # bytes read at a time
_TOOL_USE_RESULT = b',"toolUseResult"'
_SHORT = 4096
_THINKING = b'"content":[{"type":"thinking"'
_PREFIX = 4096
_WHITESPACE = b" \t\r\n"


class Cursor:
    """Where reading stands: the byte offset after the last complete line and its number."""

    __slots__ = ("line", "offset", "oversize", "stopped")

    def __init__(self, offset: int = 0, line: int = 0) -> None:
        self.offset = offset
        self.line = line
        self.oversize = 0  # lines skipped for their length
        self.stopped = ""  # why reading stopped before the end ("" = it reached the end)


def iter_records(
    path: Path,
    cursor: Cursor,
    *,
    max_line_bytes: int = MAX_LINE_BYTES,
    deadline: float | None = None,
    skip: Callable[[bytes | bytearray], bool] | None = None,
    wanted: frozenset[str] = WANTED,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each record of a `wanted` type after `cursor`, advancing it.

    `skip(line)` may decline a line before it is decoded (lines of other types are declined
    before it is asked). Bounded (#37): a regular file only (OSError otherwise: a FIFO never
    blocks), read up to the size it had when opened, the deadline checked on lines and on
    bytes read (a file of junk lines has no records, an over-long line no lines).
    """
    loads = runs.fast_loads()
    with os.fdopen(lines.open_regular(path), "rb", buffering=0) as fh:
        size = os.fstat(fh.fileno()).st_size
        fh.seek(cursor.offset)
        count = 0
        try:
            for raw, length in _lines(fh, max_line_bytes, size - cursor.offset, deadline):
                count += 1
                if deadline is not None and count % 256 == 0 and time.monotonic() > deadline:
                    raise lines.Deadline  # before taking the line: the next run starts there
                cursor.line += 1
                cursor.offset += length
                if raw is None:
                    cursor.oversize += 1
                    continue
                if raw[0] != 0x7B and raw[0] < 0x80 and raw[0] not in _WHITESPACE:
                    continue  # no JSON object starts so ("{": 0x7B): not decoded
                kind = runs.top_level_type(raw)  # progress, system notices, snapshots
                if kind is not None and kind not in wanted:
                    continue  # undecoded
                if skip is not None and skip(raw):
                    continue
                record = _decode(raw, kind, loads, wanted)
                if record is not None:
                    yield cursor.line, record
        except lines.Deadline:
            cursor.stopped = f"time budget reached at line {cursor.line}"


def _lines(
    fh: Any, limit: int, left: int, deadline: float | None
) -> Iterator[tuple[bytes | bytearray | None, int]]:
    """(line, its size in bytes) for each complete line in the next `left` bytes; (None, size)
    for one longer than `limit`, never held whole (memory stays under `limit` plus a chunk).
    A last line without its newline is not returned. Raises `lines.Deadline` past
    `deadline`, checked at every chunk read."""
    pending = bytearray()  # the start of a line that runs into the next chunk
    skipped = -1  # >= 0: bytes of an oversized line passed so far
    while left > 0:
        if deadline is not None and time.monotonic() > deadline:
            raise lines.Deadline
        chunk = fh.read(min(_CHUNK, left))
        if not chunk:
            return
        left -= len(chunk)
        pos = 0
        if skipped >= 0:
            nl = chunk.find(b"\n")
            if nl < 0:
                skipped += len(chunk)
                continue
            yield None, skipped + nl + 1
            skipped, pos = -1, nl + 1
        find = chunk.find
        while (nl := find(b"\n", pos)) >= 0:
            size = len(pending) + nl + 1 - pos
            if size > limit:
                yield None, size
            elif pending:  # handed over whole, not copied: a long line is held once
                pending += chunk[pos : nl + 1]
                yield pending, size
            else:
                yield chunk[pos : nl + 1], size
            if pending:
                pending = bytearray()
            pos = nl + 1
        if len(pending) + len(chunk) - pos > limit:
            skipped = len(pending) + len(chunk) - pos
            pending.clear()
        else:
            pending += chunk[pos:]


def _decode(
    raw: bytes | bytearray, kind: str | None, loads: Any, wanted: frozenset[str] = WANTED
) -> dict[str, Any] | None:
    """The record of a line whose top-level type is `kind` (one of `wanted`, or None: unknown
    before decoding), or None when it is not one recall reads."""
    if len(raw) <= _SHORT:
        record = _loads(raw, loads)
        return record if isinstance(record, dict) and record.get("type") in wanted else None
    if kind == "assistant" and raw.find(_THINKING, 0, _PREFIX) >= 0:
        return None  # a thinking block alone (2.x writes one block per record): not a moment
    if kind == "user":
        cut = raw.find(_TOOL_USE_RESULT)
        if cut > 0:
            record = _loads(raw[:cut] + b"}", loads)
            if isinstance(record, dict) and "message" in record:
                return record
    record = _loads(raw, loads)
    if isinstance(record, dict) and record.get("type") in wanted:
        return record
    return None


def _loads(raw: bytes | bytearray, loads: Any) -> Any:
    try:
        return loads(raw)
    except ValueError:
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return None
