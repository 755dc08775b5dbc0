"""What `ccstate replay` needs for the context's own writes and Claude Code's own read dedupe
(issue #24, #23): the file after a Write or Edit as the transcript records it (the hook reads
the disk; a transcript holds Claude Code's `toolUseResult` instead), the safety check's own
view of each file (kept apart from the ledger's segments, and applying edits by its own code),
and the stubs Claude Code answered repeated Reads with. CLI only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ccstate.ledger import writes
from ccstate.ledger.text import CC_STUB_PREFIXES

UNCHANGED_TYPE = "file_unchanged"


def is_cc_stub(response: Any, text: str) -> bool:
    """Is this Read result Claude Code's own "file unchanged" answer (not file content)?"""
    if isinstance(response, dict) and response.get("type") == UNCHANGED_TYPE:
        return True
    return text.lstrip().startswith(CC_STUB_PREFIXES)


def file_after(tool: str, tool_input: Mapping[str, Any], result: Any) -> str | None:
    """The file after a successful Write / Edit / MultiEdit, as a Read would show it, from the
    transcript's `toolUseResult` (what stands in for the disk the hook reads): a Write's
    content; Claude Code's own edit (the strings it applied) of the file it read
    (`originalFile`, already as a Read shows it). None when the record does not say."""
    if not isinstance(result, dict) or result.get("userModified"):
        return None
    if tool == "Write":
        content = result.get("content")
        if not isinstance(content, str) or content != tool_input.get("content"):
            return None
        return writes.view(content.encode("utf-8", "surrogatepass"))
    original = result.get("originalFile", result.get("originalFileContents"))
    if not isinstance(original, str):
        return None
    if tool == "Edit":
        applied = {
            "old_string": result.get("oldString"),
            "new_string": result.get("newString"),
            "replace_all": result.get("replaceAll", False),
        }
        event = writes.write_event("Edit", applied, {}, "/replay")
    else:
        event = writes.write_event("MultiEdit", {"edits": result.get("edits")}, {}, "/replay")
    return None if event.skip else writes.held_after(event, original)


class Views:
    """The safety check's own view of what one context knows of each file: line number ->
    text, from the Read results it received verbatim and from its own writes. Edits are
    applied by `apply_edits` here, not by ledger/writes.py, so the check does not share the
    ledger's code."""

    def __init__(self) -> None:
        self.lines: dict[str, dict[int, str]] = {}

    def clear(self) -> None:
        self.lines.clear()

    def delivered(self, path: str, start: int, lines: Sequence[str]) -> None:
        known = self.lines.setdefault(path, {})
        for offset, line in enumerate(lines):
            known[start + offset] = line

    def text(self, path: str, count: int = 0) -> str | None:
        """The whole file as this context knows it (lines 1..count, or up to the last line it
        knows); None when a line is unknown."""
        known = self.lines.get(path)
        if not known:
            return None
        last = count or max(known)
        if any(n not in known for n in range(1, last + 1)):
            return None
        return "\n".join(known[n] for n in range(1, last + 1))

    def wrote(self, path: str, text: str | None) -> None:
        """After a write: the context knows `text` as the whole file (None: the check cannot
        say what it knows, so nothing)."""
        if text is None:
            self.lines.pop(path, None)
        else:
            self.lines[path] = dict(enumerate(text.split("\n"), 1))

    def after_write(
        self, tool: str, path: str, tool_input: Mapping[str, Any], original_lines: int
    ) -> str | None:
        """The whole file as this context knows it after its own `tool` call."""
        if tool == "Write":
            content = tool_input.get("content")
            return content if isinstance(content, str) else None
        raw = tool_input.get("edits") if tool == "MultiEdit" else [tool_input]
        if not isinstance(raw, list):
            return None
        before = self.text(path, original_lines)
        return apply_edits(before, raw)


def apply_edits(text: str | None, edits: Sequence[Any]) -> str | None:
    """Claude Code's edit semantics written for the check (see ledger/writes.py `edited`)."""
    for edit in edits:
        if not isinstance(edit, dict):
            return None
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        if old == "":  # the new string is the file (Claude Code's rule for any edit)
            text = new
            continue
        if text is None:
            return None
        found = text.count(old)
        if found == 0 or (found > 1 and not edit.get("replace_all")):
            return None
        if new == "" and not old.endswith("\n") and old + "\n" in text:
            old += "\n"
        text = text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)
    return text
