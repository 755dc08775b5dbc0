"""Secret redaction for everything ccstate writes or injects.

Four sources of truth, applied in this order (docs/RELIABILITY.md "Secrets"):

1. the literal values of the project's `.env` files;
2. the regex detectors of detect-secrets (Yelp, Apache-2.0; a maintained rule set, D-recorded),
   when that package is importable (the CLI and the plugin's venv; a bare `python3` running
   a hook falls back to 3 alone);
3. ccstate's own table of credential shapes (`RULES`): one rule per kind of key or token
   (cloud, payment, registry, chat, CI), plus credentials in command lines
   (`Authorization: Basic`, `curl -u`, `mysql -p`) and a bare AWS secret key. It covers every
   kind in the test corpus by itself, so redaction never depends on the optional package;
4. assignments to a name whose last word says it holds a secret (`password=…`,
   `API_TOKEN: "…"`, `--token …`), keeping the name; values that are references,
   placeholders, counts or types stay, and for key/token names the value must look random.

A match becomes `[REDACTED:<kind>]`, deterministic, saying what was removed. Shapes carry
validators (character classes, entropy), so look-alikes (`sk-spinner-grow`,
`tokenizer=cl100k_base`, `password_reset_url=/accounts/reset`, git SHAs) stay as they are.
Patterns compile on first use: importing this module costs a hook nothing.
"""

from __future__ import annotations

import math
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path
    from typing import Any

    from ccstate.secrets import clues, gitleaks, needs

MARK = "[REDACTED:{}]"
_B64 = r"A-Za-z0-9+/"
# (kind, pattern). A named group `s` marks the part to redact (the rest is kept); without it
# the whole match goes. `(?<![\w-])` style guards keep rules from firing inside longer words.
RULES: tuple[tuple[str, str], ...] = (
    (
        "private-key",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"  # a body, whole or cut short
        r"(?:.{64,}?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\n]{16,})",
    ),
    (
        "aws-key",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[0-9A-Z]{16}\b",
    ),
    ("aws-secret-key", rf"(?<![{_B64}=])[{_B64}]{{40}}(?![{_B64}=])"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{8,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{16,}"),
    ("stripe-webhook-secret", r"\bwhsec_[0-9a-zA-Z]{24,}"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    (
        "gitlab-token",
        r"\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent|feed|sd)-[A-Za-z0-9_-]{16,}",
    ),
    ("slack-token", r"\bxox[abposrec]-\d{6,}-[A-Za-z0-9-]{8,}|\bxapp-\d-[A-Za-z0-9-]{8,}"),
    ("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),
    ("discord-webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]+"),
    ("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}"),
    ("google-oauth-token", r"\bya29\.[0-9A-Za-z_-]{20,}"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("npm-auth", r"_auth(?:Token)?\s*=\s*(?P<s>[^\s\"']{8,})"),
    ("pypi-token", r"\bpypi-[A-Za-z0-9_-]{50,}"),
    ("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,40}\b"),
    ("azure-storage-key", r"(?i:AccountKey)=(?P<s>[A-Za-z0-9+/=]{40,100})"),
    ("azure-sas", r"[?&]sig=(?P<s>[A-Za-z0-9%+/=]{30,})"),
    ("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ("shopify-token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
    ("mailchimp-key", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b"),
    ("mailgun-key", r"\bkey-[0-9a-f]{32}\b"),
    ("square-token", r"\b(?:sq0atp|sq0csp|EAAA)[0-9A-Za-z_-]{22,60}"),
    ("telegram-bot-token", r"\b\d{8,10}:AA[0-9A-Za-z_-]{33}\b"),
    ("discord-bot-token", r"\b[MNO][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,38}\b"),
    ("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{30,}"),
    ("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b"),
    ("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b"),
    ("notion-token", r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,50})\b"),
    ("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"),
    ("age-secret-key", r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b"),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    ("pulumi-token", r"\bpul-[a-f0-9]{40}\b"),
    ("grafana-token", r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"),
    ("newrelic-key", r"\bNRAK-[A-Z0-9]{27}\b"),
    ("alibaba-key", r"\bLTAI[A-Za-z0-9]{20}\b"),
    ("supabase-token", r"\bsbp_[a-f0-9]{40}\b"),
    ("planetscale-token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}"),
    ("sentry-token", r"\bsntrys_[A-Za-z0-9+/=_]{40,}"),
    ("flyio-token", r"\b(?:fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    ("bearer", r"(?i)\bbearer\s+(?P<s>[A-Za-z0-9._~+/=-]{12,})"),
    ("basic-auth", r"(?i)\bbasic\s+(?P<s>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"),
    (  # `://`, or `:/` in a path made normal (`docs/https:/user:pw@host`)
        "url-password",
        r"(?:(?<=://)|(?<=\w:/))[^\s:/@'\"]{1,64}:(?P<s>[^\s@/'\"]{1,128})(?=@)",
    ),
    ("cli-password", r"(?:^|\s)(?:-u|--user)[ =](?P<u>[^\s:'\"]{1,64}):(?P<s>[^\s'\"]{1,128})"),
    (
        "cli-password",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s"
        r"-p(?P<s>[^\s'\"-][^\s'\"]*)",
    ),
    ("cli-password", r"\blogin\b[^\n|;&]*?\s-p\s+(?P<s>[^\s'\"]+)"),  # docker/helm login -p
)


def _classes(s: str) -> int:
    return sum(
        (any(c.islower() for c in s), any(c.isupper() for c in s), any(c.isdigit() for c in s))
    )


def entropy(s: str) -> float:
    """Shannon entropy in bits per character."""
    if not s:
        return 0.0
    counts: dict[str, int] = {}
    for c in s:
        counts[c] = counts.get(c, 0) + 1
    n = len(s)
    return -sum(k / n * math.log2(k / n) for k in counts.values())


def looks_random(value: str, *, min_len: int = 8, min_entropy: float = 3.0) -> bool:
    """Could `value` be a generated credential rather than a word, path, number or URL?"""
    if len(value) < min_len or re.fullmatch(_PLAIN, value) or _is_path(value):
        return False
    return _classes(value) >= 2 and entropy(value) >= min_entropy


def _is_path(value: str) -> bool:
    """A path is names between slashes (`src/app/main.py`, `/run/secrets/api_key`); a random
    value with slashes (`wJalrXUtnFEMI/K7MDENG/bPxRfiCY...`, base64) is not (#23)."""
    if "/" not in value:
        return False
    parts = [p for p in value.split("/") if p not in ("", ".", "..", "~")]
    return bool(parts) and all(re.fullmatch(_PATH_PART, p) for p in parts)


def placeholder(value: str) -> bool:
    """Is `value` a stand-in for a secret (`ghp_xxxx…`, `AKIA…EXAMPLE`, `abcdefgh…`,
    `YOUR_TOKEN_HERE`) rather than one? As gitleaks' allowlists judge them."""
    return re.search(_PLACEHOLDER, value) is not None


_WORDS = r"[a-z]+(?:[_.-][a-z]+)*|[A-Z]+(?:[_.-][A-Z]+)*|[A-Za-z][a-z]+(?:[A-Z][a-z]+)*"
_PLAIN = (
    rf"{_WORDS}|\d+(?:[.,:]\d+)*|v?\d+(?:\.\d+)+[\w.-]*"  # words, numbers, versions
    r"|[A-Za-z]+(?:[_.-][A-Za-z]+)*[_.:-]v?\d+(?:\.\d+)+[\w.-]*"  # artifacts: jjwt-jackson-0.11.2
    r"|https?://[^@\s]*"  # URLs without credentials
)
# One name of a path: words, numbers, a file name with its extension, a version.
_PATH_PART = (
    rf"(?:{_WORDS}|\d+|v?\d+(?:\.\d+)+)(?:[_.-](?:[A-Za-z]+|\d+))*(?:\.\w{{1,8}})?|[\w.-]{{1,3}}"
)
_PLACEHOLDER = (
    r"([xX*#.1])\1{5}|(?i:example|placeholder|your[_-]?(?:api|secret|token|key|pass)"
    r"|_here\b|here$|abcdefghijklmnopqrstuvwxyz)"
)
# Validators by kind: a candidate the validator refuses is left as it is.
_CHECKS: dict[str, Callable[[str], bool]] = {
    "openai-key": lambda s: _classes(s[3:]) == 3 and entropy(s) >= 3.5,
    "aws-secret-key": lambda s: _classes(s) == 3 and entropy(s) >= 4.2,
    "twilio-key": lambda s: _classes(s[2:]) >= 2,
    "basic-auth": lambda s: len(s) >= 12 and _classes(s) >= 2,
    "bearer": lambda s: _classes(s) >= 2,
    "square-token": lambda s: _classes(s) == 3,
    "discord-bot-token": lambda s: _classes(s) == 3,
    "cli-password": lambda s: (
        not re.fullmatch(
            r"\$\{?\w+\}?|\*+|<?[^>]*>|\[[^\]]*\]|\d+|(?i:pass(?:word)?|token|secret)", s
        )
    ),
    "npm-auth": lambda s: not re.fullmatch(r"\$\{?\w+\}?", s),
}

# --------------------------------------------------------------------------- assignments
# The last word of the name must say "secret": `db_password`, `GITHUB_TOKEN`, `client_secret`,
# `api_key`, `AWS_SECRET_ACCESS_KEY`. Not `password_reset_url`, `tokenizer`, `max_tokens`.
_WORDS_ALWAYS = r"passw(?:or)?d|passphrase|pwd|secret|token|credentials?|apikey|pat"
_KEY_PREFIX = (
    r"api|access|secret|private|auth|session|encryption|signing|master|client|account|app|"
    r"license|service|admin|deploy|webhook|storage|shared"
)
_SECRET_NAME = (
    rf"[A-Za-z0-9_.-]*?(?:{_WORDS_ALWAYS}|(?:{_KEY_PREFIX})[_.-]?key)"  # ends in a secret word
)
_NAME = r"(?P<name>(?<![\w.$-])[A-Za-z0-9_.-]{1,80})"  # checked against _SECRET_END after
_VALUE = (
    r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|`(?P<bq>[^`\n]*)`"
    r"|(?P<bare>(?!=)[^\s\"'`,;&)}\]>]+))"
)
_ASSIGNMENT_SEP = r"[\"']?[ \t]*(?::=|=>|=|:)"
_FLAG_SEP = r"[ \t]+|="
_ASSIGNMENT = r"(?i)" + _NAME + rf"(?P<sep>{_ASSIGNMENT_SEP}[ \t]*)" + _VALUE
_FLAG = rf"(?i)(?P<name>--[A-Za-z0-9_.-]{{1,80}})(?P<sep>{_FLAG_SEP})" + _VALUE
_SECRET_END = re.compile(r"(?i)" + _SECRET_NAME)  # fullmatch: the name ends in a secret word
# An assignment is redacted only when its name ends in a secret word (`_SECRET_END`) right
# before its separator: a text without a secret word followed by a separator holds none.
_SECRET_WORD = rf"(?:{_WORDS_ALWAYS}|key)"
_ASSIGNMENT_GATE = rf"(?i){_SECRET_WORD}(?:{_ASSIGNMENT_SEP})"
_FLAG_GATE = rf"(?i){_SECRET_WORD}(?:{_FLAG_SEP})"
# On a text without the four characters of `_folds_to_ascii` the same gates run on the
# lower-cased text without `(?i)`, several times faster (`_SECRET_WORD` is lower case; the
# separators hold no letter).
# Values that name no secret: references, placeholders, booleans, type names, calls.
_HARMLESS_VALUE = (
    r"(?i)^(?:\$\{?\w+\}?|\$\{[^}]*\}?|\$\(.*|\{[\w.]+\}?|%\w+%|<[^>]*>|\{\{.*\}\}|\*+|x+|\.\.\.|…"
    r"|none|null|nil|true|false"
    r"|undefined|\[REDACTED[^\]]*\]?|str|string|int|bool|number|bytes|secretstr|optional\[.*"
    r"|[\w.]+\(.*|[\w.]+\[.*|os\.environ.*|process\.env.*|getenv.*|env\..*|self\.\w+|"
    r"required|optional|changeme|redacted|hidden|masked|empty|unset|your[_-].*|my[_-].*)$"
)
_PUBLIC = r"(?i)publi(?:c|shable)|[cx]srf"  # `public_key`, `csrf-token`: meant to be seen
_REF = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"  # an unquoted `var.db_password`: a reference
# Names whose value is a secret whatever it looks like; for the others (token, key) the value
# must look generated.
_PASSWORD_WORDS = re.compile(r"(?i)(?:passw(?:or)?d|passphrase|pwd|secret|credentials?)$")

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
            return _sub_assignments(self.pattern, text)
        return self.pattern.sub(self.replace, text)


def _folds_to_ascii(text: str) -> bool:
    """Does `text` hold a character that `(?i)` matches with an ASCII letter, or that lower-
    cases to one (`needs.FOLDS_TO_ASCII`)? Without one, `(?i)` on ASCII letters is lower()."""
    return "\u212a" in text or "\u017f" in text or "\u0130" in text or "\u0131" in text


def _replacer(kind: str) -> Callable[[re.Match[str]], str]:
    check = _CHECKS.get(kind)
    mark = MARK.format(kind)

    def replace(match: re.Match[str]) -> str:
        names = match.re.groupindex
        group = "s" if "s" in names else (1 if match.re.groups else 0)
        secret = match.group(group)
        if not secret or _in_mark(match, group) or placeholder(secret):
            return match.group(0)
        if check is not None and not check(secret):
            return match.group(0)
        start, end = match.start(group) - match.start(), match.end(group) - match.start()
        whole = match.group(0)
        return whole[:start] + mark + whole[end:]

    return replace


def _in_mark(match: re.Match[str], group: int | str) -> bool:
    """Does the match's secret touch a mark an earlier rule left (`-u [REDACTED:x]` is no
    `user:password`)?"""
    text, start, end = match.string, match.start(group), match.end(group)
    opened = text.rfind("[REDACTED:", 0, end)
    return opened >= 0 and text.find("]", opened) >= start


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
        found = [(kind, re.compile(pattern, re.DOTALL)) for kind, pattern in RULES]
        found += _maintained_rules()
        rules += [_Rule(kind, p, _replacer(kind)) for kind, p in found]
        for pattern, gate in ((_FLAG, _FLAG_GATE), (_ASSIGNMENT, _ASSIGNMENT_GATE)):
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


# detect-secrets' regex plugins (module, class) for the kinds gitleaks' rule set has no rule
# for (D14: its other detectors changed gitleaks' false-positive samples, e.g. any 20 capitals
# after `ASIA`). Keyword and entropy plugins are left out: rule 4 covers assignments with
# fewer false positives, and prose has no quotes to anchor on.
MAINTAINED_PLUGINS = (
    ("cloudant", "CloudantDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"),
    ("ibm_cos_hmac", "IbmCosHmacDetector"),
    ("softlayer", "SoftlayerDetector"),
)


def _maintained_rules() -> list[tuple[str, re.Pattern[str]]]:
    """detect-secrets' denylist regexes, when the package is installed (else none).

    Importing detect-secrets costs a few hundred milliseconds (its package imports its scanner
    and filters), more than a SessionEnd hook in `claude -p` may take; so the regexes are read
    from the installed package once and kept in the user's cache, keyed by where it is
    installed and when it changed."""
    import json
    import os
    from importlib.util import find_spec

    try:
        spec = find_spec("detect_secrets")
    except (ImportError, ValueError):
        return []
    folders = list(spec.submodule_search_locations or ()) if spec else []
    if not folders:
        return []
    try:
        key = f"{folders[0]}:{os.stat(os.path.join(folders[0], 'plugins')).st_mtime_ns}"
    except OSError:
        return []
    from ccstate import paths, store

    cache = paths.user_cache_dir() / "detect-secrets-rules.json"
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data.get("key") == key:
            return [(kind, re.compile(p, flags)) for kind, p, flags in data["rules"]]
    except (OSError, ValueError, TypeError, KeyError, re.error):
        pass
    rules = _import_maintained_rules()
    rows = [(kind, p.pattern, p.flags) for kind, p in rules]
    try:
        store.atomic_write_json(cache, {"key": key, "rules": rows}, durable=False, private=True)
    except OSError:  # a read-only cache: read the package again next time
        return rules
    return rules


def _import_maintained_rules() -> list[tuple[str, re.Pattern[str]]]:
    import importlib

    rules: list[tuple[str, re.Pattern[str]]] = []
    for module, name in MAINTAINED_PLUGINS:
        try:
            plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)
        except (ImportError, AttributeError):
            continue
        kind = name.removesuffix("Detector").lower()
        rules += [(kind, p) for p in getattr(plugin, "denylist", ()) if isinstance(p, re.Pattern)]
    return rules


def maintained_available() -> bool:
    """Is detect-secrets importable here (doctor reports it)?"""
    from importlib.util import find_spec

    return find_spec("detect_secrets") is not None


def _sub_assignments(pattern: re.Pattern[str], text: str) -> str:
    """`pattern.sub(_redact_assignment, text)`, except that a candidate whose name holds no
    secret does not swallow its value: `error: API_TOKEN=…` must still reach `API_TOKEN`."""
    out: list[str] = []
    pos = last = 0
    while (match := pattern.search(text, pos)) is not None:
        replaced = _redact_assignment(match)
        if replaced == match.group(0):
            pos = match.end("name")
            continue
        out += (text[last : match.start()], replaced)
        last = pos = match.end()
    out.append(text[last:])
    return "".join(out)


def _redact_assignment(match: re.Match[str]) -> str:
    value, quote = "", ""
    for group, mark in (("dq", '"'), ("sq", "'"), ("bq", "`"), ("bare", "")):
        if match.group(group) is not None:
            value, quote = match.group(group), mark
            break
    name = match.group("name")
    if not _SECRET_END.fullmatch(name.lstrip("-")):
        return match.group(0)
    if not value or re.match(_HARMLESS_VALUE, value) or "[REDACTED" in value:
        return match.group(0)
    if placeholder(value) or re.search(_PUBLIC, name) or (not quote and re.fullmatch(_REF, value)):
        return match.group(0)
    if _PASSWORD_WORDS.search(name.rstrip("_-.")):
        secret = len(value) >= 4 and not value.isdigit()
    else:
        secret = looks_random(value) or (bool(quote) and looks_random(value, min_entropy=2.5))
    if not secret:
        return match.group(0)
    marked = f"{quote}{MARK.format('assignment')}{quote}"
    return f"{name}{match.group('sep')}{marked}"


# No secret shape we know is longer than this (an RSA-4096 private key is ~3.3 KB of PEM):
# what a cut to a text's tail must redact before it, for a secret reaching into the tail to
# be seen from its start (a key's `BEGIN` line, an assignment's name).
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


ENV_FILE_GLOB = ".env*"
ENV_MIN_CHARS = 6  # shorter .env values (ports, flags) would redact ordinary words
_ENV_LINE = r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$"
_ENV_SECRETISH_NAME = r"(?i)key|secret|token|pass|pwd|auth|credential|private|dsn"
_PLAIN_WORD = r"^[a-z][a-z0-9_-]*$|^\d+(?:\.\d+)*$|^https?://[^@\s]*$"
_ENV_MAX_FILES = 20
_ENV_MAX_BYTES = 256 * 1024


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
    import os
    import stat

    texts = []
    for path in env_files(project):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO named .env never blocks
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                texts.append(os.read(fd, _ENV_MAX_BYTES).decode("utf-8", "replace"))
        except OSError:
            pass
        finally:
            os.close(fd)
    return Redactor(env_values(texts), patterns=patterns)
