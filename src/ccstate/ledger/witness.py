"""Witnesses that a context may have lost Read results without a hook telling us (issue #12).

The read ledger cites earlier Reads; that is only safe while the context still holds them.
Compaction fires hooks (PreCompact, SessionStart `compact`), but a hook can fail (a broken venv,
an unwritable state dir, a lock held too long, another state dir), and Claude Code 2.1.328 also
drops tool results with no hook at all: the client microcompact (`microcompact_boundary`) and
the clearing of old tool results after an idle pause (`clear_tool_uses`, idle >= 3,900 s). So
before citing anything, the PostToolUse hook asks these witnesses, none of which needs a hook
to have run or a disk to have been writable (docs/RELIABILITY.md):

- the **transcript**: Claude Code appends a `compact_boundary` / `microcompact_boundary`
  record, a `critical_system_reminder` after an idle pause, or a `content-replacement`
  record (2.1.332's per-message budget), when it drops results. The bytes
  appended since the last check are searched for those JSON tokens (a quote-delimited token
  cannot occur inside a JSON string, where quotes are escaped); bounded work per event;
- the **generation** file PreCompact and SessionStart write (no lock): a ledger written back by
  a PostToolUse that outlived a compaction carries the old generation;
- the **clock**: an idle gap long enough for the server to clear tool results;
- the **Claude Code process** (`CLAUDE_PID`): a new process means the context was rebuilt.

Standard library only: the PostToolUse hook imports this module.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# JSON tokens Claude Code writes when it drops tool results from a context (2.1.328).
MARKERS = (
    b'"compact_boundary"',
    b'"microcompact_boundary"',
    b'"critical_system_reminder"',  # "This chat has resumed after a long pause..."
    # 2.1.332: a user message whose tool results pass 200,000 characters has some of them
    # persisted and previewed ("Per-message budget"), recorded as a `content-replacement`
    # record (Read is exempt; Bash, and so a shell read, is not)
    b'"content-replacement"',
)
_OVERLAP = max(len(m) for m in MARKERS) - 1
MAX_SCAN_BYTES = 32 << 20  # more new transcript than this since the last Read: assume the worst
_CHUNK = 1 << 20
# Claude Code clears old tool results after >= 3,900 s idle (`minIdleSeconds` in 2.1.328);
# an hour between two events of one context is treated as such a pause.
IDLE_RESET_S = 3600.0
CLOCK_SKEW_S = 5.0
GENERATION_NAME = "generation"
MAX_GENERATION_BYTES = 256


def transcript_for(transcript_path: str, session_id: str, agent_id: str | None) -> str:
    """The transcript that records this context: a subagent's own file when it exists."""
    if not transcript_path:
        return ""
    if agent_id:
        folder = os.path.splitext(transcript_path)[0]
        own = os.path.join(folder, "subagents", f"agent-{agent_id}.jsonl")
        if os.path.isfile(own):
            return own
    return transcript_path


def own_transcript_of(main: str, path: str) -> bool:
    """Is `path` a subagent's own transcript beside the session transcript `main`?"""
    folder, name = os.path.split(path)
    return (
        name.startswith("agent-")
        and os.path.basename(folder) == "subagents"
        and os.path.dirname(folder) == os.path.splitext(main)[0]
    )


def scan(path: str, seen: Mapping[str, Any], *, must_scan: bool) -> tuple[str, dict[str, Any]]:
    """(why the context may have lost results, or "", the new witness state).

    `seen` is the state after the last check: {"path", "offset", "ino"}. With `must_scan`
    False (the context holds nothing yet) the new bytes are skipped, not searched.

    A subagent is witnessed by the session's transcript until Claude Code creates the
    subagent's own file, which it may do only after the subagent's first tool calls. That
    move is no lost context: the own file records everything the subagent's context holds,
    so it is searched from its start instead.
    """
    if not path:
        return "", {}
    old_path, old_offset, old_ino = seen.get("path"), seen.get("offset"), seen.get("ino")
    known = isinstance(old_offset, int) and old_offset > 0 and old_path == path
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return ("transcript no longer readable" if old_path and must_scan else ""), {}
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return ("transcript is not a regular file" if must_scan else ""), {}
        now = {"path": path, "offset": st.st_size, "ino": st.st_ino}
        if not must_scan:
            return "", now
        if old_path and old_path != path:
            if not (isinstance(old_path, str) and own_transcript_of(old_path, path)):
                return "transcript path changed", now
            known = False  # its own file appeared (see above): searched from its start
        start = old_offset if known else 0
        assert isinstance(start, int)
        if known and (old_ino != st.st_ino or st.st_size < start):
            return "transcript replaced or truncated", now
        if st.st_size - start > MAX_SCAN_BYTES:
            return "too much new transcript to check", now
        return _search(fd, start, st.st_size), now
    finally:
        os.close(fd)


def _search(fd: int, start: int, end: int) -> str:
    """The first marker found in bytes start..end of `fd`, as a reason; "" when none."""
    tail = b""
    pos = start
    while pos < end:
        data = os.pread(fd, min(_CHUNK, end - pos), pos)
        if not data:
            break
        window = tail + data
        for marker in MARKERS:
            if marker in window:
                return f"transcript shows {marker.decode().strip(chr(34))}"
        tail = window[-_OVERLAP:]
        pos += len(data)
    return ""


def read_generation(folder: str) -> str | None:
    """The session's generation token ("" when none was written); None when unreadable."""
    path = os.path.join(folder, GENERATION_NAME)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return ""
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, MAX_GENERATION_BYTES).decode("ascii", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)


def idle_reason(last_seen: Any, now: float) -> str:
    """Why the time since this context's last event may have cleared results, or ""."""
    if not isinstance(last_seen, (int, float)) or isinstance(last_seen, bool) or not last_seen:
        return ""
    if now + CLOCK_SKEW_S < last_seen:
        return "clock went backwards"
    if now - last_seen >= IDLE_RESET_S:
        return f"idle for {int(now - last_seen)} s"
    return ""
