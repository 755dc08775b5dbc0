"""`ccstate find`'s answer as text: one block per location (pure).

Each block is held to HIT_CHARS (its last matching lines go first, then the `also:` line),
so five locations stay within about 800 tokens however long the code's lines are."""

from __future__ import annotations

from ccstate.recall.text import clip, one_line
from ccstate.repo.search import Hit

FOOTER = "Pointers, not the code: Read the lines you will edit."
NOTHING = "find: nothing in the {files} indexed files matches {query!r}; try other words."
HIT_CHARS = 440


def render_hits(query: str, hits: list[Hit], files: int) -> str:
    """Header, each hit (`path:start-end`, what it is, its first line, the lines holding the
    query's words, other matching definitions in the file), footer."""
    shown = clip(one_line(query), 60)
    if not hits:
        return NOTHING.format(files=f"{files:,}", query=shown)
    out = [f"find: {len(hits)} location(s) for {shown!r} ({files:,} files indexed)"]
    for number, hit in enumerate(hits, start=1):
        out.extend(_block(number, hit))
    out.append(FOOTER)
    return "\n".join(out)


def _block(number: int, hit: Hit) -> list[str]:
    what = f"{hit.kind} {clip(hit.name, 60)}" if hit.name else "lines"
    head = f"{number}. {hit.location}  {what}: {clip(hit.sig, 90)}"
    lines = [f"     {line}: {text}" for line, text in hit.snippet]
    also = [f"     also: {clip(', '.join(hit.also), 100)}"] if hit.also else []
    while lines and _size([head, *lines, *also]) > HIT_CHARS:
        lines.pop()
    if _size([head, *lines, *also]) > HIT_CHARS:
        also = []
    return [clip(head, HIT_CHARS), *lines, *also]


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)
