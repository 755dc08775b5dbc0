"""Rewrite instruction files into the pointer layout: `lint --fix` and `split`.

Both plan first (a list of `Change`s, pure apart from reading files), then apply.
`plan_fix` turns each `@import` into a plain pointer, adding a one-line gist of the
target when the line says nothing else about it. `plan_split` moves the long sections
of a file into topic files and leaves the heading plus one pointer line; it never drops
a line of text (every original line survives in the index or in a topic file) and a
second run plans nothing. Docs: docs/CLAUDE-MD.md.
"""

from __future__ import annotations

import os
import re

from ccstate import store
from ccstate.errors import CcstateError
from ccstate.instructions import gists, mdscan
from ccstate.instructions import loaded as instructions
from ccstate.paths import is_within as within
from ccstate.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.instructions.lint import Report
    from ccstate.instructions.loaded import ImportRef

FIXABLE = ("loaded", "duplicate", "too-deep", "external")  # the target exists and is text


class Change(Record):
    """One file to write: `before` is None for a new file; `notes` say what changed."""

    __slots__ = ("after", "before", "notes", "path")
    path: str
    before: str | None
    after: str
    notes: tuple[str, ...]

    def __init__(self, path: str, before: str | None, after: str, notes: tuple[str, ...]) -> None:
        self._init(path=path, before=before, after=after, notes=notes)


# ----------------------------------------------------------------------------- lint --fix


def plan_fix(report: Report) -> list[Change]:
    """Plain pointers for every @import written in a project instruction file."""
    ctx = report.context
    by_source: dict[str, list[ImportRef]] = {}
    for ref in ctx.loaded.imports:
        if ref.status in FIXABLE and within(ref.source, ctx.project):
            by_source.setdefault(ref.source, []).append(ref)
    changes: list[Change] = []
    for source in sorted(by_source):
        text = instructions.read_text(source)
        if text is None:
            continue
        lines = text.split("\n")
        notes: list[str] = []
        for number in sorted({r.line for r in by_source[source]}):
            refs = [r for r in by_source[source] if r.line == number]
            pairs = [(r.raw, _gist_of(r.target, ctx.loaded)) for r in refs]
            lines[number - 1] = rewrite_imports(lines[number - 1], pairs)
            for r in refs:
                saved = f" (-{ctx.costs[r.target]:,} tokens)" if r.status == "loaded" else ""
                notes.append(f"{ctx.show(source)}:{number}: @{r.raw} -> plain pointer{saved}")
        after = "\n".join(lines)
        if after != text:
            changes.append(Change(source, text, after, tuple(notes)))
    return changes


def rewrite_imports(line: str, pairs: list[tuple[str, str]]) -> str:
    """`line` with each `@raw` (outside code spans) as a backticked plain path.

    When the line says too little about the target on its own, each pointer gets its
    gist in parentheses, so the index line tells what lives behind it.
    """
    plain = _substitute(line, [(raw, "") for raw, _gist in pairs])
    if mdscan.description_words(plain) >= mdscan.DESCRIPTION_MIN_WORDS:
        return plain
    return _substitute(line, pairs)


def _substitute(line: str, pairs: list[tuple[str, str]]) -> str:
    spans = mdscan.code_spans(line)
    out, pos = [], 0
    for start, end, _content in [*spans, (len(line), len(line), "")]:
        segment = line[pos:start]
        for raw, gist in pairs:
            pointer = f"`{mdscan.import_path(raw)}`" + (f" ({gist})" if gist else "")
            pattern = r"(?<![^\s*_\[>|~])@" + re.escape(raw) + r"(?![^\s*_\]<|~])"
            segment = re.sub(pattern, pointer.replace("\\", "\\\\"), segment)
        out.append(segment + line[start:end])
        pos = end
    return "".join(out)


def _gist_of(target: str, loaded: instructions.LoadedSet) -> str:
    text = next((f.text for f in loaded.files if f.path == target), None)
    if text is None:
        text = mdscan.content_as_loaded(instructions.read_text(target) or "")
    return gists.gist(text)


# ----------------------------------------------------------------------------- split


def plan_split(path: str, project: str, topic_dir: str, min_lines: int) -> list[Change]:
    """Topic files for the sections of `path` longer than `min_lines`, and the new index.

    Sections are cut at the highest heading level below a single leading title;
    headings inside code or HTML blocks do not count.
    """
    text = instructions.read_text(path)
    if text is None:
        raise CcstateError(f"{path}: cannot be read; pass an existing markdown file")
    lines = text.split("\n")
    sections = _sections(text, len(lines))
    folder = os.path.join(project, topic_dir)
    taken: set[str] = set()
    moves: list[tuple[int, int, str, str, list[str]]] = []
    for start, end, title in sections:
        body = _trim(lines[start + 1 : end])
        if len(body) > min_lines:
            content = f"# {title}\n\n" + "\n".join(body) + "\n"
            moves.append((start, end, content, _topic_path(folder, title, content, taken), body))
    topics: list[Change] = []
    index = list(lines)
    for start, end, content, topic, body in reversed(moves):
        rel = os.path.relpath(topic, project)
        tail = [""] if end < len(lines) and not lines[end - 1].strip() else []
        gist = gists.gist("\n".join(body))
        index[start:end] = [lines[start], "", f"`{rel}` ({gist})", *tail]
        note = f"move {lines[start].strip()!r} ({len(body)} lines, {start + 2}-{end}) -> {rel}"
        topics.insert(0, Change(topic, instructions.read_text(topic), content, (note,)))
    if not topics:
        return []
    after = "\n".join(index)
    counts = len(text.splitlines()), len(after.splitlines())
    summary = f"{os.path.relpath(path, project)}: {counts[0]} -> {counts[1]} lines"
    return [*topics, Change(path, text, after, (summary,))]


def _sections(text: str, total: int) -> list[tuple[int, int, str]]:
    """(heading index, end index, title) of each section at the split level."""
    heads = [(n - 1, *h) for n, line in mdscan.prose_lines(text) if (h := mdscan.heading(line))]
    candidates = heads
    if heads and heads[0][1] == 1 and sum(level == 1 for _i, level, _t in heads) == 1:
        candidates = heads[1:]
    if not candidates:
        return []
    level = min(lv for _i, lv, _t in candidates)
    found: list[tuple[int, int, str]] = []
    for i, (index, lv, title) in enumerate(heads):
        if lv != level or (index, lv, title) not in candidates:
            continue
        end = next((j for j, lv2, _t in heads[i + 1 :] if lv2 <= level), total)
        found.append((index, end, title or "section"))
    return found


def _trim(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _topic_path(folder: str, title: str, content: str, taken: set[str]) -> str:
    """A free topic file name for `title` (or the one already holding exactly `content`)."""
    stem = gists.slug(title)
    for n in range(1, 1000):
        path = os.path.join(folder, f"{stem}.md" if n == 1 else f"{stem}-{n}.md")
        if path in taken:
            continue
        existing = instructions.read_text(path)
        if (existing is None and not os.path.exists(path)) or existing == content:
            taken.add(path)
            return path
    raise CcstateError(f"{folder}: no free file name for {stem}.md; clean up the folder")


# ----------------------------------------------------------------------------- apply


def apply_changes(changes: list[Change]) -> list[Change]:
    """Write the changes (new files first); return those that changed a file.

    A file that changed since it was planned, or a new file that appeared, stops
    everything before anything is written.
    """
    todo = [c for c in changes if c.before != c.after]
    for change in todo:
        current = instructions.read_text(change.path)
        if current != change.before:
            raise CcstateError(
                f"{change.path}: changed since the plan was made; run the command again"
            )
    for change in sorted(todo, key=lambda c: c.before is not None):
        store.atomic_write_text(change.path, change.after)
    return todo


def saved_tokens(report: Report) -> int:
    """Tokens the fix takes out of every session: all files loaded through imports."""
    return sum(n for f, n in report.files if f.kind == "import")
