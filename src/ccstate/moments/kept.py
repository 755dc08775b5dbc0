"""What ccstate kept out of this session's contexts, as Claude Code applied it, for the status
line: the figure `ccstate report` credits (`report.applied`, #24.4), read from a small counter
file the Stop hook writes after every turn (hooks/stop.py), never computed here.

The counter, `<state>/cache/kept/<session>.json` (0600 in 0700 folders), holds the session's
applied figure and, per file it scanned (the main transcript and its subagents'), the bytes it
covered. The figure never shrinks as a transcript grows (a replacement, once in the
transcript, stays counted), so what the counter says is a floor of the figure now: the line
shows it as it is when nothing ccstate wrote (`[ccstate`) has reached the files since, and
with `≥` when something has (a replacement the next Stop will count). No counter: no figure,
never an estimate. Reads only, standard library only; a missing state dir costs one failed
`open`, the staleness check the bytes written since the last Stop (bounded).
"""

from __future__ import annotations

import os

from ccstate import fastjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import BinaryIO

VERSION = 1
MARK = b"[ccstate"  # how everything ccstate puts into a context starts (notices, notes, digests)
MAX_TAIL = 8 << 20  # bytes of unscanned transcript the line reads at most; more: "may be behind"
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


class Kept:
    """The counter's figure, and whether the transcript may hold replacements it does not."""

    __slots__ = ("behind", "tokens")

    def __init__(self, tokens: int, behind: bool) -> None:
        self.tokens = tokens
        self.behind = behind

    def __repr__(self) -> str:
        return f"Kept(tokens={self.tokens}, behind={self.behind})"


def counter_path(state: str, session_id: str) -> str | None:
    """Where the session's counter lies; None for an id that cannot name a file."""
    if not session_id or len(session_id) > 80 or not set(session_id) <= _SAFE:
        return None
    if session_id.startswith("."):
        return None
    return os.path.join(state, "cache", "kept", session_id + ".json")


def load(state: str, session_id: str) -> dict[str, object] | None:
    """The session's counter as written, or None (absent, unreadable, another version)."""
    path = counter_path(state, session_id)
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            data = fastjson.loads(fh.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return None
    return data


def session_kept(state: str, session_id: str, transcript_path: str) -> Kept | None:
    """The applied figure for the status line; None when no Stop hook has counted this
    session's transcript yet."""
    data = load(state, session_id)
    if data is None or not transcript_path or data.get("transcript") != transcript_path:
        return None
    tokens, files = _count(data.get("tokens")), data.get("files")
    if tokens is None or not isinstance(files, dict):
        return None
    return Kept(tokens, _behind(transcript_path, files))


def save(
    state: str,
    session_id: str,
    transcript_path: str,
    figure: tuple[int, int, int],
    covered: Mapping[str, int],
    now: float,
) -> bool:
    """Write the counter: `figure` is (tokens, saved characters, replacements), `covered` the
    bytes counted of each file. False when the session id cannot name a file."""
    path = counter_path(state, session_id)
    if path is None:
        return False
    from ccstate import store

    store.ensure_state_dir(state)
    store.ensure_private_dir(os.path.dirname(os.path.dirname(path)))
    tokens, chars, replacements = figure
    data = {
        "version": VERSION,
        "transcript": transcript_path,
        "tokens": tokens,
        "saved_chars": chars,
        "replacements": replacements,
        "files": dict(covered),
        "time": int(now),
    }
    store.atomic_write_json(path, data, durable=False, private=True)
    return True


def is_current(data: Mapping[str, object] | None, transcript_path: str) -> bool:
    """The counter covers every byte of the session's files as they are now."""
    if data is None or data.get("transcript") != transcript_path:
        return False
    files = data.get("files")
    if not isinstance(files, dict) or set(files) != set(session_files(transcript_path)):
        return False
    return all(_size(path) == files[path] for path in files)


def figure(data: Mapping[str, object] | None) -> tuple[int, int, int] | None:
    """(tokens, saved characters, replacements) as `save` wrote them."""
    if data is None:
        return None
    found = [_count(data.get(k)) for k in ("tokens", "saved_chars", "replacements")]
    tokens, chars, replacements = found
    if tokens is None or chars is None or replacements is None:
        return None
    return tokens, chars, replacements


def advanced(data: Mapping[str, object] | None, main: str) -> dict[str, int] | None:
    """The counter's covered bytes moved to the files' last complete lines, when nothing in
    what they add can change the figure; None when a scan is needed.

    Every saving the report credits comes from a line that holds ccstate's mark (a notice,
    a digest's closing line, a note naming the lines a Read showed): a line without it adds
    nothing, and what it changes for a later line is seen when that line (with its mark)
    is scanned. So complete lines without the mark move the covered bytes on, and the figure
    stays exact (tests/report/test_applied.py feeds transcripts in chunks both ways)."""
    if data is None or data.get("transcript") != main:
        return None
    files = data.get("files")
    if not isinstance(files, dict):
        return None
    names = session_files(main)
    if set(files) - set(names):
        return None  # a file it counted is gone: scan what there is
    moved: dict[str, int] = {}
    for path in names:
        covered = _count(files.get(path, 0))
        if covered is None:
            return None
        end = _clean_end(path, covered)
        if end is None:
            return None
        moved[path] = end
    return moved


def _clean_end(path: str, start: int) -> int | None:
    """Where the last complete line after `start` ends, when none of those lines holds the
    mark; None when one does, the file shrank, or there is too much to look at."""
    try:
        with _open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < start or size - start > MAX_TAIL:
                return None
            fh.seek(start)
            new = fh.read(size - start)
    except OSError:
        return None
    complete = new[: new.rfind(b"\n") + 1]
    return None if MARK in complete else start + len(complete)


def _behind(main: str, files: Mapping[str, object]) -> bool:
    """Something ccstate wrote reached the session's files after the counter's bytes."""
    for path in session_files(main):
        covered = _count(files.get(path, 0))
        if covered is None or _mark_after(path, covered):
            return True
    return False


def _mark_after(path: str, start: int) -> bool:
    try:
        with _open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size == start:
                return False
            if size < start or size - start > MAX_TAIL:
                return True  # rewritten, or too much to look at: it may be behind
            fh.seek(start)
            return MARK in fh.read()
    except OSError:
        return False


def _open_regular(path: str) -> BinaryIO:
    """`path` opened to read when it is a regular file; OSError otherwise (a FIFO never blocks,
    #37). `store` is loaded already where this runs (the status line's config, the hooks)."""
    from ccstate import store

    return os.fdopen(store.open_regular(path), "rb")


def session_files(main: str) -> list[str]:
    """The session's transcript files, as the Stop hook counts them and the line checks them:
    the main one and `<session>/subagents/agent-*.jsonl` (transcript.sessions.subagent_transcripts'
    files, without pathlib)."""
    folder = os.path.join(main[: -len(".jsonl")] if main.endswith(".jsonl") else main, "subagents")
    try:
        agents = sorted(
            e.path
            for e in os.scandir(folder)
            if e.name.startswith("agent-") and e.name.endswith(".jsonl")
        )
    except OSError:
        agents = []
    return [main, *agents]


def _size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
