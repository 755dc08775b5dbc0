"""Secret redaction for everything ccstate writes or injects (standard library only).

Two sources of truth: patterns for well-known credential shapes (cloud keys,
API tokens, private-key blocks, JWTs, `password=`-style assignments) and the
literal values of the project's `.env` files. A match becomes `[REDACTED:<kind>]`,
so the output stays deterministic and says what was removed.

Err on the side of removing too much: a handoff that says `token=[REDACTED:assignment]`
loses nothing a successor needs, a leaked key is a real incident.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

# (kind, pattern); order matters only for readability of the marker: the first kind wins.
_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "private-key",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\n]*)",
    ),
    ("aws-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{8,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    (
        "gitlab-token",
        r"\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent|feed|sd)-[A-Za-z0-9_-]{16,}",
    ),
    ("slack-token", r"\bxox[abposrec]-[A-Za-z0-9-]{8,}|\bxapp-\d-[A-Za-z0-9-]{8,}"),
    ("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    ("bearer", r"(?i)(?<=\bbearer )[A-Za-z0-9._~+/=-]{12,}"),
    ("url-password", r"(?<=://)[^\s:/@'\"]{1,64}:[^\s@/'\"]{1,128}(?=@)"),
)
# An assignment to a name that says it holds a secret: `password=...`, `API_TOKEN: "..."`,
# `"client_secret": "..."`, `--token ...`. The value is redacted, the name kept.
_SECRET_NAME = (
    r"[A-Za-z0-9_.-]*(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|apikey"
    r"|access[_-]?key|auth[_-]?key|private[_-]?key|credential|session[_-]?key)[A-Za-z0-9_.-]*"
)
_VALUE = (
    r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|`(?P<bq>[^`\n]*)`"
    r"|(?P<bare>(?!=)[^\s\"'`,;&)}\]>]+))"
)
_ASSIGNMENT = (
    r"(?i)(?P<name>\b" + _SECRET_NAME + r")(?P<sep>[\"']?[ \t]*(?::=|=>|=|:)[ \t]*)" + _VALUE
)
_FLAG = r"(?i)(?P<name>--" + _SECRET_NAME + r")(?P<sep>[ \t]+|=)" + _VALUE
# Patterns are compiled on first use (re caches them): SessionStart imports this module.
# Values that name no secret: references, placeholders, short numbers, booleans, type names.
_HARMLESS_VALUE = (
    r"(?i)^(?:\$\{?\w+\}?|%\w+%|<[^>]*>|\*+|x+|\.\.\.|none|null|nil|true|false|undefined"
    r"|\[REDACTED[^\]]*\]?|str|string|int|bool|number|optional\[.*|[\w.]+\(\)?"
    r"|[\w.]+\[|os\.environ.*|process\.env.*|getenv.*|env\..*)$"
)
_compiled: list[tuple[str, re.Pattern[str]]] = []  # filled on first use: ~6 ms of compiling
# Each pattern can match only where one of its clues is in the text: a kind runs only when
# its clue is there, and a text without any is returned as it is. The marks put in by one
# pattern hold no other pattern's clue, so the result is the same as running them all,
# several times faster on ordinary text (recall redacts every moment it indexes;
# tests/test_redact.py checks the equivalence on the public transcripts).
# (compiled on first use, like the patterns: SessionStart imports this module)
_CLUE_PATTERNS = (
    r"A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|NPA|NVA|IPA)",
    r"gh[pousr]_|github_pat_",
    r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent|feed|sd)-",
)
_clues: list[re.Pattern[str]] = []
_SECRET_WORDS = ("passw", "passphrase", "pwd", "secret", "token", "key", "credential")


def _clue_patterns() -> list[re.Pattern[str]]:
    """AWS, GitHub and GitLab prefixes, and a secret word (any case): compiled once."""
    if not _clues:
        _clues.extend(re.compile(p) for p in _CLUE_PATTERNS)
        _clues.append(re.compile("|".join(_SECRET_WORDS), re.IGNORECASE))
    return _clues


def _kinds_present(text: str) -> set[str]:
    """The pattern kinds whose clues `text` holds (a superset of those that can match)."""
    aws, github, gitlab, _word = _clue_patterns()
    present = set()
    if "-----BEGIN" in text:
        present.add("private-key")
    if aws.search(text):
        present.add("aws-key")
    if "sk-" in text:
        present.update(("anthropic-key", "openai-key"))
    if github.search(text):
        present.add("github-token")
    if gitlab.search(text):
        present.add("gitlab-token")
    if "xox" in text or "xapp-" in text:
        present.add("slack-token")
    if "hooks.slack.com/" in text:
        present.add("slack-webhook")
    if "eyJ" in text:
        present.add("jwt")
    if "://" in text:
        present.add("url-password")
    lower = text.lower()
    if "bearer " in lower:
        present.add("bearer")
    if any(word in lower for word in _SECRET_WORDS):
        present.add("assignment")
    return present


MARK = "[REDACTED:{}]"
ENV_FILE_GLOB = ".env*"
ENV_MIN_CHARS = 6  # shorter .env values (ports, flags) would redact ordinary words
_ENV_LINE = r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$"
_ENV_SECRETISH_NAME = r"(?i)key|secret|token|pass|pwd|auth|credential|private|dsn"
_PLAIN_WORD = r"^[a-z][a-z0-9_-]*$|^\d+(?:\.\d+)*$|^https?://[^@\s]*$"
_ENV_MAX_FILES = 20
_ENV_MAX_BYTES = 256 * 1024


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
        present = _kinds_present(text)
        if not present:
            return text
        for kind, pattern in _patterns():
            if kind == "assignment" and kind in present:
                text = _assignments(pattern, text)
            elif kind in present:
                text = pattern.sub(MARK.format(kind), text)
        return text


def _assignments(pattern: re.Pattern[str], text: str) -> str:
    """`pattern.sub` over the lines holding a secret word only: an assignment never spans a
    line (no part of it matches a newline), and the pattern is the slowest of all."""
    if "\n" not in text:
        return pattern.sub(_redact_assignment, text)
    word = _clue_patterns()[3]
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if word.search(line):
            lines[number] = pattern.sub(_redact_assignment, line)
    return "\n".join(lines)


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    if not _compiled:
        found = [(kind, re.compile(pattern, re.DOTALL)) for kind, pattern in _PATTERNS]
        found += [("assignment", re.compile(_FLAG)), ("assignment", re.compile(_ASSIGNMENT))]
        _compiled[:] = found
    return _compiled


def _redact_assignment(match: re.Match[str]) -> str:
    value, quote = "", ""
    for group, mark in (("dq", '"'), ("sq", "'"), ("bq", "`"), ("bare", "")):
        if match.group(group) is not None:
            value, quote = match.group(group), mark
            break
    if not value or re.match(_HARMLESS_VALUE, value):
        return match.group(0)
    if value.isdigit() and "token" in match.group("name").lower():
        return match.group(0)  # max_tokens=8000: a count, not a credential
    marked = f"{quote}{MARK.format('assignment')}{quote}"
    return f"{match.group('name')}{match.group('sep')}{marked}"


def redact(text: str, literals: Sequence[str] = ()) -> str:
    """One-off redaction (builds a Redactor; reuse `for_project` in loops)."""
    return Redactor(literals).redact(text)


def env_values(texts: Iterable[str]) -> list[str]:
    """Values in `.env`-style texts worth hiding: secret-named keys, or any non-plain word."""
    values: list[str] = []
    for text in texts:
        for line in text.splitlines():
            match = re.match(_ENV_LINE, line)
            if not match or line.lstrip().startswith("#"):
                continue
            name, value = match.group(1), _unquote(match.group(2))
            if len(value) < 4 or re.match(_HARMLESS_VALUE, value):
                continue
            if re.search(_ENV_SECRETISH_NAME, name) or (
                len(value) >= ENV_MIN_CHARS and not re.match(_PLAIN_WORD, value)
            ):
                values.append(value)
    return values


def _unquote(value: str) -> str:
    if " #" in value and not value.startswith(("'", '"')):
        value = value.split(" #", 1)[0].rstrip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def env_files(project: Path) -> list[Path]:
    """The project's `.env`, `.env.local`, `.env.production`, ... (top level, files only)."""
    try:
        found = sorted(p for p in project.glob(ENV_FILE_GLOB) if p.is_file())
    except OSError:
        return []
    return found[:_ENV_MAX_FILES]


def for_project(project: Path, *, patterns: bool = True) -> Redactor:
    """A Redactor that also hides the values of the project's .env files."""
    texts = []
    for path in env_files(project):
        try:
            with path.open("r", encoding="utf-8", errors="replace") as fh:
                texts.append(fh.read(_ENV_MAX_BYTES))
        except OSError:
            continue
    return Redactor(env_values(texts), patterns=patterns)
