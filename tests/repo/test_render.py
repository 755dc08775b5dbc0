"""repo.render: `ccstate find`'s text."""

from __future__ import annotations

from ccstate.repo.render import FOOTER, render_hits
from ccstate.repo.search import Hit


def test_each_hit_is_its_location_what_it_is_and_its_lines() -> None:
    hit = Hit(
        "src/a.py", 3, 9, "function", "parse", "def parse(x):", 1.0, [(5, "return x")], ["f:12"]
    )
    assert render_hits("parse things", [hit], 1234).splitlines() == [
        "find: 1 location(s) for 'parse things' (1,234 files indexed)",
        "1. src/a.py:3-9  function parse: def parse(x):",
        "     5: return x",
        "     also: f:12",
        FOOTER,
    ]


def test_no_hit_says_so() -> None:
    assert (
        render_hits("zzz", [], 3)
        == "find: nothing in the 3 indexed files matches 'zzz'; try other words."
    )


def test_a_block_is_held_to_its_size_last_lines_first() -> None:
    long = "x" * 200
    hit = Hit("a.py", 1, 9, "function", "f", long, 1.0, [(2, long), (3, long), (4, long)], ["g:5"])
    block = render_hits("q", [hit], 1).splitlines()[1:-1]
    assert sum(len(line) + 1 for line in block) <= 440
    assert block[0].startswith("1. a.py:1-9  function f: xxx") and block[1].startswith("     2: ")
    assert len(block) == 3  # the head, the first matching line, the also line
