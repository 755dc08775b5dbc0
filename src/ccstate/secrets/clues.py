"""Which rules may match a text: the prefilter redaction runs before its rules.

`Prefilter(patterns, extra).candidates(text)` gives the numbers of the patterns that may match
`text`, from what every match of each holds (`needs.py`: its needs, literals, and its run, a
stretch of token characters): a pattern whose need or run the text lacks cannot match there,
so skipping it gives the same result as running every rule, several times faster on ordinary
text (`redact.py`). Strings are looked for in the text made ASCII; with ahocorasick-rs
installed (`_Scan`, D13) in one automaton pass, else one `in` per string. Property-tested
against running every rule, and the two ways against each other (tests/secrets/test_clues.py).
"""

from __future__ import annotations

import re
import string

from ccstate.secrets.needs import FOLDS_TO_ASCII, RUN_CHARS, Need, Run, needs, run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


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
# (`python bench/bench_prefilter.py`).
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
