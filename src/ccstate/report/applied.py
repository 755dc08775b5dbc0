"""What ccstate kept out of a session's contexts as Claude Code applied it (#24.4): the one
figure `ccstate report` shows as "tokens kept out" and the status line shows as "kept out"
(pure over records, plus the reading of a session's files).

The predicates are composition.py's (a Read result that is a ccstate notice or shows only
the lines a ccstate note names, a tool result ending in a digest's closing line, a shell
read answered with a notice), applied by usage.py's scanner: nothing here decides what
counts. Light on purpose (no pricing, no rich): the Stop hook imports it (hooks/stop.py).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ccstate.report.composition import Composition
from ccstate.report.usage import SKIP_TYPES, notice_prefixes, scan_records
from ccstate.transcript.lines import ReadStats, open_regular
from ccstate.transcript.runs import iter_light_records

CHARS_PER_TOKEN = 4


def est_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


class KeptOut:
    """What ccstate kept out of one session's contexts, as Claude Code applied it."""

    __slots__ = ("replacements", "token_calls", "tokens")

    def __init__(self, tokens: int, token_calls: int, replacements: int) -> None:
        self.tokens = tokens  # estimated tokens (chars / 4) the replacements kept out
        self.token_calls = token_calls  # ... times the later API calls that would carry them
        self.replacements = replacements  # notices, shortened Reads, digests in the transcript

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeptOut) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__
        )

    def __repr__(self) -> str:
        return f"KeptOut(tokens={self.tokens}, token_calls={self.token_calls}, ...)"


def kept_out_of(comp: Composition) -> KeptOut:
    return KeptOut(
        est_tokens(comp.saved_chars),
        est_tokens(comp.saved_char_calls),
        comp.notices + comp.digests + comp.partial_reads,
    )


def kept_out_as_applied(records: Iterable[dict[str, Any]], name: str = "session.jsonl") -> KeptOut:
    """This session's kept-out tokens as applied (pure: the records of its transcript, in
    order; `name` its file name). Counts a replacement only where the transcript shows
    Claude Code delivered it: a Read result that is a ccstate notice or shows only the lines
    a ccstate note names, a tool result ending in a digest's closing line, a shell read
    answered with a notice. An `updatedToolOutput` Claude Code rejected leaves the original in
    the transcript and counts nothing; Claude Code's own "file unchanged" answers are not
    ccstate's. The figure `ccstate report` shows as "tokens kept out"; for the status line."""
    comp = scan_records(records, path=Path(name), prefixes=notice_prefixes()).composition
    return kept_out_of(comp)


class SessionKept:
    """A session's applied figure over its files (the main transcript and its subagents'),
    and how far into each file it reaches."""

    __slots__ = ("covered", "replacements", "saved_chars", "stopped")

    def __init__(
        self, saved_chars: int, replacements: int, covered: dict[str, int], stopped: str = ""
    ) -> None:
        self.saved_chars = saved_chars
        self.replacements = replacements
        self.covered = covered  # file -> bytes counted (through its last complete line)
        self.stopped = stopped  # where a deadline stopped the scan ("" = it did not)

    @property
    def tokens(self) -> int:
        return est_tokens(self.saved_chars)


def session_kept(files: Iterable[str], deadline: float | None = None) -> SessionKept:
    """Scan a session's files (its main transcript and its subagents') as `ccstate report`
    does: each file on its own, the sums merged (report/summary.py). A file's covered size is
    taken before it is read and cut to its last complete line, so a line written meanwhile
    is counted again next time, never missed; what the scan read beyond it only makes the
    figure newer. A file that cannot be read (or is no regular file) is left out. Past
    `deadline` (time.monotonic()) the scan stops and `stopped` says where: the figure is then
    of part of the session, not to be saved (#37)."""
    chars = replacements = 0
    covered: dict[str, int] = {}
    for name in files:
        size = complete_size(name)
        if size is None:
            continue
        stats = ReadStats()
        try:
            records = iter_light_records(Path(name), stats, SKIP_TYPES, deadline=deadline)
            path, prefixes = Path(name), notice_prefixes()
            comp = scan_records(records, path=path, prefixes=prefixes, stats=stats).composition
        except OSError:  # gone, or replaced by what is no regular file, since `complete_size`
            continue
        if stats.stopped:
            where = f"{os.path.basename(name)}: {stats.stopped}"
            return SessionKept(chars, replacements, covered, where)
        chars += comp.saved_chars
        replacements += comp.notices + comp.digests + comp.partial_reads
        covered[name] = size
    return SessionKept(chars, replacements, covered)


def complete_size(path: str, tail: int = 1 << 16) -> int | None:
    """Bytes of `path` through its last newline now (None: not a readable regular file; a
    FIFO never blocks)."""
    try:
        with os.fdopen(open_regular(path), "rb") as fh:
            end = os.fstat(fh.fileno()).st_size
            pos = end
            while pos > 0:
                start = max(0, pos - tail)
                fh.seek(start)
                at = fh.read(pos - start).rfind(b"\n")
                if at >= 0:
                    return start + at + 1
                pos = start
            return 0
    except OSError:
        return None
