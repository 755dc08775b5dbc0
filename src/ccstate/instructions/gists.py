"""Markdown said in one line: a text's gist (its title and first sentence), prose without its
decoration, a file stem for a section title. What `lint` suggests for a pointer and `split`
writes for a topic file (pure, standard library only).
"""

from __future__ import annotations

import re

from ccstate.instructions import mdscan


def clean_inline(text: str) -> str:
    """Prose without markdown decoration, list markers or import-like `@` tokens."""
    text = mdscan.LINK.sub(lambda m: m.group(2), text)
    text = re.sub(r"^\s*(?:>\s*)*(?:[-+*]|\d{1,9}[.)])?\s*", "", text)
    text = re.sub(r"(?:^|\s)@\S+", " ", text)
    text = re.sub(r"[`*|<>\[\]]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def gist(text: str, limit: int = 90) -> str:
    """One line saying what a markdown text holds: its title and first sentence."""
    title = first = ""
    for _number, line in mdscan.prose_lines(text):
        head = mdscan.heading(line)
        if head:
            title = title or clean_inline(head[1])
            continue
        if mdscan.THEMATIC.match(line):
            continue
        cleaned = clean_inline(line)
        if len(mdscan.WORD.findall(cleaned)) >= 2:
            first = re.split(r"(?<=[.!?])\s", cleaned, maxsplit=1)[0]
            break
    if title and first and first.lower().startswith(title.lower()):
        title = ""
    joined = ": ".join(p for p in (title, first) if p) or "notes"
    return shorten(joined, limit)


def shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return cut + "…"


def slug(title: str) -> str:
    """A file name stem for a section title: lowercase words joined by '-'."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words)[:60].strip("-") or "section"
