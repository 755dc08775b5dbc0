"""What the project is, in a sentence or two: the first paragraph of prose in its README.

Markdown and reStructuredText are read only as far as telling prose from the rest: titles,
badges and images, HTML, code, lists and tables are skipped; links keep their text.
"""

from __future__ import annotations

import re
from pathlib import Path

NAMES = ("README.md", "README.rst", "README.txt", "README", "Readme.md", "readme.md")
MAX_CHARS = 200
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|`([^`<]+?)\s*<[^>]+>`_+|:\w+:`([^`]+)`|``([^`]+)``")
_UNDERLINE = re.compile(r"^([=\-~^*#_+`])\1{2,}\s*$")
_TAG = re.compile(r"<[^>]+>")
_NOT_PROSE = re.compile(
    r"^(?:#|=+$|-+$|~+$|\*+$|\^+$|\[!\[|!\[|\.\. |<|```|~~~|\||[-*+] |\d+[.)] |>|:\w+:)"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def first_paragraph(project: Path) -> str:
    """The README's first prose paragraph, cut at a sentence end within MAX_CHARS ('' if none)."""
    for name in NAMES:
        path = project / name
        try:
            text = path.read_text(encoding="utf-8")[:20_000] if path.is_file() else None
        except (OSError, UnicodeDecodeError):
            continue
        if text is not None:
            return _shorten(_paragraph(text))
    return ""


def _paragraph(text: str) -> str:
    lines: list[str] = []
    fenced = False
    rows = text.splitlines()
    for i, raw in enumerate(rows):
        line = raw.strip()
        if i + 1 < len(rows) and _UNDERLINE.match(rows[i + 1].strip()) and line:
            if lines:
                break
            continue  # a setext or rST title: the line above its underline
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or (raw[:1].isspace() and not lines):  # code, or an rST directive's body
            continue
        if not line:
            if lines:
                break
            continue
        if _NOT_PROSE.match(line) or _UNDERLINE.match(line):
            if lines:
                break
            continue
        lines.append(line)
    joined = " ".join(lines)
    prose = _TAG.sub("", _LINK.sub(lambda m: next((g for g in m.groups() if g), ""), joined))
    return " ".join(prose.replace("**", "").split())


def _shorten(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    kept = ""
    for sentence in _SENTENCE_END.split(text):
        if len(kept) + len(sentence) + 1 > MAX_CHARS:
            break
        kept = f"{kept} {sentence}".strip()
    return kept or text[: MAX_CHARS - 3].rstrip() + "..."
