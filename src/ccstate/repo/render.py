"""`ccstate find`'s answer as text: one block per location (pure)."""

from __future__ import annotations

from ccstate.recall.text import clip, one_line
from ccstate.repo.search import Hit

FOOTER = "Pointers, not the code: Read the lines you will edit."
NOTHING = "find: nothing in the {files} indexed files matches {query!r}; try other words."


def render_hits(query: str, hits: list[Hit], files: int) -> str:
    """Header, each hit (`path:start-end`, what it is, its first line, the lines holding the
    query's words, other matching definitions in the file), footer."""
    shown = clip(one_line(query), 60)
    if not hits:
        return NOTHING.format(files=f"{files:,}", query=shown)
    out = [f"find: {len(hits)} location(s) for {shown!r} ({files:,} files indexed)"]
    for number, hit in enumerate(hits, start=1):
        what = f"{hit.kind} {hit.name}" if hit.name else "lines"
        out.append(f"{number}. {hit.location}  {what}: {clip(hit.sig, 90)}")
        out.extend(f"     {line}: {text}" for line, text in hit.snippet)
        if hit.also:
            out.append(f"     also: {', '.join(hit.also)}")
    out.append(FOOTER)
    return "\n".join(out)
