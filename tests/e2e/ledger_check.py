"""Independent checks of what the read ledger put in front of the model (issue #3).

Works on request bodies only (what the model saw), never on ccstate's state. Each agent request's
`messages` is one context: walking it in order, `model_views` rebuilds, after every Read, the
lines of that file the model can know at that point: the numbered lines of full results, plus
the earlier lines a notice or an omission points back to, plus a diff applied to the text of the
Read it names ("Read #n" = the n-th Read of this context), plus the context's own writes: a
Write's content, an Edit's strings applied to what the model knew of the whole file ("Write #n",
"Edit #n" = the n-th of that tool in this context). A test compares those views with the file as
it was, so a notice that points at text the model never got, or at different text, fails it.
"""

from __future__ import annotations

import re
from typing import Any

from fake_api import block_text, messages

NOTICE = "0\t[ccstate: not file content] "
_NUMBERED = re.compile(r"^(\d+)\t(.*)$")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_RANGE = re.compile(r"lines (\d+)-(\d+)")
_BASE = re.compile(r"changed since your (Read|Write|Edit) #(\d+)")
WRITES = ("Write", "Edit")


class ReadView:
    """One Read as the model saw it: the result text, the ccstate note after it (if any) and
    the lines of the file it could know right after it."""

    def __init__(self, tool_use_id: str, tool_input: dict[str, Any], text: str) -> None:
        self.tool_use_id = tool_use_id
        self.input = tool_input
        self.path = str(tool_input.get("file_path"))
        self.text = text
        self.note = ""
        self.known: dict[int, str] = {}

    @property
    def kind(self) -> str:
        if self.text.startswith(NOTICE):
            return "identical" if ": unchanged since your " in self.text else "diff"
        return "unseen" if "this Read result shows only lines" in self.note else "full"


class WriteView:
    """One of the context's own Writes or Edits, and the whole file the model knows after it
    (None: it cannot know the whole file)."""

    def __init__(self, tool: str, tool_input: dict[str, Any]) -> None:
        self.tool = tool
        self.input = tool_input
        self.path = str(tool_input.get("file_path"))
        self.after: dict[int, str] | None = None


def model_views(body: dict[str, Any]) -> list[ReadView]:
    """Every Read in this context, in order, with what the model knows of the file after it."""
    inputs: dict[str, tuple[str, dict[str, Any]]] = {}
    events: list[ReadView | WriteView] = []
    for msg in messages(body):
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") in ("Read", *WRITES):
                inputs[block["id"]] = (block["name"], block.get("input") or {})
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in inputs:
                tid = block["tool_use_id"]
                name, tool_input = inputs[tid]
                if name == "Read":
                    events.append(ReadView(tid, tool_input, block_text(block.get("content"))))
                elif not block.get("is_error"):
                    events.append(WriteView(name, tool_input))
            elif "[ccstate] " in str(block.get("text", "")):
                reads = [e for e in events if isinstance(e, ReadView)]
                if reads and not reads[-1].note:
                    reads[-1].note = str(block.get("text"))
    return _known(events)


def _known(events: list[ReadView | WriteView]) -> list[ReadView]:
    known: dict[str, dict[int, str]] = {}
    views: list[ReadView] = []
    written: dict[tuple[str, int], WriteView] = {}
    counts: dict[str, int] = {}
    for event in events:
        before = known.setdefault(event.path, {})
        if isinstance(event, WriteView):
            counts[event.tool] = counts.get(event.tool, 0) + 1
            written[(event.tool, counts[event.tool])] = event
            event.after = _after_write(event, before)
            if event.after is not None:  # else the Reads' lines are all the model has verbatim
                known[event.path] = dict(event.after)
            continue
        if event.kind == "diff":
            # "changed since your Read #n" / "Write #n" / "Edit #n": the diff applies to what
            # that Read returned, or to the file as that write left it
            tool, n = _BASE.search(event.text).groups()  # type: ignore[union-attr]
            if tool == "Read":
                base = numbered_lines(views[int(n) - 1].text)
            else:
                base = written[(tool, int(n))].after or {}
            before.update(apply_diff(base, event.note))
        elif event.kind == "full" or event.kind == "unseen":
            before.update(numbered_lines(event.text))
        event.known = dict(before)
        views.append(event)
    return views


def _after_write(write: WriteView, before: dict[int, str]) -> dict[int, str] | None:
    """The whole file the model knows after its own write: a Write's content; an Edit's
    strings applied (first occurrence, or every one with replace_all) to the whole file it
    knew, when it knew every line."""
    if write.tool == "Write":
        return dict(enumerate(str(write.input.get("content")).split("\n"), 1))
    if not before or sorted(before) != list(range(1, max(before) + 1)):
        return None
    text = "\n".join(before[n] for n in range(1, max(before) + 1))
    old, new = str(write.input.get("old_string")), str(write.input.get("new_string"))
    if old not in text:
        return None
    count = -1 if write.input.get("replace_all") else 1
    return dict(enumerate(text.replace(old, new, count).split("\n"), 1))


def numbered_lines(text: str) -> dict[int, str]:
    lines: dict[int, str] = {}
    for row in text.split("\n"):
        match = _NUMBERED.match(row)
        if match:
            lines[int(match.group(1))] = match.group(2)
    return lines


def apply_diff(old: dict[int, str], note: str) -> dict[int, str]:
    """`old` (line -> text) with the unified diff in a ccstate note applied."""
    rows = note.split("\n")
    start = next(i for i, row in enumerate(rows) if row.startswith("@@"))
    new: dict[int, str] = {}
    shift, last_old = 0, 0
    i = start
    while i < len(rows):
        match = _HUNK.match(rows[i])
        assert match, rows[i]
        o_start = int(match[1])
        for n in range(last_old + 1, o_start):  # untouched lines before the hunk
            if n in old:
                new[n + shift] = old[n]
        o_line, n_line = o_start, int(match[3])
        i += 1
        while i < len(rows) and not rows[i].startswith("@@"):
            tag, body = rows[i][:1], rows[i][1:]
            if tag == " ":
                new[n_line] = body
                o_line, n_line = o_line + 1, n_line + 1
            elif tag == "-":
                o_line += 1
            elif tag == "+":
                new[n_line] = body
                n_line += 1
            i += 1
        shift = n_line - o_line
        last_old = o_line - 1
    for n, text in old.items():  # untouched lines after the last hunk
        if n > last_old:
            new[n + shift] = text
    return new


def wrong_views(views: list[ReadView], files: dict[str, list[str]]) -> list[str]:
    """Reads after which the model's view of the requested lines differs from `files` (the file
    text at that Read, as lines; one entry per tool_use_id or per path)."""
    problems: list[str] = []
    for view in views:
        lines = files.get(view.tool_use_id) or files.get(view.path)
        if lines is None:
            continue
        offset = int(view.input.get("offset") or 1)
        limit = view.input.get("limit")
        end = min(len(lines), offset + int(limit) - 1) if limit else len(lines)
        for n in range(max(offset, 1), end + 1):
            if view.known.get(n) != lines[n - 1]:
                problems.append(
                    f"{view.tool_use_id} ({view.kind}) {view.path} line {n}: model knows "
                    f"{view.known.get(n)!r}, file has {lines[n - 1]!r}"
                )
                break
    return problems


def requested_range(note_or_notice: str) -> tuple[int, int] | None:
    match = _RANGE.search(note_or_notice)
    return (int(match[1]), int(match[2])) if match else None
