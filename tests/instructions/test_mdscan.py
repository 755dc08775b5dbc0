"""Markdown scanning as Claude Code 2.1.328 reads instruction files (see tests/e2e/test_lint.py)."""

from __future__ import annotations

import pytest

from ccstate.instructions import mdscan


@pytest.mark.parametrize(
    ("line", "tokens"),
    [
        ("See @docs/a.md for A.", ["docs/a.md"]),
        ("@a.md @b.md", ["a.md", "b.md"]),
        ("**@b.md** and _@c.md_ and ~~@d.md~~", ["b.md", "c.md", "d.md"]),
        ("[@x.md](target) | @y.md |", ["x.md", "y.md"]),
        ("`@code.md` (@paren.md) mail@host.md", []),
        ("trailing @dot.md. @comma.md,", ["dot.md.", "comma.md,"]),
        ("frag @a.md#section and @with\\ space.md", ["a.md#section", "with\\ space.md"]),
        ("home @~/x.md abs @/etc/x.md root @/", ["~/x.md", "/etc/x.md"]),
        ("mentions @@twice @#hash @(paren) @%pct", []),
        ("glob @docs/plan-*.md)", ["docs/plan-*.md)"]),
    ],
)
def test_import_tokens(line: str, tokens: list[str]) -> None:
    assert mdscan.import_tokens(line) == tokens


def test_import_path_drops_fragment_and_unescapes() -> None:
    assert mdscan.import_path("docs/with\\ space.md#top") == "docs/with space.md"


def test_prose_lines_skip_code_html_comments_and_frontmatter() -> None:
    text = "\n".join(
        [
            "---",
            "paths: src/**",
            "---",
            "prose @a.md",
            "```",
            "@fenced.md",
            "```",
            "",
            "    @indented.md",
            "",
            "- item",
            "",
            "    continued @item.md",
            "",
            "<details>",
            "@html.md",
            "",
            "after @b.md <!-- @inline.md -->",
            "<!--",
            "@comment.md",
            "-->",
            "text",
            "<div>",
            "@interrupts.md",
        ]
    )
    assert [raw for _n, raw in mdscan.imports(text)] == ["a.md", "item.md", "b.md"]
    assert [n for n, _raw in mdscan.imports(text)] == [4, 13, 18]


def test_content_as_loaded_drops_frontmatter_and_comment_blocks_only() -> None:
    text = "---\npaths: x\n---\n# T\n\n<!-- block\nnote -->\n\nkeep <!-- inline --> me\n"
    assert mdscan.content_as_loaded(text) == "# T\n\nkeep <!-- inline --> me\n"


# Link reference definitions in a file with an HTML comment block. Claude Code 2.1.328 and
# 2.1.329 drop them from what they send; 2.1.330 fixed that, and ccstate prices what the fixed
# versions send (tests/e2e/test_lint.py checks both versions against the real CLI).
LINK_REFS = (
    "# P\n\n<!-- a comment -->\n\nSee [the docs][docs] and [api].\n\n"
    '[docs]: https://example.org/docs\n[api]: ./docs/api.md "API"\n\nEnd.\n'
)


def test_content_as_loaded_keeps_link_reference_definitions_beside_comment_blocks() -> None:
    assert mdscan.content_as_loaded(LINK_REFS) == (
        "# P\n\nSee [the docs][docs] and [api].\n\n"
        '[docs]: https://example.org/docs\n[api]: ./docs/api.md "API"\n\nEnd.\n'
    )
    glued = "# P\n\n<!-- note -->\n[x]: http://x.org\n\nText [x].\n"
    assert mdscan.content_as_loaded(glued) == "# P\n\n[x]: http://x.org\n\nText [x].\n"


@pytest.mark.parametrize(
    ("frontmatter", "globs"),
    [
        (None, []),
        ("title: x", []),
        ('paths: "**"', []),
        ("paths:\n  - src/**\n  - tests/**/*.py", ["src/**", "tests/**/*.py"]),
        ('paths: ["a/**", "b"]', ["a/**", "b"]),
        ("paths: src/**, lib/**", ["src/**", "lib/**"]),
    ],
)
def test_scoped_globs(frontmatter: str | None, globs: list[str]) -> None:
    assert mdscan.scoped_globs(frontmatter) == globs


@pytest.mark.parametrize(
    ("line", "pointers"),
    [
        ("- [Runbook](docs/runbook.md#paging) ![logo](img.png)", [("link", "docs/runbook.md")]),
        (
            "see `README.md` and docs/guide.md, not README.md",
            [("path", "README.md"), ("path", "docs/guide.md")],
        ),
        ("`src/<module>.py` `tests/**/*.py` https://x.org/a.md github.com/o/r.md", []),
        ("[site](https://example.com) [anchor](#top) [home](~/x.md)", []),
        ("folders: `docs/claude/` and src/pkg/", [("path", "docs/claude/"), ("path", "src/pkg/")]),
    ],
)  # fmt: skip
def test_pointer_tokens(line: str, pointers: list[tuple[str, str]]) -> None:
    assert [(kind, raw) for kind, raw, _text in mdscan.pointer_tokens(line)] == pointers


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("- docs/claude/testing.md", 0),
        ("- [Testing](docs/claude/testing.md)", 1),
        ("See `docs/claude/deploy.md` for details.", 0),
        ("- `docs/claude/deploy.md`: release steps, rollback and who to page", 5),
    ],
)
def test_description_words(line: str, words: int) -> None:
    assert mdscan.description_words(line) == words
