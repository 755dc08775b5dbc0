"""Independent checks of what the read ledger put in front of the model (issue #3).

Works on request bodies only (what the model saw), never on ccstate's state. Each agent request's
`messages` is one context: walking it in order, `model_views` rebuilds, after every Read, the
lines of that file the model can know at that point: the numbered lines of full results, plus
the earlier lines a notice or an omission points back to, plus a diff applied to the text of the
Read it names ("Read #n" = the n-th Read of this context). A test compares those views with
the file as it was, so a notice that points at text the model never got, or at different text,
fails it.
"""

from __future__ import annotations

import re
from typing import Any

from fake_api import block_text, messages

NOTICE = "0\t[ccstate: not file content] "
_NUMBERED = re.compile(r"^(\d+)\t(.*)$")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_RANGE = re.compile(r"lines (\d+)-(\d+)")
_BASE = re.compile(r"changed since your Read #(\d+)")


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
            return "identical" if ": unchanged since your Read" in self.text else "diff"
        return "unseen" if "this Read result shows only lines" in self.note else "full"


def model_views(body: dict[str, Any]) -> list[ReadView]:
    """Every Read in this context, in order, with what the model knows of the file after it."""
    inputs: dict[str, dict[str, Any]] = {}
    views: list[ReadView] = []
    for msg in messages(body):
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") == "Read":
                inputs[block["id"]] = block.get("input") or {}
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in inputs:
                tid = block["tool_use_id"]
                views.append(ReadView(tid, inputs[tid], block_text(block.get("content"))))
            elif views and "[ccstate] " in str(block.get("text", "")) and not views[-1].note:
                views[-1].note = str(block.get("text"))
    known: dict[str, dict[int, str]] = {}
    for view in views:
        before = known.setdefault(view.path, {})
        if view.kind == "diff":
            # "changed since your Read #n": the diff applies to what Read #n returned.
            base = views[int(_BASE.search(view.text)[1]) - 1]  # type: ignore[index]
            before.update(apply_diff(numbered_lines(base.text), view.note))
        elif view.kind == "full" or view.kind == "unseen":
            before.update(numbered_lines(view.text))
        view.known = dict(before)
    return views


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
