"""The agent's own writes (issue #24): after a Write the context holds the file as written (the
tool call's input stays in the conversation until compaction); after an Edit or MultiEdit of a
file whose whole text the context held, it holds that text with the edit applied. Pure, but for
`disk_view`, which reads the file. Standard library only: the PostToolUse hook imports it.

`edited` applies edits exactly as Claude Code 2.1.328 and 2.1.332 do (`z()` and `H7s()` in their
binaries): each edit in turn, `old_string` once unless `replace_all`; an `old_string` found more
than once without `replace_all`, or not at all, fails the whole call; an empty `new_string`
deletes the line ending after an `old_string` that has none, when the text holds it; an empty
`old_string` makes `new_string` the whole text. Claude Code normalises the input before it
applies it and before it records it in the conversation (trailing whitespace of `new_string`
outside markdown files, `<fnr>`-style tags), so the hook's `tool_input` is what the context
holds. Curly quotes it matches for the model (`yJe()`) are not modelled: such an edit does not
apply to the held text as written, and nothing is recorded.

Whatever is unsure gives None (nothing recorded): an edit that does not apply with certainty,
a file whose text the context does not hold in full, a user-modified call, a file on disk
that is not exactly the text the context must hold (`disk_view`, compared by the caller).
"""

from __future__ import annotations

import os
import stat

from ccstate.ledger.core import MAX_HISTORY, MAX_PATHS, known_lines, sha256, updated
from ccstate.ledger.records import WRITE_TOOLS, Ledger, Segment, write_no

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ccstate.ledger.core import Loader

MAX_VIEW_BYTES = 2 << 20  # a whole-file Read stops at 256 KiB; larger files are left alone


class WriteEvent:
    """One successful Write / Edit / MultiEdit as the context holds it. `content` is a Write's
    text; `edits` an Edit's or MultiEdit's (old, new, replace_all) triples; `original_lines`
    the line count of the file before the call when Claude Code reported it (`originalFile`),
    else 0; `skip` says why nothing can be recorded ("" when something may be)."""

    __slots__ = ("content", "edits", "original_lines", "path", "skip", "tool", "tool_use_id")

    def __init__(
        self,
        tool: str,
        path: str,
        *,
        content: str | None = None,
        edits: tuple[tuple[str, str, bool], ...] = (),
        original_lines: int = 0,
        tool_use_id: str = "",
        skip: str = "",
    ) -> None:
        self.tool = tool
        self.path = path
        self.content = content
        self.edits = edits
        self.original_lines = original_lines
        self.tool_use_id = tool_use_id
        self.skip = skip

    def __repr__(self) -> str:
        return f"WriteEvent({self.tool!r}, {self.path!r}, skip={self.skip!r})"


def write_event(
    tool: str, tool_input: Mapping[str, Any], response: Any, path: str, tool_use_id: str = ""
) -> WriteEvent:
    """The call's payload (PostToolUse, or a transcript's tool_use input and toolUseResult) as
    a WriteEvent; `path` is the normalised `file_path`."""
    resp = response if isinstance(response, dict) else {}
    if tool not in WRITE_TOOLS:
        return WriteEvent(tool, path, tool_use_id=tool_use_id, skip=f"not a write ({tool})")
    if not path or path.endswith(".ipynb"):
        return WriteEvent(tool, path, tool_use_id=tool_use_id, skip="no path or a notebook")
    if resp.get("userModified"):
        return WriteEvent(tool, path, tool_use_id=tool_use_id, skip="the user modified it")
    original = resp.get("originalFile", resp.get("originalFileContents"))
    lines = original.count("\n") + 1 if isinstance(original, str) else 0
    if tool == "Write":
        content = tool_input.get("content")
        if not isinstance(content, str):
            return WriteEvent(tool, path, tool_use_id=tool_use_id, skip="no content")
        return WriteEvent(tool, path, content=content, tool_use_id=tool_use_id)
    edits = _edits(tool, tool_input)
    if edits is None:
        return WriteEvent(tool, path, tool_use_id=tool_use_id, skip="edits not understood")
    return WriteEvent(tool, path, edits=edits, original_lines=lines, tool_use_id=tool_use_id)


def _edits(tool: str, tool_input: Mapping[str, Any]) -> tuple[tuple[str, str, bool], ...] | None:
    raw = tool_input.get("edits") if tool == "MultiEdit" else [tool_input]
    if not isinstance(raw, list) or not raw:
        return None
    out = []
    for one in raw:
        if not isinstance(one, dict):
            return None
        old, new, every = one.get("old_string"), one.get("new_string"), one.get("replace_all")
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        if every is not None and not isinstance(every, bool):
            return None
        out.append((old, new, bool(every)))
    return tuple(out)


def edited(text: str, edits: Sequence[tuple[str, str, bool]]) -> str | None:
    """`text` with `edits` applied as Claude Code applies them; None where Claude Code would
    have failed the call (so a successful call that gets None here was applied to other text
    than `text`)."""
    if not text and len(edits) == 1 and edits[0][0] == "" and edits[0][1] == "":
        return ""
    result = text
    written: list[str] = []
    for old, new, every in edits:
        bare = old.rstrip("\n")
        if bare and any(bare in earlier for earlier in written):
            return None  # "old_string is a substring of a new_string from a previous edit"
        if old == "":
            after = new
        else:
            if not every and _twice(result, old):
                return None
            target = old
            if new == "" and not old.endswith("\n") and old + "\n" in result:
                target = old + "\n"
            after = result.replace(target, new) if every else result.replace(target, new, 1)
        if after == result:
            return None  # not found (or a no-op, which Claude Code refuses as well)
        result = after
        written.append(new)
    return None if result == text else result


def _twice(text: str, part: str) -> bool:
    first = text.find(part)
    return first != -1 and text.find(part, first + len(part)) != -1


def held_after(event: WriteEvent, before: str | None) -> str | None:
    """The whole text the context holds after `event`, given `before`, the whole text it held
    of the file (None: not held). None when unsure."""
    if event.skip:
        return None
    if event.tool == "Write":
        return event.content
    if event.edits and event.edits[0][0] == "" and len(event.edits) == 1:
        return event.edits[0][1] if before in (None, "") else None  # a file created by Edit
    if before is None:
        return None
    return edited(before, event.edits)


def view(data: bytes) -> str | None:
    """A file's bytes as a whole-file Read shows them (Claude Code reads UTF-8 and turns CRLF
    into LF); None when it might show something else (not UTF-8, a byte-order mark)."""
    if data.startswith(b"\xef\xbb\xbf") or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text.replace("\r\n", "\n") if "\r" in text else text


def disk_view(path: str) -> tuple[str | None, bytes | None, list[int] | None]:
    """(the regular file at `path` as a Read would show it, its bytes, its stat stamp); None
    parts when it cannot be read with certainty (not regular, over MAX_VIEW_BYTES, not UTF-8).
    Never blocks on a FIFO or a device."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None, None, None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_VIEW_BYTES:
            return None, None, None
        chunks = []
        total = 0
        while total <= MAX_VIEW_BYTES and (chunk := os.read(fd, MAX_VIEW_BYTES + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_VIEW_BYTES:
            return None, None, None
        data = b"".join(chunks)
        return view(data), data, [st.st_mtime_ns, st.st_size, st.st_ino]
    except OSError:
        return None, None, None
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- bookkeeping


def held_text(ledger: Ledger, path: str, lines: int, load: Loader) -> str | None:
    """The whole text the context last received of `path`, when it received every line:
    lines 1..`lines` (the file's line count before the write, 0 when unknown: up to the last
    line any segment holds). None when a line is missing or its text is not kept."""
    segments = ledger.paths.get(path, ())
    if not segments or path in ledger.unheld:
        return None
    last = lines or max(s.end for s in segments)
    got = known_lines(ledger, path, 1, last, load)
    return None if got is None else "\n".join(got)


def record_write(
    ledger: Ledger,
    tool: str,
    path: str,
    held: str | None,
    reason: str,
    tool_use_id: str = "",
    sha: str = "",
) -> Ledger:
    """The ledger after the context's own `tool` call (Write, Edit, MultiEdit) wrote `path`.
    `held` is the whole text the context now holds of the file, verified against the disk
    (ledger/writes.py), or None: then the path's segments stay, true of what its Reads
    delivered, and a later Read is compared with them. Any write ends the escape hatch."""
    count = ledger.writes.get(tool, 0) + 1
    writes = {**ledger.writes, tool: count}
    no = write_no(tool, count)
    paths = dict(ledger.paths)
    stats = dict(ledger.stats)
    stats["writes"] = stats.get("writes", 0) + 1
    if held is not None:
        sha = sha or sha256(held)
        paths.pop(path, None)
        paths[path] = (Segment(1, held.count("\n") + 1, sha, no, "1:"),)
        while len(paths) > MAX_PATHS:
            del paths[next(iter(paths))]
        stats["writes_held"] = stats.get("writes_held", 0) + 1
    unheld = tuple(p for p in ledger.unheld if p != path and p in paths)
    if held is None and path in paths:
        unheld = (*unheld, path)
    entry = {
        "n": count,
        "tool": tool,
        "tool_use_id": tool_use_id,
        "path": path,
        "sha": sha if held is not None else "",
        "kind": "held" if held is not None else "not held",
        "reason": reason,
        "epoch": ledger.epoch,
    }
    return updated(
        ledger,
        paths=paths,
        pending=None,
        history=(*ledger.history[-(MAX_HISTORY - 1) :], entry),
        stats=stats,
        writes=writes,
        unheld=unheld,
    )
