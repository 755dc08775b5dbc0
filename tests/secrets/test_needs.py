"""What every match of a regex holds (src/ccstate/secrets/needs.py): its needs, read with
Python's own parser, and the characters `re.IGNORECASE` folds to ASCII letters."""

from __future__ import annotations

import re

import pytest

from ccstate.secrets import needs


def test_folds_to_ascii_lists_every_character_ignorecase_matches_with_an_ascii_letter() -> None:
    others = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000)
    found = set(re.findall(r"(?i)[a-z]", others))
    assert found == set(needs.FOLDS_TO_ASCII)


NEEDS_CASES = [
    (r"\bsk-ant-[A-Za-z0-9_-]{8,}", {("sk-ant-",)}),
    (
        r"\b(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{16,}",
        {("rk_live_", "rk_test_", "sk_live_", "sk_test_")},
    ),
    (r"(?<=://)[^\s:/@]{1,64}:(?P<s>[^\s@/]{1,128})(?=@)", {("://",), ("@",), (":",)}),
    (r"a?b*[xyz]+", {("x", "y", "z")}),  # one of the class, at least once
    (r"(a)\1", {("a",)}),  # the group, not the backreference
    (r"a?b*(?:x|y*)", set()),  # nothing every match must hold
    (r"(?i)\bbearer\s+(?P<s>[A-Za-z0-9._~+/=-]{12,})", {("bearer",)}),
    (r"(?i)ab(?-i:CD)", {("abcd",)}),  # a case-sensitive group: looked for in lower case too
]


@pytest.mark.parametrize(("pattern", "expected"), NEEDS_CASES)
def test_needs(pattern: str, expected: set[tuple[str, ...]]) -> None:
    got = needs.needs(re.compile(pattern))
    assert {tuple(sorted(n.strings)) for n in got} == expected
    assert all(n.folded == pattern.startswith("(?i)") for n in got)
