"""gitleaks' default rule set, applied to a text as gitleaks applies it (D14).

`gitleaks_rules.json` (package data, MIT, made by scripts/generate/gitleaks_rules.py from gitleaks'
`config/gitleaks.toml` at the commit it names) holds, per rule: a regex (rewritten for Python's
`re`), keywords, an entropy floor, a secret group and allowlists. `Rule.secrets(text)` gives
the spans gitleaks would report as secrets in `text`, deciding as gitleaks' detector does
(detect/detect.go `detectRule`):

- the rule runs only when the lower-cased text holds one of its keywords;
- each match, trimmed of newlines, is matched again alone; its secret is the rule's secret
  group, else the first non-empty group, else the whole match;
- a secret whose Shannon entropy is at most the rule's floor is no secret;
- nor one the global allowlist or one of the rule's allowlists allows (regexes on the secret,
  the match or the line; stopwords in the lower-cased secret; `all`: every check must hold).

File paths are not known here: path conditions were dropped when the JSON was made. A rule's
regex compiles the first time a text holds one of its keywords (compiling all 221 would cost
a hook a quarter of a second). Standard library only.
"""

from __future__ import annotations

import json
import math
import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

RULES_FILE = os.path.join(os.path.dirname(__file__), "gitleaks_rules.json")
# gitleaks' GenerateSemiGenericRegex: `(?i)[\w.-]{0,50}?(?:<keywords>)...`
_SEMI_GENERIC = "(?i)[\\w.-]{0,50}?(?:"
_PREFIX_MAX = 50
_NAME_RUN = re.compile(r"[\w.-]+", re.ASCII)  # what the prefix and a name are made of


class Allowlist:
    """What a rule (or every rule) lets through."""

    __slots__ = ("_stopwords", "all", "regexes", "stopwords", "target")

    def __init__(self, data: dict[str, Any]) -> None:
        self.target: str = data.get("target", "secret")
        self.regexes = [re.compile(p, re.ASCII) for p in data.get("regexes", ())]
        self.stopwords: tuple[str, ...] = tuple(data.get("stopwords", ()))
        self.all = bool(data.get("all"))
        self._stopwords: re.Pattern[str] | None = None

    def allows(self, secret: str, match: str, line: str) -> bool:
        target = match if self.target == "match" else line if self.target == "line" else secret
        checks = []
        if self.regexes:
            checks.append(any(p.search(target) for p in self.regexes))
        if self.stopwords:
            checks.append(self._stopword_in(secret.lower()))
        return all(checks) if self.all else any(checks)

    def _stopword_in(self, lower: str) -> bool:
        """Does `lower` hold a stopword? One search for all of them (generic-api-key has
        1,500: an `in` each cost more than the rule's regex)."""
        if self._stopwords is None:
            words = sorted(self.stopwords, key=len, reverse=True)
            self._stopwords = re.compile("|".join(map(re.escape, words)))
        return self._stopwords.search(lower) is not None


class Rule:
    """One gitleaks rule; its regex and allowlists compile on first use."""

    __slots__ = ("_allowlists", "_data", "_pattern", "entropy", "group", "id", "keywords")

    def __init__(self, data: dict[str, Any]) -> None:
        self.id: str = data["id"]
        self.keywords: tuple[str, ...] = tuple(data.get("keywords", ()))
        self.entropy: float = float(data.get("entropy", 0))
        self.group: int = int(data.get("group", 0))
        self._data = data
        self._pattern: re.Pattern[str] | None = None
        self._allowlists: list[Allowlist] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(transcript_bounds(self._data["regex"]), re.ASCII)
        return self._pattern

    def wants(self, lower: str) -> bool:
        """Does the lower-cased text hold one of the rule's keywords (gitleaks' prefilter)?"""
        return not self.keywords or any(k in lower for k in self.keywords)

    def secrets(
        self, text: str, lower: str | None = None, *, to_redact: bool = False
    ) -> list[tuple[int, int]]:
        """The spans of `text` gitleaks would report as secrets of this rule, in order.
        `to_redact`: for a rule whose groups only name which alternative matched
        (`jwt-base64`: `(?P<alg>aGJHY2lPaU)|...`, no secret group), where gitleaks reports
        that label as the secret, the whole match instead: the label is a JWT's header, the
        token is what follows it (#23)."""
        if not self.wants(text.lower() if lower is None else lower):
            return []
        whole = to_redact and not self.group and bool(self.pattern.groupindex)
        spans = []
        for found in self._matches(text, text.lower() if lower is None else lower):
            span = self._secret(text, found)
            if span is not None:
                spans.append((found.start(), found.end()) if whole else span)
        return spans

    def _matches(self, text: str, lower: str) -> Iterator[re.Match[str]]:
        """`pattern.finditer(text)`; for a rule of gitleaks' "semi-generic" shape (a name of up
        to 50 `[\\w.-]` ending in a keyword, then an operator and the value), tried only where
        a match can start: up to 50 characters before a keyword. Python's backtracking engine
        would otherwise try the 50-character prefix at every position of the text."""
        if not self._data["regex"].startswith(_SEMI_GENERIC) or len(lower) != len(text):
            yield from self.pattern.finditer(text)
            return
        pos = 0
        while True:
            found = [i for i in (lower.find(k, pos) for k in self.keywords) if i >= 0]
            if not found:
                return
            keyword = min(found)
            match = self._match_before(text, max(pos, keyword - _PREFIX_MAX), keyword)
            if match is None:
                pos = keyword + 1
                continue
            yield match
            pos = max(match.end(), match.start() + 1)

    def _match_before(self, text: str, first: int, keyword: int) -> re.Match[str] | None:
        """The match starting leftmost in `first..keyword`, as trying each position would
        find it, trying fewer: a match starts on a `[\\w.-]` character (its name's), and
        from the start of a run of them it reaches every name the run holds when the run
        is no longer than the 50 the prefix allows, so no later start in it can match."""
        start = first
        while start <= keyword:
            run = _NAME_RUN.search(text, start, keyword + 1)
            if run is None:
                return None
            start = run.start()
            match = self.pattern.match(text, start)
            if match is not None:
                return match
            end = _NAME_RUN.match(text, start)
            stop = end.end() if end is not None else start + 1
            start = stop + 1 if stop - start <= _PREFIX_MAX else start + 1
        return None

    def _secret(self, text: str, found: re.Match[str]) -> tuple[int, int] | None:
        raw = found.group(0)
        match = raw.strip("\n")
        start = found.start() + len(raw) - len(raw.lstrip("\n"))
        secret, offset = match, 0
        again = self.pattern.search(match)
        if again is not None and self.pattern.groups:
            if self.group:
                if self.group > self.pattern.groups:
                    return None
                secret, offset = again.group(self.group) or "", again.start(self.group)
            else:
                for number in range(1, self.pattern.groups + 1):
                    if again.group(number):
                        secret, offset = again.group(number), again.start(number)
                        break
        if not secret or (self.entropy and entropy(secret) <= self.entropy):
            return None
        end = start + len(match)
        line = text[text.rfind("\n", 0, start) + 1 : _line_end(text, end)]
        for allowlist in _global_allowlists() + self._lists():
            if allowlist.allows(secret, match, line):
                return None
        return start + offset, start + offset + len(secret)

    def _lists(self) -> list[Allowlist]:
        if self._allowlists is None:
            self._allowlists = [Allowlist(a) for a in self._data.get("allowlists", ())]
        return self._allowlists


# Where transcripts put a secret (#37). gitleaks' rules end one where a config file does: at a
# quote, a space, a semicolon, a JSON-escaped newline or the end (`(?:[\x60'"\s;]|\\[nr]|$)`
# in 152 rules; a few have a class of their own). A transcript also ends one with markup and
# punctuation: `</tool_use_error>`, `(key)`, `[key]`, `|key|`, a JSON-escaped tab or quote, a
# `,` or `.` ending a clause; and starts one right after a JSON-escaped newline or tab, where
# `\b` sees no boundary (`\nAIza…`: `n` and `A` are both word characters). So a rule's end group
# (a last group of classes and anchors) takes those endings too, `,` and `.` only when another
# ending follows them (in `video_box.ico-<hex>.png` or a cut `ops_eyJ…..[Redacted]` they end
# nothing: gitleaks' false positives stay as they are, tests/secrets/test_gitleaks.py), and a
# rule that starts at `\b` or at a start group may also start after an escape or an opening
# mark.
_ESCAPE = r"""\\[nrt"]"""  # a JSON-escaped newline, return, tab or quote
_ENDING = r"""[\s\x60'"<>)\]|;]|""" + _ESCAPE + "|$"
TRANSCRIPT_END = r"""[\x60'"<>)\]|]|""" + _ESCAPE + r"|[.,](?=" + _ENDING + ")"
TRANSCRIPT_START = r"""[\x60'"<>(\[|]|(?<=""" + _ESCAPE + ")"
_BOUND = r"(?:\[(?:\\.|[^\]\\])*\]|\\s|\^|\$|\\A|\\Z|\\B|\\b|\\\\\[[a-z]+\])"
_BOUNDS = _BOUND + r"(?:\|" + _BOUND + r")*"  # alternatives of classes and anchors only
_END_GROUP = re.compile(r"\(\?:(" + _BOUNDS + r")\)\Z")
_START_GROUP = re.compile(r"\A((?:\(\?i\))?)\(\?:(" + _BOUNDS + r")\)")
_LEADING = re.compile(r"\A(?:\(\?i\)|\((?!\?)|\\b)+")  # `(?i)\b(\b(` before a rule's first atom


def transcript_bounds(regex: str) -> str:
    """`regex`, a gitleaks rule's, with the endings and starts a transcript gives a secret
    (above): its end group and start group widened, a leading `\b` also true after an escape."""
    end = _END_GROUP.search(regex)
    if end is not None:
        regex = f"{regex[: end.start()]}(?:{end.group(1)}|{TRANSCRIPT_END})"
    start = _START_GROUP.match(regex)
    if start is not None:
        rest = regex[start.end() :]
        regex = f"{start.group(1)}(?:{start.group(2)}|{TRANSCRIPT_START}){rest}"
    after = r"(?:\b|(?<=" + _ESCAPE + "))"
    return _LEADING.sub(lambda m: m.group(0).replace(r"\b", after), regex, count=1)


def _line_end(text: str, end: int) -> int:
    found = text.find("\n", end)
    return len(text) if found < 0 else found


def entropy(s: str) -> float:
    """Shannon entropy in bits per character, as gitleaks computes it."""
    counts: dict[str, int] = {}
    for c in s:
        counts[c] = counts.get(c, 0) + 1
    n = len(s)
    return -sum(k / n * math.log2(k / n) for k in counts.values())


_loaded: list[Any] = []  # [rules, global allowlists, source commit]


def _load() -> list[Any]:
    if not _loaded:
        with open(RULES_FILE, encoding="utf-8") as fh:
            data = json.load(fh)
        glob = [Allowlist(data["allowlist"])] if data.get("allowlist") else []
        _loaded[:] = [[Rule(r) for r in data["rules"]], glob, data.get("commit", "")]
    return _loaded


def rules() -> list[Rule]:
    """Every rule of the set, in gitleaks' order."""
    return list(_load()[0])


def _global_allowlists() -> list[Allowlist]:
    return list(_load()[1])


def commit() -> str:
    """The gitleaks commit the rules come from (doctor and docs cite it)."""
    return str(_load()[2])
