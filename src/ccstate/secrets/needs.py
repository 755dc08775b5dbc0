"""What every match of a regular expression holds, read with Python's own regex parser.

`needs(pattern)` returns its *needs*: groups of strings such that every match of the pattern
holds at least one string of each group (`\\bsk-ant-[\\w-]{8,}` needs `sk-ant-`;
`(?:sk|rk)_live_\\w+` needs one of `sk_live_`, `rk_live_`); `run(pattern)` the longest stretch
of token characters every match holds (`[A-Za-z0-9]{32}`). Where a text holds neither, the
pattern cannot match there: the prefilter (`clues.py`) skips it.

Why a need holds: a literal in the pattern's top-level sequence is matched by every match;
a group of alternatives, by one of them; a repetition at least once, by its body; a positive
lookaround's text is in the text too. Anything else (classes, `.`, backreferences, optional
parts) needs nothing. Case-insensitive literals are kept lower-cased and looked for in the
lower-cased text, which is exact for ASCII letters except where the text holds one of the four
characters Python's `re` also matches them with (`FOLDS_TO_ASCII`); such a text is taken to
hold every case-insensitive need. A pattern the parser cannot read needs nothing (always runs).
"""

from __future__ import annotations

import re
import string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

# Non-ASCII characters that `re.IGNORECASE` matches with an ASCII letter (KELVIN SIGN with k,
# LATIN SMALL LETTER LONG S with s, the dotted and dotless i): tests/secrets/test_needs.py
# checks the list against every code point.
FOLDS_TO_ASCII = "\u212a\u017f\u0130\u0131"
MAX_STRINGS = 64  # strings one need may hold (alternatives multiply along a sequence)
MAX_NEEDS = 3  # needs kept per pattern: the most telling ones


class Need:
    """The text holds at least one of `strings` (lower-cased ones in its lower case when
    `folded`)."""

    __slots__ = ("folded", "strings")

    def __init__(self, strings: frozenset[str], folded: bool = False) -> None:
        self.strings, self.folded = strings, folded

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Need) and (self.strings, self.folded) == (
            other.strings,
            other.folded,
        )

    def __hash__(self) -> int:
        return hash((self.strings, self.folded))

    def __repr__(self) -> str:
        return f"Need({sorted(self.strings)!r}, folded={self.folded})"


def needs(pattern: re.Pattern[str]) -> tuple[Need, ...]:
    """What every match of `pattern` holds, the most telling needs first; () when nothing."""
    try:
        parsed = _parser().parse(pattern.pattern, pattern.flags)
        exact, found = _sequence(parsed, bool(pattern.flags & re.IGNORECASE))
    except Exception:  # a construct this reader does not know: no shortcut, never a wrong one
        return ()
    usable = {_fewest(n) for n in [*found, exact] if n is not None and "" not in n.strings}
    return tuple(sorted(usable, key=_weakness)[:MAX_NEEDS])


def _fewest(need: Need) -> Need:
    """The same need without the strings that hold another of its strings (`password` goes
    where `pass` is): the text holds one of the rest exactly when it holds one of all."""
    ordered = sorted(need.strings, key=len)
    kept: list[str] = []
    for s in ordered:
        if not any(k in s for k in kept):
            kept.append(s)
    return Need(frozenset(kept), need.folded)


def _parser() -> Any:
    try:
        from re import _parser as parser  # type: ignore[attr-defined]  # Python 3.11+
    except ImportError:  # Python 3.10
        import sre_parse as parser
    return parser


# A piece's exact form: every string it can match, when they are few (a literal, a choice of
# literals, an optional literal, a class of a few characters); None otherwise.
_EMPTY = Need(frozenset({""}))


def _sequence(items: Any, folded: bool) -> tuple[Need | None, list[Need]]:
    """(the exact form of the whole sequence or None, the needs found along it)."""
    found: list[Need] = []
    run, whole = _EMPTY, True  # `run`: the exact form of the pieces in a row so far
    for op, av in items:
        exact, inner = _item(op.name, av, folded)
        found += inner
        joined = _join(run, exact) if exact is not None else None
        if joined is None:  # a piece that is not exact, or too many strings: a new run
            found.append(run)
            run, whole = exact or _EMPTY, False
        else:
            run = joined
    return (run, []) if whole else (None, [*found, run])


def _item(op: str, av: Any, folded: bool) -> tuple[Need | None, list[Need]]:
    if op == "LITERAL":
        return _literal(chr(av), folded), []
    if op == "IN":
        chars = [_literal(chr(v), folded) if o.name == "LITERAL" else None for o, v in av]
        return (_union(chars) if len(chars) <= 8 else None), []
    if op == "SUBPATTERN":
        return _sequence(*_group(av, folded))
    if op == "ATOMIC_GROUP":
        return _sequence(av, folded)
    if op == "BRANCH":
        return _branch(av[1], folded)
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, high, sub = av
        return _repeat(low, high, sub, folded)
    if op == "ASSERT":  # a positive lookahead or lookbehind: its text is in the text too
        exact, inner = _sequence(av[1], folded)
        return None, [*inner, exact] if exact is not None else inner
    return None, []  # ranges, any character, anchors, negative lookarounds, references


def _group(av: Any, folded: bool) -> tuple[Any, bool]:
    """A group's items, and whether they match case-insensitively (`(?i:...)`, `(?-i:...)`)."""
    _number, add, remove, sub = av
    return sub, (folded or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE


def _repeat(low: int, high: int, sub: Any, folded: bool) -> tuple[Need | None, list[Need]]:
    exact, inner = _sequence(sub, folded)
    if exact is not None and (low, high) == (0, 1):
        return Need(exact.strings | {""}, exact.folded), []
    if exact is not None and low == high and low <= 4:
        out: Need | None = _EMPTY
        for _ in range(low):
            out = _join(out, exact) if out is not None else None
        if out is not None:
            return out, []
    if low == 0:
        return None, []
    return None, [*inner, exact] if exact is not None else inner


def _literal(char: str, folded: bool) -> Need | None:
    if folded and char.lower() != char.upper():
        return Need(frozenset({char.lower()}), True) if char.isascii() else None
    return Need(frozenset({char}))


def _branch(branches: Any, folded: bool) -> tuple[Need | None, list[Need]]:
    """A choice: its exact form is the union of the branches'; else each branch's best need,
    together, is a need of the choice."""
    exacts, bests = [], []
    for branch in branches:
        exact, inner = _sequence(branch, folded)
        exacts.append(exact)
        usable = [n for n in ([exact] if exact is not None else inner) if "" not in n.strings]
        bests.append(min(usable, key=_weakness) if usable else None)
    union = _union(exacts)
    if union is not None:
        return union, []
    union = _union(bests)
    return None, [union] if union is not None else []


def _weakness(need: Need) -> tuple[int, int]:
    """Longer shortest string first, then fewer strings: the rarer need."""
    return (-min(map(len, need.strings)), len(need.strings))


def _union(parts: Sequence[Need | None]) -> Need | None:
    """Any one of `parts` (None when one of them is unknown or the strings are too many)."""
    if not parts or any(p is None for p in parts):
        return None
    folded = any(p.folded for p in parts if p is not None)
    strings = frozenset(s for p in parts if p is not None for s in p.strings)
    return _need(strings, folded)


def _join(first: Need, second: Need) -> Need | None:
    """`first` followed by `second`: every string of one, then every string of the other."""
    if len(first.strings) * len(second.strings) > MAX_STRINGS:
        return None
    pairs = frozenset(a + b for a in first.strings for b in second.strings)
    return _need(pairs, first.folded or second.folded)


def _need(strings: frozenset[str], folded: bool) -> Need | None:
    """Folded needs are ASCII and lower-cased (a case-sensitive part lower-cased too: still
    needed in the lower-cased text)."""
    if len(strings) > MAX_STRINGS:
        return None
    if folded:
        if not all(s.isascii() for s in strings):
            return None
        strings = frozenset(s.lower() for s in strings)
    return Need(strings, folded)


# --------------------------------------------------------------------------- runs
# Most credential shapes are a long stretch of token characters (`[A-Za-z0-9_-]{32}`): a text
# with no stretch that long of the shape's characters holds no match. Stretches are measured on
# the text's ASCII bytes, every other character counted as a member of every class.
RUN_CHARS = frozenset(string.ascii_letters + string.digits + "_-+/=.")
MIN_RUN = 12  # shorter stretches are too common to tell anything


class Run:
    """Every match holds `length` characters in a row, each in `chars` (ASCII; any character
    outside ASCII counts as a member)."""

    __slots__ = ("chars", "length")

    def __init__(self, chars: frozenset[str], length: int) -> None:
        self.chars, self.length = chars, length

    def __repr__(self) -> str:
        return f"Run({''.join(sorted(self.chars))!r}, {self.length})"


def run(pattern: re.Pattern[str]) -> Run | None:
    """The longest stretch of token characters every match of `pattern` holds, if long."""
    try:
        parsed = _parser().parse(pattern.pattern, pattern.flags)
        segments = _segments(parsed, bool(pattern.flags & re.IGNORECASE))
    except Exception:
        return None
    best = max(segments, key=lambda r: (r.length, -len(r.chars)), default=None)
    return best if best is not None and best.length >= MIN_RUN else None


def _segments(items: Any, folded: bool) -> list[Run]:
    """The stretches of a sequence: pieces of token characters in a row (zero-width ones, like
    `\\b` or a lookahead, do not break a stretch)."""
    found: list[Run] = []
    chars: set[str] = set()
    length = 0
    for op, av in items:
        piece = _run_piece(op.name, av, folded)
        if piece is None:
            found.append(Run(frozenset(chars), length))
            chars, length = set(), 0
        else:
            chars |= piece.chars
            length += piece.length
    return [*found, Run(frozenset(chars), length)]


def _pure(items: Any, folded: bool) -> Run | None:
    """A sequence made only of token characters, as one piece; None otherwise."""
    segments = _segments(items, folded)
    return segments[0] if len(segments) == 1 else None


def _run_piece(op: str, av: Any, folded: bool) -> Run | None:
    if op in ("AT", "ASSERT", "ASSERT_NOT"):
        return Run(frozenset(), 0)
    if op in ("LITERAL", "IN"):
        items = [(op, av)] if op == "LITERAL" else [(o.name, v) for o, v in av]
        chars = _class_chars(items, folded)
        return Run(chars, 1) if chars is not None else None
    if op == "SUBPATTERN":
        return _pure(*_group(av, folded))
    if op == "ATOMIC_GROUP":
        return _pure(av, folded)
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _high, sub = av
        inner = _pure(sub, folded)
        return Run(inner.chars, low * inner.length) if inner is not None else None
    if op == "BRANCH":
        branches = [_pure(b, folded) for b in av[1]]
        if any(b is None for b in branches):
            return None
        done = [b for b in branches if b is not None]
        return Run(frozenset().union(*(b.chars for b in done)), min(b.length for b in done))
    return None


_CATEGORIES = {
    "CATEGORY_DIGIT": string.digits,
    "CATEGORY_WORD": string.ascii_letters + string.digits + "_",
}


def _class_chars(items: list[tuple[str, Any]], folded: bool) -> frozenset[str] | None:
    """Every ASCII character a class (or a literal) may match, if all are token characters."""
    chars: set[str] = set()
    for name, av in items:
        if name == "LITERAL":
            found = {chr(av)}
        elif name == "RANGE":
            found = {chr(c) for c in range(av[0], av[1] + 1)}
        elif name == "CATEGORY" and av.name in _CATEGORIES:
            found = set(_CATEGORIES[av.name])
        else:  # negated classes, spaces, other categories
            return None
        if folded and any(not c.isascii() for c in found):
            found |= set(string.ascii_letters)  # KELVIN SIGN matches k: any letter may do
        chars |= {c for c in found if c.isascii()}
    if folded:
        chars |= {c.swapcase() for c in chars}
    return frozenset(chars) if chars <= RUN_CHARS else None
