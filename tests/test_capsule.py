from __future__ import annotations

from ccstate import capsule


def test_sections_in_order_under_the_header() -> None:
    text = capsule.render_capsule("proj", [["- a: 1"], [], ["- b: 2", "- c: 3"]], 500)
    assert text == "[ccstate] project state for proj\n- a: 1\n- b: 2\n- c: 3"


def test_budget_cuts_lines_and_says_so() -> None:
    lines = [f"- line {i:03d} " + "x" * 60 for i in range(100)]
    text = capsule.render_capsule("proj", [lines], 200)
    assert capsule.estimate_tokens(text) <= 200
    assert text.endswith(capsule.TRIMMED)
    assert "- line 000" in text and "- line 099" not in text


def test_same_input_same_bytes() -> None:
    args = ("proj", [["- a"], ["- b"]], 300)
    assert capsule.render_capsule(*args) == capsule.render_capsule(*args)


def test_no_line_no_capsule() -> None:
    """A header over empty sections would be paid on every request for nothing (#43)."""
    assert capsule.render_capsule("proj", [[], [], []], 500) == ""
    assert capsule.render_capsule("proj", [], 500) == ""
