"""recall.render: what `ccstate recall` prints fits five hits in 600 tokens (#38)."""

from __future__ import annotations

import pytest

from ccstate import tokens
from ccstate.recall import hits, render

LONG_PATH = "/Users/someone/Development/a-very-long-project-name/packages/" * 4 + "main.py"


def hit(n: int, confidence: str = "strong", **changes: object) -> hits.Hit:
    base = hits.Hit(
        id=n,
        kind="command",
        session=f"{n:08x}-0000-4000-8000-000000000017",
        agent="",
        path=f"/h/.claude/projects/-p/{n:08x}-0000-4000-8000-000000000017.jsonl",
        line=100 + n,
        end_line=101 + n,
        ts="2026-03-01T10:00:00Z",
        branch="main",
        title=f"cd {LONG_PATH} && npm run build -- --mode production",
        body="",
        score=0.9,
        snippet="…" + "0x3f2a9c1e7b " * 40 + "**esptool** " * 10 + "é ü ß " * 30,
        matched=("esptool", "flash", "backup", "firmware", "size", "box"),
        confidence=confidence,  # type: ignore[arg-type]
    )
    return base.but(**changes)


def test_five_hits_fit_in_600_tokens() -> None:
    _count, exact = tokens.count_tokens("ccstate")
    if not exact:
        pytest.skip("tiktoken's offline cl100k_base is not available here")
    text = render.hits_text("why " * 300 + "firmware backup size?", [hit(n) for n in range(5)])
    assert tokens.count_tokens(text)[0] <= 600, text
    assert len(text.splitlines()) == 7  # the header, five hits, what to do next


def test_each_line_has_ref_kind_date_confidence_words_and_the_match() -> None:
    line = render.hit_line(1, hit(1, snippet="…the **esptool** backup…", title="esptool"))
    assert line == (
        "1. 00000001:101 command 2026-03-01 strong [esptool, flash, backup, firmware, …] "
        "esptool: …the **esptool** backup…"
    )
    assert render.hit_line(2, hit(2, title="", snippet="x", matched=())).endswith("strong [] x")


def test_weak_only_answers_say_to_ask_again_with_other_words() -> None:
    text = render.hits_text("firmware", [hit(1, "weak"), hit(2, "weak")])
    assert text.splitlines()[0] == "recall: 2 hit(s) for 'firmware' (0 strong, 2 weak)"
    assert render.NO_STRONG in text
    assert render.NO_STRONG not in render.hits_text("firmware", [hit(1), hit(2, "weak")])


def test_why_nothing_came_back() -> None:
    assert "no moment holds any of its words (kubernetes, ingress)" in render.nothing_text(
        "kubernetes ingress", ["kubernetes", "ingress"], [], filtered=False
    )
    assert "(test, file) are each in much of the index" in render.nothing_text(
        "test file", [], ["test", "file"], filtered=False
    )
    assert "kinds, dates or session asked for" in render.nothing_text("x", [], [], filtered=True)
    assert (
        render.quoted("a\nb " + "c" * 100).startswith("'a b ccc")
        and len(render.quoted("c" * 100)) == render.QUERY_CHARS + 2
    )
