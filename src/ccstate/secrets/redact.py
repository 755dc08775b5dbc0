"""Secret redaction for everything ccstate writes or injects.

Four sources of truth, applied in this order (docs/RELIABILITY.md "Secrets"):

1. the literal values of the project's `.env` files (`envfile.py`);
2. gitleaks' default rule set (`gitleaks.py`, D14), then detect-secrets' regex detectors for
   the kinds gitleaks lacks, when that package is importable (`detectors.py`);
3. ccstate's own table of credential shapes (`shapes.RULES`), each with its validator;
4. assignments to a name whose last word says it holds a secret (`shapes.ASSIGNMENT`,
   `shapes.FLAG`), keeping the name.

A match becomes `[REDACTED:<kind>]`, deterministic, saying what was removed. A rule runs only
on a text holding what every match of it needs (the prefilter, `clues.py`); `before_cut`
redacts the windows a cut may look at. Patterns compile on first use: importing this module
costs a hook nothing.
"""

from __future__ import annotations

import re

from ccstate.secrets import detectors, envfile, shapes
from ccstate.secrets.shapes import MARK

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path
    from typing import Any

    from ccstate.secrets import clues, gitleaks, needs

_compiled: list[_Rule] = []  # filled on first use
_first_own_rule = [0]  # _compiled[:n] are gitleaks' rules
_prefilters: list[tuple[_Rule, clues.Prefilter]] = []  # for the rules in _compiled
# Building the prefilter parses every rule (tens of milliseconds): a hook that redacts a few
# texts runs every rule on them instead; from this many texts on, the prefilter pays.
PREFILTER_AFTER = 50
_calls = [0]


class Redactor:
    """Redacts known secret shapes plus `literals` (e.g. .env values), longest literal first."""

    __slots__ = ("_literal_re", "literals", "patterns")

    def __init__(self, literals: Iterable[str] = (), *, patterns: bool = True) -> None:
        self.patterns = patterns  # False: literals only (text already redacted once)
        self.literals = tuple(sorted({s for s in literals if s}, key=lambda s: (-len(s), s)))
        self._literal_re = (
            re.compile("|".join(re.escape(s) for s in self.literals)) if self.literals else None
        )

    def redact(self, text: str) -> str:
        """`text` with every secret replaced by `[REDACTED:<kind>]`."""
        if not text:
            return text
        if self._literal_re is not None:
            text = self._literal_re.sub(MARK.format("env"), text)
        if not self.patterns:
            return text
        return apply_rules(text)

    def before_cut(self, text: str, *, head: int = 0, tail: int = 0) -> str:
        """`text` redacted, .env values included, where a cut may look (`before_cut`)."""
        return before_cut(text, head=head, tail=tail, redactor=self)


def apply_rules(text: str, *, every_rule: bool = False) -> str:
    """Rules 2 to 4 over `text`, in order. A rule runs only where the text as it stands holds
    what the rule needs (`needs.needs`: `sk-ant-`, `AKIA`, a secret word before `=`): without
    it the rule cannot match, so skipping it changes nothing. `every_rule` runs them all (the
    tests check both give the same text). gitleaks' rules come first and, as in gitleaks, all
    look at the same text: their secrets are merged, then marked (`_apply_gitleaks`)."""
    rules = _rules()
    if not every_rule and not _prefilters:  # the first texts: not worth building the prefilter
        _calls[0] += 1
        every_rule = _calls[0] <= PREFILTER_AFTER
    todo = range(len(rules)) if every_rule else _prefilter().candidates(text)
    first = _first_own_rule[0]
    found = [rules[i] for i in todo if i < first]
    pos = len(found)
    if found:
        redacted = _apply_gitleaks(text, found)
        if redacted != text:
            text = redacted
            if not every_rule:
                todo, pos = _prefilter().candidates(text, first), 0
    while pos < len(todo):
        rule = rules[todo[pos]]
        pos += 1
        if not every_rule and not rule.may_match(text):
            continue
        redacted = rule.apply(text)
        if redacted is not text and redacted != text:
            text = redacted
            if not every_rule:  # what the new text may match, from the next rule on
                todo, pos = _prefilter().candidates(text, todo[pos - 1] + 1), 0
    return text


def _apply_gitleaks(text: str, found: list[_Rule]) -> str:
    """`text` with every secret the gitleaks rules `found` report in it marked; overlapping
    secrets of several rules are marked once, with the kind of the one that starts first."""
    lower = text.lower()
    spans = sorted(
        (start, -end, rule.kind)
        for rule in found
        if rule.finder is not None
        for start, end in rule.finder.secrets(text, lower, to_redact=True)
    )
    merged: list[list[Any]] = []
    for start, neg_end, kind in spans:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], -neg_end)
        else:
            merged.append([start, -neg_end, kind])
    out: list[str] = []
    last = 0
    for start, end, kind in merged:
        if "REDACTED" in text[start:end]:
            continue
        out += (text[last:start], MARK.format(kind))
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


class _Rule:
    """A compiled rule, what it needs in a text, and how it replaces a match."""

    __slots__ = ("finder", "gate", "kind", "lower_gate", "pattern", "replace")

    def __init__(
        self,
        kind: str,
        pattern: re.Pattern[str],
        replace: Callable[[re.Match[str]], str],
        gate: re.Pattern[str] | None = None,  # an assignment's name and separator (below)
        lower_gate: re.Pattern[str] | None = None,  # the gate for lower-cased text
    ) -> None:
        self.kind, self.pattern, self.replace, self.gate = kind, pattern, replace, gate
        self.lower_gate = lower_gate
        self.finder: gitleaks.Rule | None = None  # a gitleaks rule: it finds the secrets

    def may_match(self, text: str) -> bool:
        """Can the rule change `text`? (Its gate: a secret word right before a separator.)"""
        if self.gate is None:
            return True
        if self.lower_gate is not None and (text.isascii() or not _folds_to_ascii(text)):
            return self.lower_gate.search(text.lower()) is not None
        return self.gate.search(text) is not None

    def apply(self, text: str) -> str:
        if self.finder is not None:
            return _apply_gitleaks(text, [self])
        if self.kind == "assignment":
            return shapes.sub_assignments(self.pattern, text)
        return self.pattern.sub(self.replace, text)


def _folds_to_ascii(text: str) -> bool:
    """Does `text` hold a character that `(?i)` matches with an ASCII letter, or that lower-
    cases to one (`needs.FOLDS_TO_ASCII`)? Without one, `(?i)` on ASCII letters is lower()."""
    return "\u212a" in text or "\u017f" in text or "\u0130" in text or "\u0131" in text


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Every rule's kind and pattern, in the order they run."""
    return [(rule.kind, rule.pattern) for rule in _rules()]


def prepare() -> None:
    """Compile the rules and their prefilter now (before forking workers that use them)."""
    _prefilter()


def _rules() -> list[_Rule]:
    if not _compiled:
        rules = _gitleaks_rules()
        _first_own_rule[0] = len(rules)
        found = [(kind, re.compile(pattern, re.DOTALL)) for kind, pattern in shapes.RULES]
        found += detectors.maintained_rules()
        rules += [_Rule(kind, p, shapes.replacer(kind)) for kind, p in found]
        for pattern, gate in (
            (shapes.FLAG, shapes.FLAG_GATE),
            (shapes.ASSIGNMENT, shapes.ASSIGNMENT_GATE),
        ):
            compiled, gated = re.compile(pattern), re.compile(gate)
            lower = re.compile(gate.removeprefix("(?i)"))
            rules.append(_Rule("assignment", compiled, _keep, gated, lower))
        _compiled[:] = rules
    return _compiled


def _gitleaks_rules() -> list[_Rule]:
    """gitleaks' rule set (D14): each rule finds its secrets itself (`gitleaks.Rule`); its
    pattern here matches nothing, so the prefilter knows a rule only by its keywords."""
    from ccstate.secrets import gitleaks

    out = []
    for found in gitleaks.rules():
        rule = _Rule(found.id, _NOTHING, _keep)
        rule.finder = found
        out.append(rule)
    return out


_NOTHING = re.compile("(?!)")


def _needs(rule: _Rule) -> tuple[needs.Need, ...]:
    from ccstate.secrets import needs

    if rule.finder is not None:
        keywords = rule.finder.keywords
        return (needs.Need(frozenset(keywords), folded=True),) if keywords else ()
    return needs.needs(rule.gate) if rule.gate is not None else ()


def _prefilter() -> clues.Prefilter:
    if not _prefilters or _prefilters[0][0] is not _compiled[0]:
        from ccstate.secrets import clues

        rules = _rules()
        gates = [_needs(r) for r in rules]
        _prefilters[:] = [(rules[0], clues.Prefilter(prefilter_patterns(rules), gates))]
    return _prefilters[0][1]


def prefilter_patterns(rules: Sequence[_Rule]) -> list[re.Pattern[str]]:
    """What the prefilter reads each rule's needs and stretch from: a gitleaks rule's own
    regex (compiled here, once: the prefilter is built for many texts), whose literals and
    runs say more than its keywords alone (`jwt`'s keyword `ey` is in most texts; its
    regex needs 17 letters or digits after it too)."""
    return [r.finder.pattern if r.finder is not None else r.pattern for r in rules]


def _keep(match: re.Match[str]) -> str:
    return match.group(0)


def maintained_available() -> bool:
    """Is detect-secrets importable here (doctor reports it)?"""
    from importlib.util import find_spec

    return find_spec("detect_secrets") is not None


CUT_SLACK = 8192
# What a cut to a text's head must redact past it: the rest of a secret that starts in the
# head. Every context a rule needs before a secret is then in the head itself, and the
# shapes longer than this match cut short too (a key block without its `END` line, a JWT).
HEAD_SLACK = 1024
# A tail's window: 2 KB before what the cut keeps covers a secret reaching into it and the
# context its rule reads before it (a name, a `curl` line, a key's `BEGIN` line in reach),
# unless those 2 KB could be the inside of a longer secret (only base64 and token characters
# and line ends: a private key's body, a long JWT); then `CUT_SLACK`.
TAIL_SLACK = 2048
_INSIDE_A_SECRET = re.compile(r"[A-Za-z0-9+/=_.\-\r\n]*")


def before_cut(text: str, *, head: int = 0, tail: int = 0, redactor: Redactor | None = None) -> str:
    """`text` redacted wherever a cut to its first `head` and/or last `tail` characters may
    look, so that cutting it afterwards never leaves part of a secret a rule would have found
    whole (#23: a key's `BEGIN` line cut off, then its body kept; a token cut short of its
    length). What is redacted is a window of the head (the tail) at least `HEAD_SLACK`
    (`TAIL_SLACK`, or `CUT_SLACK`) longer, once redacted, than what the cut keeps: a secret
    reaching into the kept part is inside it whole, with what its rule needs, and one the
    window's own edge cuts stays beyond the cut. The text beyond the windows is dropped;
    with both cuts the two windows are joined by a line `…`. A text shorter than its
    windows is redacted whole. `redactor` (default: the rules alone) also
    hides the project's .env values."""
    fn = redactor.redact if redactor is not None else apply_rules
    if not text or not (head or tail):
        return fn(text) if text else text
    if not tail:
        return _window(text, head, fn, HEAD_SLACK, from_end=False)
    slack = _tail_slack(text, tail)
    if not head:
        return _window(text, tail, fn, slack, from_end=True)
    if len(text) <= head + tail + HEAD_SLACK + slack:
        return fn(text)
    first = _window(text, head, fn, HEAD_SLACK, from_end=False)
    return f"{first}\n…\n{_window(text, tail, fn, slack, from_end=True)}"


def _tail_slack(text: str, tail: int) -> int:
    before = text[max(0, len(text) - tail - TAIL_SLACK) : max(0, len(text) - tail)]
    return CUT_SLACK if _INSIDE_A_SECRET.fullmatch(before) else TAIL_SLACK


def _window(text: str, keep: int, fn: Callable[[str], str], slack: int, *, from_end: bool) -> str:
    """The redacted head (or tail) of `text`, long enough that `keep` characters of it end
    `slack` before the window's raw edge however much the marks shortened it."""
    size = keep + slack
    while True:
        out = fn(text[-size:] if from_end else text[:size])
        if size >= len(text) or len(out) >= keep + slack:
            return out
        size = max(size + 1024, keep + slack + size - len(out))


def redact(text: str, literals: Sequence[str] = ()) -> str:
    """One-off redaction (builds a Redactor; reuse `for_project` in loops)."""
    return Redactor(literals).redact(text)


def for_project(project: Path, *, patterns: bool = True) -> Redactor:
    """A Redactor that also hides the values of the project's .env files."""
    return Redactor(envfile.project_values(project), patterns=patterns)
