"""Transcripts read fast (#7): runs of whole lines in a reused buffer, records decoded by orjson
where each line lies, and what `ccstate report` never needs skipped undecoded.

Bounded as every reader is (`lines.py`: regular files only, up to the size seen when opened,
lines over `MAX_LINE_BYTES` skipped unheld, a deadline checked on lines and bytes, #37).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ccstate.transcript import lines

# --------------------------------------------------------------------------- fast reading (#7)
# `ccstate report` reads tens of MB per run. Most bytes are in two places it does not need:
# `progress` records (2.1.x streams subagent activity into them) and a user record's
# `toolUseResult`, a second copy of the tool output that `message.content` already holds.
# `iter_light_records` skips both without decoding them, decodes the rest with orjson (about
# 2x the standard library's speed on this corpus) straight from its read buffer, and falls
# back to a full standard-library parse whenever a cheap check or orjson is not sure, so
# nothing is lost but speed. Claude Code writes compact JSON (`"type":"progress"`); a record
# written otherwise is decoded in full, which gives the same result.

_TYPE_KEY = b'"type":"'
_PROGRESS = b'"type":"progress"'
_TOOL_USE_RESULT = b'"toolUseResult"'
_CHEAP_PREFIX = 2048  # where to look for the top-level "type" key
_SKIPPED = object()
_SHORT = 4096  # bytes: lines up to this long are decoded whole, without cheap checks first
_CHUNK = 1 << 22  # bytes read at a time: files of any size stream through 4 MiB
_POOL: list[bytearray] = []  # read buffers to reuse: each new one costs page faults
_WHITESPACE = b" \t\r\n"
_CHECK_LINES = 4096  # lines between two looks at the clock (about a millisecond of junk)


def _at_top_level(line: bytes | bytearray, start: int, end: int) -> bool:
    """True when `line[start:end]` (a record's start) holds one `{` and no other bracket: its
    end is then at the top level, whatever the strings in it hold. False: "not sure"."""
    return (
        line.count(b"{", start, end) == 1
        and line.find(b"}", start, end) < 0
        and line.find(b"[", start, end) < 0
        and line.find(b"]", start, end) < 0
    )


def top_level_type(line: bytes | bytearray, start: int = 0, end: int = -1) -> str | None:
    """The record's `type` when it appears early at the top level, else None (decode to know).

    `line[start:end]` is the record (end -1: the whole line); only compact `"type":"…"` is
    recognised this cheaply.
    """
    if end < 0:
        end = len(line)
    at = line.find(_TYPE_KEY, start, start + _CHEAP_PREFIX)
    if at < 0 or at >= end or not _at_top_level(line, start, at):
        return None
    value_start = at + len(_TYPE_KEY)
    value_end = line.find(b'"', value_start, value_start + 64)
    if value_end < 0 or value_end >= end:
        return None
    return line[value_start:value_end].decode("ascii", "replace")


def fast_loads() -> Callable[[bytes | memoryview], Any]:
    """orjson's decoder when installed, else `load_line` (which never raises). What orjson
    refuses (lone surrogates, NaN, integers over 64 bits) goes to `load_line`. Call it before
    forking workers: they then share the import."""
    try:
        from orjson import loads
    except ImportError:  # a python3 without the dependency: the same result, slower
        return lines.load_line
    return loads


def _decode(loads: Callable[[memoryview], Any], view: memoryview) -> Any:
    try:
        return loads(view)
    except ValueError:
        return lines.load_line(view)


def _comma_before_tool_use_result(buf: bytearray, start: int, end: int) -> int:
    """Where the `,` before a `"toolUseResult"` key of `buf[start:end]` is, or -1.

    No depth check is needed: cut anywhere but at the top level, the head is not valid JSON.
    """
    at = buf.find(_TOOL_USE_RESULT, start, end)
    if at < 0:
        return -1
    at -= 1
    while at > start and buf[at] in _WHITESPACE:
        at -= 1
    return at if at > start and buf[at] == 0x2C else -1  # 0x2C: ","


def iter_line_runs(
    path: Path | str,
    stats: lines.ReadStats | None = None,
    max_line: int | None = None,
    *,
    counted: bool = False,
    deadline: float | None = None,
) -> Iterator[tuple[bytearray, int, int, int]]:
    """Runs of whole lines of `path`, read into a reused buffer: `(buf, start, end, first)`,
    where `buf[start:end]` holds lines that each end with a newline (a last line without one
    gets it) and `first` is the number of the first of them.

    `stats.lines` counts the lines before a run while the caller reads it (a caller that
    numbers records may set it to each record's line), and every line once it asks for the next
    run. `counted=True`: the caller walks every line of each run and leaves `stats.lines` at
    the number of its last line (`first` + lines - 1) before it asks for the next one, which
    spares counting each run's newlines here (a pass over every byte). A line over `max_line`
    bytes is skipped without being held (counted in `stats.too_long` and as skipped). The
    caller reads `buf` before it asks for the next run
    (it is then reused) and keeps no memoryview of it across runs; it may change bytes inside
    the run meanwhile, as long as it puts them back.

    Bounded (#37): the file is read up to the size it had when opened, and past `deadline`
    (time.monotonic(), checked at every read) the runs end, `stats.stopped` saying where.
    """
    stats = stats if stats is not None else lines.ReadStats()
    max_line = lines.MAX_LINE_BYTES if max_line is None else max_line
    base = stats.lines
    number = 0  # lines before the next run
    skipping = False  # inside a line longer than `max_line`
    buf = _POOL.pop() if _POOL and len(_POOL[-1]) == _CHUNK else bytearray(_CHUNK)
    filled = 0  # bytes of buf holding file data; a line may run past it into the next read
    eof = False
    try:
        with os.fdopen(lines.open_regular(path), "rb", buffering=0) as fh:
            left = os.fstat(fh.fileno()).st_size  # a file growing meanwhile: read what was there
            while True:
                if deadline is not None and time.monotonic() > deadline:
                    stats.stopped = f"stopped at line {base + number} (time budget)"
                    return
                if not eof:
                    with memoryview(buf) as view:
                        got = fh.readinto(view[filled : filled + min(len(buf) - filled, left)])
                    eof = not got
                    filled += got or 0
                    left -= got or 0
                if eof and filled and buf[filled - 1] != 0x0A:
                    # a last line without its newline (a session still writing): close it
                    if filled == len(buf):
                        buf.extend(b"\n")
                    else:
                        buf[filled] = 0x0A
                    filled += 1
                pos = 0
                if skipping:  # the rest of an over-long line: drop it unread (#12)
                    nl = buf.find(b"\n", 0, filled)
                    if nl < 0 and not eof:
                        filled = 0
                        continue
                    number += 1
                    stats.lines = base + number
                    stats.too_long += 1
                    lines.tally(stats, base + number, None)
                    if nl < 0:  # it was the last line
                        break
                    skipping, pos = False, nl + 1
                end = buf.rfind(b"\n", pos, filled) + 1
                if end > pos:
                    stats.lines = base + number
                    yield buf, pos, end, base + number + 1
                    if counted:  # by the caller
                        number = stats.lines - base
                    else:
                        number += buf.count(b"\n", pos, end)
                        stats.lines = base + number
                    pos = end
                if eof:
                    break
                # keep the unfinished line: at the front, or in a bigger buffer when it fills it
                rest = filled - pos
                if rest == len(buf) and len(buf) >= max_line:  # too long to keep: skip it
                    skipping, filled = True, 0
                    continue
                if rest == len(buf):  # one line fills the buffer: double it
                    buf.extend(bytes(len(buf)))
                elif rest and pos:
                    buf[:rest] = buf[pos:filled]
                filled = rest
    finally:
        if len(buf) == _CHUNK and len(_POOL) < 2:
            _POOL.append(buf)


def iter_fast_records(path: Path, stats: lines.ReadStats | None = None) -> Iterator[dict[str, Any]]:
    """What `iter_records` yields (every JSON object, in file order, the same ones skipped),
    read through `iter_line_runs` and decoded by `fast_loads` where each line lies (an integer
    past 64 bits, which no transcript holds, comes back as a float). No time budget: for the
    CLI's whole-file walks (`replay`), not the hooks."""
    stats = stats if stats is not None else lines.ReadStats()
    loads = fast_loads()
    for buf, pos, end, number in iter_line_runs(path, stats, counted=True):
        number -= 1
        with memoryview(buf) as view:  # released before the next run reuses buf
            while (nl := buf.find(b"\n", pos, end)) >= 0:
                number += 1
                start, pos = pos, nl + 1
                if buf[start] != 0x7B and buf[start:pos].isspace():  # 0x7B: "{"
                    continue
                try:
                    record = loads(view[start:nl])
                except ValueError:  # as iter_records: bad UTF-8 replaced, then the stdlib
                    record = lines.load_line(bytes(view[start:nl]).decode("utf-8", "replace"))
                if lines.tally(stats, number, record) is not None:
                    stats.lines = number
                    yield record
        stats.lines = number  # the run's last line: iter_line_runs goes on from it


def iter_light_records(
    path: Path,
    stats: lines.ReadStats | None = None,
    skip_types: frozenset[str] = frozenset(),
    max_line: int | None = None,
    *,
    deadline: float | None = None,
) -> Iterator[dict[str, Any]]:
    """Like `iter_records`, but skips records whose top-level `type` is in `skip_types` and
    returns user records without `toolUseResult` (and any keys after it).

    The file is read into a reused buffer (`iter_line_runs`) and each line decoded where it
    lies (no copy per line, no new buffer per file). Long lines get cheap checks first; a
    record whose type they cannot tell is decoded in full and then skipped; a line that
    starts with what no JSON object starts with is not decoded at all. Past `deadline`
    (checked every `_CHECK_LINES` lines and at every read, #37) it stops, `stats.stopped`
    saying where and `stats.lines` at the last line read.
    """
    stats = stats if stats is not None else lines.ReadStats()
    loads = fast_loads()
    progress = "progress" in skip_types  # the most common record, skipped on short lines too
    check, until = (0, deadline) if deadline is not None else (float("inf"), 0.0)
    runs = iter_line_runs(path, stats, max_line, counted=True, deadline=deadline)
    for buf, pos, end, number in runs:
        number -= 1
        with memoryview(buf) as view:  # released before the next run reuses buf
            while (nl := buf.find(b"\n", pos, end)) >= 0:  # the hot loop: each line
                number += 1
                if number >= check:  # lines, not records: a file of junk has none (#37)
                    if time.monotonic() > until:
                        stats.lines = number - 1
                        stats.stopped = f"stopped at line {number - 1} (time budget)"
                        return
                    check = number + _CHECK_LINES
                start, pos = pos, nl + 1
                first = buf[start]
                if first != 0x7B:  # 0x7B: "{"
                    if buf[start:pos].isspace():
                        continue
                    if first < 0x80 and first not in _WHITESPACE:  # no object starts so
                        lines.tally(stats, number, None)
                        continue
                if nl - start > _SHORT:
                    record = _long_line(buf, view, start, nl, loads, skip_types)
                    if record is _SKIPPED:
                        stats.records += 1
                        continue
                else:  # a full check costs about what decoding a short line does
                    at = buf.find(_PROGRESS, start, min(nl, start + _CHEAP_PREFIX))
                    if progress and at >= 0 and _at_top_level(buf, start, at):
                        stats.records += 1
                        continue
                    try:
                        record = loads(view[start:nl])
                    except ValueError:
                        record = lines.load_line(view[start:nl])
                if isinstance(record, dict):
                    stats.records += 1
                    if record.get("type") not in skip_types:
                        stats.lines = number  # the line of this record, as the caller reads it
                        yield record
                else:
                    lines.tally(stats, number, record)
        stats.lines = number  # the run's last line: iter_line_runs goes on from it


def _long_line(
    buf: bytearray,
    view: memoryview,
    start: int,
    end: int,
    loads: Callable[[memoryview], Any],
    skip_types: frozenset[str],
) -> Any:
    """Decode `buf[start:end]`; `_SKIPPED` when its type is in `skip_types` (not decoded)."""
    kind = top_level_type(buf, start, end)
    if kind is not None and kind in skip_types:
        return _SKIPPED
    comma = _comma_before_tool_use_result(buf, start, end) if kind == "user" else -1
    if comma >= 0:
        buf[comma] = 0x7D  # "}": the record ends before toolUseResult
        try:
            record = _decode(loads, view[start : comma + 1])
        finally:
            buf[comma] = 0x2C
        if isinstance(record, dict) and record.get("type") == "user" and "message" in record:
            return record
    return _decode(loads, view[start:end])
