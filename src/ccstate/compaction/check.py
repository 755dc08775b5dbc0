"""Did the summary keep what the block asked for? (pure; standard library only)

Claude Code keeps only the text inside the summariser's last `<summary>…</summary>` (its
`<analysis>` is dropped; reference §3), so that is what is checked; a reply without the tags is
kept whole and checked whole. An item is kept when its key is in the summary:

- a decision ID (`D7`) as a word (`D7` in `D7,` or `(D7)`, not in `D70`, `XD7` or `D7x`);
- a path as written, or its file name as a word (`app.py` for `src/app.py`);
- a command (a failing check, an error's Bash command) word for word, whitespace aside.

Todos and next steps are asked for but not checked: a summary may word them freely. A summary
past `MAX_CHARS` is checked on its first `MAX_CHARS` characters (the reason is logged).
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ccstate.compaction.steer import Item

MAX_CHARS = 2_000_000
_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|\Z)", re.S)
_WS = re.compile(r"\s+")
_NOT_NAME = r"A-Za-z0-9_\-"


def summary_part(raw: str) -> str:
    """The part of the summariser's reply Claude Code keeps."""
    found = _SUMMARY.findall(raw)
    return found[-1] if found else raw


def is_kept(kind: str, key: str, summary: str) -> bool:
    if kind == "decision":
        return re.search(rf"(?<![A-Za-z0-9_]){re.escape(key)}(?![A-Za-z0-9_])", summary) is not None
    if " " in key.strip() or kind == "failing":
        return _WS.sub(" ", key).strip() in _WS.sub(" ", summary)
    return _has_path(key, summary)


def _has_path(path: str, summary: str) -> bool:
    if _word(path, summary):
        return True
    name = os.path.basename(path.rstrip("/"))
    return bool(name) and name != path and _word(name, summary)


def _word(needle: str, text: str) -> bool:
    pattern = rf"(?<![{_NOT_NAME}.]){re.escape(needle)}(?![{_NOT_NAME}])(?!\.[A-Za-z0-9])"
    return re.search(pattern, text) is not None


def check(items: Sequence[Item], raw_summary: str) -> tuple[list[Item], list[Item]]:
    """(kept, lost) among the items that can be checked, in the items' order."""
    from ccstate.compaction.steer import CHECKED

    summary = summary_part(raw_summary[:MAX_CHARS])
    kept: list[Item] = []
    lost: list[Item] = []
    for item in items:
        kind, key, _text = item
        if kind not in CHECKED or not key:
            continue
        (kept if is_kept(kind, key, summary) else lost).append(item)
    return kept, lost


def in_text(item: Item, text: str) -> bool:
    """Is the item's key in `text` (the capsule the model got after the compaction)?"""
    kind, key, _label = item
    return bool(key) and is_kept(kind, key, text)


REMINDER_MAX = 600
_SUFFIX = {
    "file": " (edited, not committed)",
    "failing": " (failing)",
    "error": " (unresolved)",
    "handoff": " (the handoff file)",
}


def reminder(lost: Sequence[Item], handoff_path: str) -> str:
    """One line giving the model back what the summary lost (at most `REMINDER_MAX` chars)."""
    head = "[ccstate] The compaction summary left these out; they still hold: "
    tail = f". All of it: {handoff_path}" if handoff_path else ""
    parts = [text + _SUFFIX.get(kind, "") for kind, _key, text in lost]

    def line(count: int) -> str:
        more = len(parts) - count
        return head + "; ".join(parts[:count] + ([f"+{more} more"] if more else [])) + tail

    count = len(parts)
    while count > 1 and len(line(count)) > REMINDER_MAX:
        count -= 1
    return line(count)[:REMINDER_MAX]
