"""The literals a regular expression needs: where none is in a text, it cannot match there.

`needs(pattern)` reads a compiled pattern with Python's own regex parser and returns its
*needs*: groups of strings such that every match of the pattern holds at least one string of
each group (`\\bsk-ant-[\\w-]{8,}` needs `sk-ant-`; `(?:sk|rk)_live_\\w+` needs one of
`sk_live_`, `rk_live_`). `Haystack` answers "is this string in the text?" once per string.
Redaction uses them to skip, for a given text, every rule that cannot match it (`redact.py`);
that is the same result as running every rule, several times faster on ordinary text.

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
# LATIN SMALL LETTER LONG S with s, the dotted and dotless i): tests/secrets/test_clues.py
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


# --------------------------------------------------------------------------- checking
# Runs are measured in a few classes wide enough for every rule's (a rule's own class is
# widened to the narrowest that holds it: still a need of every match).
RUN_CLASSES = tuple(
    frozenset(c)
    for c in (
        string.ascii_letters + string.digits,
        string.ascii_letters + string.digits + "_-",
        string.ascii_letters + string.digits + "+/=",
        string.ascii_letters + string.digits + "_-.",
        RUN_CHARS,
    )
)
_MEMBER, _OTHER = ord("x"), ord(" ")


def _table(chars: frozenset[str]) -> bytes:
    """bytes.translate table: members, and `?` (where `encode` put any non-ASCII character),
    become `x`, everything else a space."""
    return bytes(_MEMBER if chr(b) in chars or b == ord("?") else _OTHER for b in range(256))


_TABLES = tuple(_table(c) for c in RUN_CLASSES)


# A pattern's number and its needs, as `candidates` checks them: ((groups, folded), ...),
# the strings in ASCII (`_ascii`) and in groups (`_groups`).
_Group = tuple[str, tuple[str, ...]]
_Entry = tuple[int, tuple[tuple[tuple[_Group, ...], bool], ...]]


def _ascii(string_: str) -> str:
    """`string_` as `candidates` looks for it: in ASCII, any other character as `?` (one
    character for one, so a string the text holds is found in the text made ASCII too)."""
    if string_.isascii():
        return string_
    return string_.encode("ascii", "replace").decode("ascii")


class Prefilter:
    """Which of a list of patterns may match a text, from their needs and runs (`needs`,
    `run`): the patterns with neither always may."""

    def __init__(
        self,
        patterns: Sequence[re.Pattern[str]],
        extra: Sequence[tuple[Need, ...]],
        *,
        accelerate: bool = True,
    ):
        # extra[i]: needs of pattern i found otherwise (e.g. from what its replacement checks)
        self._plain: list[_Entry] = []
        by_class: dict[int, list[tuple[int, _Entry]]] = {}
        shapes: list[_Shape] = []
        for number, (pattern, more) in enumerate(zip(patterns, extra, strict=True)):
            ascii_needs = [
                (tuple(sorted({_ascii(s) for s in n.strings})), n.folded)
                for n in needs(pattern) + more
            ]
            found = tuple((_groups(list(strings)), folded) for strings, folded in ascii_needs)
            stretch = run(pattern)
            wide = _widen(stretch) if stretch is not None else None
            if wide is None:
                self._plain.append((number, found))
            else:
                by_class.setdefault(wide[0], []).append((wide[1], (number, found)))
            shapes.append((number, tuple(ascii_needs), wide))
        self._classes = [
            (_TABLES[c], [(b"x" * length, entry) for length, entry in sorted(entries)])
            for c, entries in sorted(by_class.items())
        ]
        self._clusters = _clusters(self._plain)
        module = _automaton_module() if accelerate else None
        self._scan = _Scan(module, shapes) if module is not None else None

    @property
    def accelerated(self) -> bool:
        """Are the strings looked for in one automaton pass (`_Scan`), not one by one?"""
        return self._scan is not None

    def candidates(self, text: str, start: int = 0) -> list[int]:
        """The numbers (from `start` on, in order) of the patterns that may match `text`.

        Strings are looked for in the text made ASCII (`_ascii`: a string held is found, a
        `?` may stand for any other character: a pattern more, never one less), several
        times faster than in a text that holds other characters (each search would widen
        the string to the text's width first). (Loops written out, no call per need: this
        runs on every text redaction sees.) With ahocorasick_rs installed, `_Scan` gives the
        same answer from one pass over the text."""
        if self._scan is not None:
            return self._scan.candidates(text, start)
        plain = text.isascii()
        encoded = text.encode("ascii", "replace")
        # folded needs are looked for in the lower-cased text; where the text holds one of
        # FOLDS_TO_ASCII, they are taken as held (None). No other character lower-cases to
        # ASCII (tests/secrets/test_clues.py), so a string in text.lower() is in ascii.lower().
        ascii_ = text if plain else encoded.decode("ascii")
        exact = plain or not any(c in text for c in FOLDS_TO_ASCII)
        lower = ascii_.lower() if exact else None
        todo: list[_Entry] = []  # the patterns without a stretch, but those of a cluster
        for common, folded, members in self._clusters:  # whose common part is not there
            if common:
                hay = ascii_ if not folded else lower
                if hay is not None and common not in hay:
                    continue
            todo += members
        for table, entries in self._classes:  # and the patterns whose stretch the text holds
            marked = encoded.translate(table)
            for stretch, entry in entries:
                if stretch not in marked:
                    break  # the longer stretches are not there either
                todo.append(entry)
        found = []
        for number, needs_ in todo:
            if number < start:
                continue
            for groups, folded in needs_:
                hay = ascii_ if not folded else lower
                if hay is None:
                    continue
                held = False
                for common, strings in groups:
                    if common in hay:
                        if not strings:  # a group of one: `common` is the string
                            held = True
                            break
                        for string_ in strings:
                            if string_ in hay:
                                held = True
                                break
                        if held:
                            break
                if not held:
                    break  # no string of this need: the pattern cannot match
            else:
                found.append(number)
        found.sort()
        return found


def _clusters(entries: list[_Entry]) -> list[tuple[str, bool, list[_Entry]]]:
    """`entries` as (common, folded, members): every string of each member's first need (its
    most telling) holds `common` (3 characters or more; in the lower-cased text if `folded`),
    so a text without it is searched for none of them (the private-key shapes all hold
    `PRIVATE KEY`). An entry in no cluster is ("", False, [entry])."""
    keys: dict[int, tuple[str, bool]] = {}
    for number, found in entries:
        if found:
            groups, folded = found[0]
            keys[number] = (
                _common([s for common, rest in groups for s in rest or (common,)]),
                folded,
            )
    left, out = list(entries), []
    while True:
        holders: dict[tuple[str, bool], set[int]] = {}
        for number, _found in left:
            key, folded = keys.get(number, ("", False))
            for size in range(3, len(key) + 1):
                for at in range(len(key) - size + 1):
                    holders.setdefault((key[at : at + size], folded), set()).add(number)
        best = max(holders.items(), key=lambda kv: (len(kv[1]), len(kv[0][0])), default=None)
        if best is None or len(best[1]) < 2:
            break
        (common, folded), numbers = best
        out.append((common, folded, [e for e in left if e[0] in numbers]))
        left = [e for e in left if e[0] not in numbers]
    return out + [("", False, [e]) for e in left]


def _groups(strings: list[str]) -> tuple[_Group, ...]:
    """A need's strings as (common, strings) groups, so that a text without `common` (a part
    of every string of its group) is searched for none of them: the strings of a group share
    their two first characters, or all of them share a part of two characters or more
    (`xoxa-`, `xoxb-`: `xox`). A group of one is (the string, ())."""
    common = _common(strings)
    if len(strings) > 1 and len(common) >= 2:
        return ((common, tuple(strings)),)
    by_start: dict[str, list[str]] = {}
    for string_ in strings:
        by_start.setdefault(string_[:2], []).append(string_)
    return tuple(
        (group[0], ()) if len(group) == 1 else (_common(group), tuple(group))
        for group in by_start.values()
    )


def _common(strings: list[str]) -> str:
    """The longest string that every one of `strings` holds ("" when none)."""
    shortest = min(strings, key=len, default="")
    for size in range(len(shortest), 0, -1):
        for at in range(len(shortest) - size + 1):
            part = shortest[at : at + size]
            if all(part in s for s in strings):
                return part
    return ""


def _widen(stretch: Run) -> tuple[int, int] | None:
    """The narrowest of RUN_CLASSES holding the run's characters (a run of a wider class is
    still a need of every match), and its length."""
    for number, chars in enumerate(RUN_CLASSES):
        if stretch.chars <= chars:
            return number, stretch.length
    return None


# --------------------------------------------------------------------------- one pass
# With ahocorasick_rs installed (G-Research's binding of the Rust aho-corasick crate, which
# ripgrep's regex engine uses), `candidates` finds every string of three characters or more
# in one pass over the lower-cased text instead of one `in` per string (about 35 per text):
# the same answer in 43 % of the time on the public corpus's moments
# (`python scripts/bench_prefilter.py`).
# Shorter strings (`:`, `=`, `gl`) are nearly always in a text and found at once by `in`.
LONG = 3  # strings this long or longer are found by the automaton
# A pattern as `_Scan` checks it: its number, its needs as (strings in ASCII, folded), and
# its stretch as (class in RUN_CLASSES, length) or None.
_Shape = tuple[int, tuple[tuple[tuple[str, ...], bool], ...], tuple[int, int] | None]
# A need as `_Scan` checks it: (folded, long strings as (string, lower-cased), short strings)
_Check = tuple[bool, tuple[tuple[str, str], ...], tuple[str, ...]]


def _automaton_module() -> Any:
    """ahocorasick_rs when installed (a dependency; a bare python3 runs without it)."""
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    return ahocorasick_rs


class _Scan:
    """`Prefilter.candidates` from one automaton pass: a pattern with a need made only of long
    strings (its *key*) is looked at only when the pass found one of them; the others (every
    one of the current rules has a stretch then) are looked at by stretch, shortest first."""

    def __init__(self, module: Any, shapes: Sequence[_Shape]) -> None:
        strings = {s for _n, needs_, _w in shapes for st, _f in needs_ for s in st}
        long_ = sorted({s.lower() for s in strings if len(s) >= LONG})
        self._automaton = (
            module.AhoCorasick(long_, implementation=module.Implementation.DFA) if long_ else None
        )
        by_class: dict[int, list[tuple[bytes, int, tuple[_Check, ...]]]] = {}
        self._unkeyed: list[tuple[int, tuple[_Check, ...]]] = []  # neither key nor stretch
        self._keyed: dict[str, list[tuple[int, tuple[_Check, ...], int, bytes]]] = {}
        self._folded_keys: list[tuple[int, tuple[_Check, ...], int, bytes]] = []
        for number, needs_, wide in shapes:
            checks = tuple(_scan_check(strings, folded) for strings, folded in needs_)
            # the key: an exact need of long strings if there is one (a folded one is taken
            # as held in a text with one of FOLDS_TO_ASCII), else a folded one
            keys = [(f, st) for st, f in needs_ if st and all(len(s) >= LONG for s in st)]
            key = min(keys, key=lambda k: k[0], default=None)
            if key is None:
                if wide is None:
                    self._unkeyed.append((number, checks))
                else:
                    by_class.setdefault(wide[0], []).append((b"x" * wide[1], number, checks))
                continue
            folded, key_strings = key
            c, length = wide if wide is not None else (-1, 0)
            keyed = (number, checks, c, b"x" * length)
            for s in {s.lower() for s in key_strings}:
                self._keyed.setdefault(s, []).append(keyed)
            if folded:
                self._folded_keys.append(keyed)
        self._by_class = [
            (c, sorted(entries, key=lambda e: (len(e[0]), e[1])))
            for c, entries in sorted(by_class.items())
        ]

    def candidates(self, text: str, start: int) -> list[int]:
        plain = text.isascii()
        encoded = text.encode("ascii", "replace")
        ascii_ = text if plain else encoded.decode("ascii")
        low = ascii_.lower()
        exact = plain or not any(c in text for c in FOLDS_TO_ASCII)
        lower = low if exact else None  # None: folded needs are taken as held (as above)
        automaton = self._automaton
        found = (
            set(automaton.find_matches_as_strings(low, overlapping=True))
            if automaton is not None
            else set()
        )
        out: list[int] = []
        marks: dict[int, bytes] = {}
        for c, entries in self._by_class:  # no key: by stretch, the shortest first
            marked = marks[c] = encoded.translate(_TABLES[c])
            for stretch, number, checks in entries:
                if stretch not in marked:
                    break  # the longer stretches are not there either
                if number >= start and _scan_held(checks, found, ascii_, lower):
                    out.append(number)
        for number, checks in self._unkeyed:
            if number >= start and _scan_held(checks, found, ascii_, lower):
                out.append(number)
        todo = [e for s in found for e in self._keyed.get(s, ())]
        if lower is None:
            todo += self._folded_keys
        done: set[int] = set()
        for number, checks, c, stretch in todo:
            if number < start or number in done:
                continue
            done.add(number)
            if not _scan_held(checks, found, ascii_, lower):
                continue
            if c >= 0:
                held = marks.get(c)
                if held is None:
                    held = marks[c] = encoded.translate(_TABLES[c])
                if stretch not in held:
                    continue
            out.append(number)
        out.sort()
        return out


def _scan_check(strings: tuple[str, ...], folded: bool) -> _Check:
    # a folded need's strings are lower-cased (`needs`); one that is not could never be in
    # the lower-cased text: left to `in`, which then never finds it either
    long_ = tuple(
        (s, s.lower()) for s in strings if len(s) >= LONG and not (folded and s != s.lower())
    )
    kept = {s for s, _low in long_}
    return folded, long_, tuple(s for s in strings if s not in kept)


def _scan_held(checks: tuple[_Check, ...], found: set[str], ascii_: str, lower: str | None) -> bool:
    """Does the text hold a string of each need? A long string: the automaton found it in the
    lower-cased text (and, for an exact one, `in` confirms the case); a short one: `in`."""
    for folded, long_, short in checks:
        if folded:
            if lower is None:
                continue
            if any(low in found for _s, low in long_) or any(s in lower for s in short):
                continue
            return False
        if any(low in found and s in ascii_ for s, low in long_) or any(s in ascii_ for s in short):
            continue
        return False
    return True
