"""Stream a transcript's user and assistant records from a byte offset, bounded.

Recall reads a growing transcript a piece at a time: it keeps the offset after the last
complete line and the line number there, and the next run starts from them. A line without
its newline (the session is still writing it) is left for the next run. Bounds: a line
longer than `max_line_bytes` is skipped (counted), and reading stops at `deadline` at a
line boundary, so a hook stays inside its budget and the next run carries on.

Decoding follows `transcript.iter_light_records`: records whose top-level type is cheap to
see and not wanted (progress, snapshots, system notices) are skipped undecoded, a long user
record is cut before `toolUseResult` (a second copy of the tool output), orjson decodes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ccstate import transcript

WANTED = frozenset({"user", "assistant"})
# with the records of newer types that can hold a moment (2.1.x: `facts.record_moment`)
WANTED_ALL = WANTED | {"attachment", "system"}
MAX_LINE_BYTES = 32 << 20  # a record longer than this is skipped, not read into memory
_CHUNK = 4 << 20  # bytes read at a time
_TOOL_USE_RESULT = b',"toolUseResult"'
_SHORT = 4096
_THINKING = b'"content":[{"type":"thinking"'
_PREFIX = 4096


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
    skip: Callable[[bytes], bool] | None = None,
    wanted: frozenset[str] = WANTED,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each record of a `wanted` type after `cursor`, advancing it.

    `skip(line)` may decline a line before it is decoded (lines of other types are declined
    before it is asked).
    """
    loads = transcript.fast_loads()
    with path.open("rb") as fh:
        fh.seek(cursor.offset)
        count = 0
        for raw, size in _lines(fh, max_line_bytes):
            count += 1
            if deadline is not None and count % 256 == 0 and time.monotonic() > deadline:
                cursor.stopped = f"time budget reached at line {cursor.line}"
                return  # before taking the line: the next run starts with it
            cursor.line += 1
            cursor.offset += size
            if raw is None:
                cursor.oversize += 1
                continue
            kind = transcript.top_level_type(raw)  # progress, system notices, snapshots
            if kind is not None and kind not in wanted:
                continue  # undecoded
            if skip is not None and skip(raw):
                continue
            record = _decode(raw, kind, loads, wanted)
            if record is not None:
                yield cursor.line, record


def _lines(fh: Any, limit: int) -> Iterator[tuple[bytes | None, int]]:
    """(line, its size in bytes) for each complete line; (None, size) for one longer than
    `limit` (never held whole). A last line without its newline is not returned."""
    rest = b""
    skipped = -1  # >= 0: bytes of an oversized line passed so far
    while True:
        chunk = fh.read(_CHUNK)
        if not chunk:
            return
        if skipped >= 0:
            nl = chunk.find(b"\n")
            if nl < 0:
                skipped += len(chunk)
                continue
            yield None, skipped + nl + 1
            skipped, chunk = -1, chunk[nl + 1 :]
        data = rest + chunk if rest else chunk
        pos = 0
        find = data.find
        while (nl := find(b"\n", pos)) >= 0:
            size = nl + 1 - pos
            yield (data[pos : nl + 1] if size <= limit else None), size
            pos = nl + 1
        rest = data[pos:]
        if len(rest) > limit:
            skipped, rest = len(rest), b""


def _decode(
    raw: bytes, kind: str | None, loads: Any, wanted: frozenset[str] = WANTED
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


def _loads(raw: bytes, loads: Any) -> Any:
    try:
        return loads(raw)
    except ValueError:
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return None
