"""Stream Claude Code transcript JSONL into records, tolerating anything odd.

Files can be tens of MB: read line by line, never whole. Unknown record types
pass through as dicts; a malformed line (e.g. a partial last line written while
the session is live) is skipped and counted. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
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


class Deadline(Exception):
    """Raised by `iter_lines` when its time budget is spent."""


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
) -> Iterator[tuple[int, bytes | bytearray]]:
    """(line number, bytes without the newline) for each line of a regular file, lines over
    `max_line` skipped (counted in `stats.too_long`); raises Deadline past `deadline`
    (time.monotonic(), checked every `_CHECK_YIELDS` lines and every chunk read: on
    lines and bytes, not records, #37). The file is read up to the size it had when opened:
    one that grows meanwhile never makes the read endless. `objects_only`: lines that cannot
    hold a JSON object (their first byte but spaces is no `{`) are passed over in bulk, counted
    in `stats.lines` only. Memory stays under `max_line` plus one chunk."""
    stats = stats if stats is not None else ReadStats()
    max_line = MAX_LINE_BYTES if max_line is None else max_line
    objects = _object_line() if objects_only else None
    fd = open_regular(path)
    with os.fdopen(fd, "rb", buffering=0) as fh:
        left = os.fstat(fd).st_size
        pending = bytearray()
        skipping = False
        number = check = 0
        while left > 0:
            if deadline is not None and time.monotonic() > deadline:
                raise Deadline(f"stopped at line {number} (time budget)")
            chunk = fh.read(min(_READ_CHUNK, left))
            if not chunk:
                break
            left -= len(chunk)
            start = 0
            while True:
                if objects is not None and not pending and not skipping:
                    start, passed = _pass_over(objects, chunk, start)
                    number += passed
                    stats.lines += passed
                nl = chunk.find(b"\n", start)
                if nl < 0:
                    break
                number += 1
                stats.lines += 1
                if skipping or len(pending) + nl - start > max_line:
                    stats.too_long += 1
                    _count(stats, number, None)
                    skipping = False
                    pending.clear()
                else:
                    line: bytes | bytearray
                    if pending:  # handed over whole, not copied: a long line is held once
                        pending += chunk[start:nl]
                        line, pending = pending, bytearray()
                    else:
                        line = chunk[start:nl]
                    yield number, line
                    check += 1
                    if deadline is not None and check >= _CHECK_YIELDS:
                        check = 0
                        if time.monotonic() > deadline:
                            raise Deadline(f"stopped at line {number} (time budget)")
                start = nl + 1
            if not skipping:
                pending += chunk[start:]
                if len(pending) > max_line:
                    skipping = True
                    pending.clear()
        if pending or skipping:  # a last line without its newline
            number += 1
            stats.lines += 1
            if skipping:
                stats.too_long += 1
                _count(stats, number, None)
            else:
                yield number, pending


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
            record = _count(stats, number, _loads(line.decode("utf-8", "replace")))
            if record is not None:
                yield record
    except Deadline as exc:
        stats.stopped = str(exc)


def _loads(line: str | bytes | memoryview) -> Any:
    try:
        return json.loads(line if isinstance(line, (str, bytes)) else bytes(line))
    except (ValueError, RecursionError):  # RecursionError: nesting no transcript has
        return None


def _count(stats: ReadStats, number: int, record: Any) -> dict[str, Any] | None:
    """Tally one parsed line: a dict is a record; anything else is skipped (first 20 noted)."""
    if not isinstance(record, dict):
        stats.skipped += 1
        if len(stats.skipped_lines) < 20:
            stats.skipped_lines.append(number)
        return None
    stats.records += 1
    return record


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


# --------------------------------------------------------------------------- fast reading (#7)
# `ccstate report` reads tens of MB per run. Most bytes are in two places it does not need:
# `progress` records (2.1.x streams subagent activity into them) and a user record's
# `toolUseResult`, a second copy of the tool output that `message.content` already holds.
# `iter_light_records` skips both without decoding them, decodes the rest with orjson (about
# 2x the standard library's speed on this corpus) straight from its read buffer, and falls
# back to a full standard-library parse whenever a cheap check or orjson is not sure, so
# nothing is lost but speed. Claude Code writes compact JSON (`"type":"progress"`); a record
# written otherwise is decoded in full, which gives the same result.

SUBAGENTS_DIR = "subagents"
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
    """orjson's decoder when installed, else `_loads` (which never raises). What orjson
    refuses (lone surrogates, NaN, integers over 64 bits) goes to `_loads`. Call it before
    forking workers: they then share the import."""
    try:
        from orjson import loads
    except ImportError:  # a python3 without the dependency: the same result, slower
        return _loads
    return loads


def _decode(loads: Callable[[memoryview], Any], view: memoryview) -> Any:
    try:
        return loads(view)
    except ValueError:
        return _loads(view)


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
    stats: ReadStats | None = None,
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
    stats = stats if stats is not None else ReadStats()
    max_line = MAX_LINE_BYTES if max_line is None else max_line
    base = stats.lines
    number = 0  # lines before the next run
    skipping = False  # inside a line longer than `max_line`
    buf = _POOL.pop() if _POOL and len(_POOL[-1]) == _CHUNK else bytearray(_CHUNK)
    filled = 0  # bytes of buf holding file data; a line may run past it into the next read
    eof = False
    try:
        with os.fdopen(open_regular(path), "rb", buffering=0) as fh:
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
                    _count(stats, base + number, None)
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


def iter_fast_records(path: Path, stats: ReadStats | None = None) -> Iterator[dict[str, Any]]:
    """What `iter_records` yields (every JSON object, in file order, the same ones skipped),
    read through `iter_line_runs` and decoded by `fast_loads` where each line lies (an integer
    past 64 bits, which no transcript holds, comes back as a float). No time budget: for the
    CLI's whole-file walks (`replay`), not the hooks."""
    stats = stats if stats is not None else ReadStats()
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
                    record = _loads(bytes(view[start:nl]).decode("utf-8", "replace"))
                if _count(stats, number, record) is not None:
                    stats.lines = number
                    yield record
        stats.lines = number  # the run's last line: iter_line_runs goes on from it


def iter_light_records(
    path: Path,
    stats: ReadStats | None = None,
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
    stats = stats if stats is not None else ReadStats()
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
                        _count(stats, number, None)
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
                        record = _loads(view[start:nl])
                if isinstance(record, dict):
                    stats.records += 1
                    if record.get("type") not in skip_types:
                        stats.lines = number  # the line of this record, as the caller reads it
                        yield record
                else:
                    _count(stats, number, record)
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


def subagent_transcripts(main: Path) -> list[Path]:
    """The subagent transcripts of a main transcript: `<dir>/<session>/subagents/agent-*.jsonl`."""
    folder = main.parent / main.stem / SUBAGENTS_DIR
    try:
        return sorted(folder.glob("agent-*.jsonl"))
    except OSError:
        return []


def session_of(path: Path) -> str:
    """The session a transcript file belongs to: its stem, or for a file in
    `<session>/subagents/`, that session's id."""
    if path.parent.name == SUBAGENTS_DIR:
        return path.parent.parent.name
    return path.stem


def match_session(given: str, known: Iterable[str]) -> str | None:
    """The session id `given` stands for among `known`: itself, or the one id it is the
    start of (ccstate prints ids cut to 8 characters); None when it fits none.
    CcstateError when it is the start of several."""
    from ccstate.errors import CcstateError

    ids = set(known)
    if given in ids:
        return given
    matches = sorted(i for i in ids if given and i.startswith(given))
    if len(matches) > 1:
        shown = ", ".join(m[: len(given) + 4] + "…" for m in matches[:5])
        raise CcstateError(
            f"session {given!r} is the start of {len(matches)} sessions ({shown}); "
            "pass more of its id"
        )
    return matches[0] if matches else None


def session_transcripts(given: str, candidates: Iterable[Path]) -> list[Path]:
    """The main transcripts (`<session>.jsonl`) of the session `given` stands for."""
    files = list(candidates)
    session = match_session(given, (p.stem for p in files))
    return sorted(p for p in files if p.stem == session)
