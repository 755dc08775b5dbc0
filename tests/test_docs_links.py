"""Every relative link in README and docs/ resolves: the file, and the `#anchor` in it (#40.1).

A link is Markdown's `[text](target)` or `![alt](target)` (a `<target>` in angle brackets
too) and a reference definition `[name]: target`, outside fenced code blocks and code spans.
A target with a scheme (`https:`, `mailto:`) or `//` is not relative and is not checked.
The path is resolved against the document's folder; an anchor must be one GitHub makes of a
heading of the target (its slug: the heading's text lower-cased, characters other than
letters, digits, `_`, `-` and spaces dropped, spaces made `-`; a repeated slug gets `-1`,
`-2`, ...). Headings inside fenced blocks make no anchor. An anchor on a file that is not
Markdown must be a GitHub line anchor (`#L12`, `#L12-L20`).

The first tests feed the checker broken links of each kind, so it can fail.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest

from helpers import REPO

DOCUMENTS = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", *(REPO / "docs").rglob("*.md")])

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)", re.MULTILINE)
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
LINE_ANCHOR = re.compile(r"^L\d+(-L\d+)?$")


# -- what a document holds ------------------------------------------------------------------


def prose(text: str) -> list[str]:
    """The document's lines with fenced blocks blanked, so line numbers stay."""
    lines, fence = [], None
    for line in text.splitlines():
        marker = FENCE.match(line)
        if fence is not None:
            if marker and marker.group(1) == fence and not line.strip().strip(fence[0]):
                fence = None
            lines.append("")
            continue
        if marker:
            fence = marker.group(1)
            lines.append("")
            continue
        lines.append(line)
    return lines


def links(text: str) -> Iterator[tuple[int, str]]:
    """(line number, target) of every link outside code, paragraph by paragraph."""
    lines = prose(text)
    start = 0
    while start < len(lines):
        if not lines[start].strip():
            start += 1
            continue
        end = start
        while end < len(lines) and lines[end].strip():
            end += 1
        paragraph = "\n".join(lines[start:end])
        # Code spans hide links; blank them keeping offsets (and line breaks) where they were.
        paragraph = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), paragraph)
        for pattern in (INLINE_LINK, REFERENCE):
            for match in pattern.finditer(paragraph):
                target = match.group(1).strip("<>")
                yield start + 1 + paragraph.count("\n", 0, match.start()), target
        start = end


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (github-slugger, on the rendered text)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = CODE_SPAN.sub(lambda m: m.group(2), text).replace("**", "")
    text = re.sub(r"<[^>]+>", "", text).lower()
    kept = "".join(c for c in text if c in " -" or unicodedata.category(c)[0] in "LMN" or c == "_")
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a document has: its headings' slugs (repeats numbered) and `<a id>`s."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose(text):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(HTML_ANCHOR.findall(line))
    return found


# -- what a link must resolve to ------------------------------------------------------------


def check_link(document: Path, target: str) -> str | None:
    """Why `target`, linked from `document`, does not resolve (None: it does)."""
    if SCHEME.match(target) or target.startswith("//"):
        return None
    path_part, _, anchor = target.partition("#")
    path_part = unquote(path_part.split("?")[0])
    destination = (document.parent / path_part).resolve() if path_part else document
    if not destination.exists():
        return f"no such file: {path_part}"
    if not anchor:
        return None
    if destination.is_dir():
        return f"an anchor on a folder: {target}"
    if destination.suffix.lower() != ".md":
        return None if LINE_ANCHOR.match(anchor) else f"no line anchor #{anchor} in {path_part}"
    if unquote(anchor) not in anchors(destination.read_text(encoding="utf-8")):
        return f"no heading for #{anchor} in {path_part or document.name}"
    return None


def problems_in(document: Path) -> list[str]:
    text = document.read_text(encoding="utf-8")
    return [
        f"{document.name}:{number}: ({target}) {why}"
        for number, target in links(text)
        if (why := check_link(document, target))
    ]


# -- the checker can fail -------------------------------------------------------------------

TARGET = """# Guide

## Settings (`.ccstate.yaml`)

## Scaling (#14): `bench/bench_scale.py`

## Settings (`.ccstate.yaml`)

```markdown
## Inside a fence
```
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "GUIDE.md").write_text(TARGET)
    (tmp_path / "docs" / "img").mkdir()
    (tmp_path / "docs" / "img" / "shot.png").write_bytes(b"\x89PNG")
    (tmp_path / "src.py").write_text("x = 1\n")
    return tmp_path


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("See [the guide](docs/GONE.md).", "no such file: docs/GONE.md"),
        ("![shot](docs/img/gone.png)", "no such file: docs/img/gone.png"),
        ("[x](docs/GUIDE.md#no-such-heading)", "no heading for #no-such-heading"),
        ("[x](docs/GUIDE.md#scaling-14-scriptsbench_scalepy)", "no heading for #scaling-14-scri"),
        ("[x](docs/GUIDE.md#inside-a-fence)", "no heading for #inside-a-fence"),
        ("[x](docs/GUIDE.md#settings-ccstateyaml-2)", "no heading for #settings-ccstateyaml-2"),
        ("# Top\n\n[x](#bottom)", "no heading for #bottom in README.md"),
        ("[x](src.py#main)", "no line anchor #main in src.py"),
        ("[x](docs#guide)", "an anchor on a folder"),
        ("[ref]: docs/GONE.md", "no such file: docs/GONE.md"),
        ("a link across\nlines: [the\nguide](<docs/GONE.md>)", "README.md:2:"),
    ],
)
def test_a_broken_link_is_reported(tree: Path, text: str, problem: str) -> None:
    (tree / "README.md").write_text(text)
    found = problems_in(tree / "README.md")
    assert any(problem in p for p in found), found


@pytest.mark.parametrize(
    "text",
    [
        '[x](docs/GUIDE.md), [y](docs/GUIDE.md#guide), ![s](docs/img/shot.png "a shot")',
        "[x](docs/GUIDE.md#settings-ccstateyaml) and [y](docs/GUIDE.md#settings-ccstateyaml-1)",
        "[x](docs/GUIDE.md#scaling-14-benchbench_scalepy), [y](src.py#L1-L2), [z](docs/)",
        "# Top\n\n[x](#top), [web](https://example.com/a.md#b), [m](mailto:a@b.c)",
        "`[not a link](docs/GONE.md)` and\n```\n[nor this](docs/GONE.md)\n```",
    ],
)
def test_a_resolving_link_is_not_reported(tree: Path, text: str) -> None:
    (tree / "README.md").write_text(text)
    assert problems_in(tree / "README.md") == []


# -- the documents --------------------------------------------------------------------------


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(document: Path) -> None:
    assert problems_in(document) == []
