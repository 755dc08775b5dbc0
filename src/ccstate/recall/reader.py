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
MAX_LINE_BYTES = 32 << 20  # a record longer than this is skipped, not read into memory
_CHUNK = 1 << 20
_TOOL_USE_RESULT = b',"toolUseResult"'
_SHORT = 4096
_PROGRESS = b'"type":"progress"'


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
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each user/assistant record after `cursor`, advancing it.

    `skip(line)` may decline a long line (over 4 KiB) before it is decoded.
    """
    loads = transcript.fast_loads()
    with path.open("rb") as fh:
        fh.seek(cursor.offset)
        count = 0
        while True:
            count += 1
            if deadline is not None and count % 256 == 0 and time.monotonic() > deadline:
                cursor.stopped = f"time budget reached at line {cursor.line}"
                return  # before reading the line: the next run starts with it
            raw = fh.readline(max_line_bytes + 1)
            if not raw:
                return
            if not raw.endswith(b"\n"):
                if len(raw) <= max_line_bytes:
                    return  # a partial last line: the session is writing it
                skipped = _skip_line(fh)
                if skipped < 0:
                    return  # an oversized partial last line: wait for its end
                cursor.oversize += 1
                cursor.line += 1
                cursor.offset += len(raw) + skipped
                continue
            cursor.line += 1
            cursor.offset += len(raw)
            if skip is not None and len(raw) > _SHORT and skip(raw):
                continue
            record = _decode(raw, loads)
            if record is not None:
                yield cursor.line, record


def _skip_line(fh: Any) -> int:
    """Read past the rest of an oversized line; its byte count, or -1 at the end of file."""
    count = 0
    while True:
        chunk = fh.readline(_CHUNK)
        if not chunk:
            return -1
        count += len(chunk)
        if chunk.endswith(b"\n"):
            return count


def _decode(raw: bytes, loads: Any) -> dict[str, Any] | None:
    if len(raw) <= _SHORT:  # decoding a short line costs about what a cheap check does
        if raw.find(_PROGRESS) >= 0 and transcript.top_level_type(raw) == "progress":
            return None  # the most common record
        record = _loads(raw, loads)
        return record if isinstance(record, dict) and record.get("type") in WANTED else None
    kind = transcript.top_level_type(raw)
    if kind is not None and kind not in WANTED:
        return None
    if kind == "user":
        cut = raw.find(_TOOL_USE_RESULT)
        if cut > 0:
            record = _loads(raw[:cut] + b"}", loads)
            if isinstance(record, dict) and "message" in record:
                return record
    record = _loads(raw, loads)
    if isinstance(record, dict) and record.get("type") in WANTED:
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
