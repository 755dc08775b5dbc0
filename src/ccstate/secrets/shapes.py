"""ccstate's own secret shapes: the table of credential kinds, their validators, and
assignments to a secret-named name (rules 3 and 4 of `redact.py`).

- `RULES`: one rule per kind of key or token (cloud, payment, registry, chat, CI), plus
  credentials in command lines (`Authorization: Basic`, `curl -u`, `mysql -p`) and a bare AWS
  secret key. It covers every kind in the test corpus by itself, so redaction never depends on
  an optional package. A candidate its validator refuses (`_CHECKS`: character classes,
  entropy), or a placeholder (`placeholder`), stays: look-alikes such as `sk-spinner-grow` or a
  git SHA are left as they are.
- Assignments (`ASSIGNMENT`, `FLAG`): a name whose last word says it holds a secret
  (`password=…`, `API_TOKEN: "…"`, `--token …`) keeps its name and loses its value; values
  that are references, placeholders, counts or types stay (`HARMLESS_VALUE`), and for key and
  token names the value must look random (`looks_random`).

A match becomes `MARK` with its kind. Patterns are strings here: `redact.py` compiles them on
first use (two small ones compile at import).
"""

from __future__ import annotations

import math
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

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
ASSIGNMENT = r"(?i)" + _NAME + rf"(?P<sep>{_ASSIGNMENT_SEP}[ \t]*)" + _VALUE
FLAG = rf"(?i)(?P<name>--[A-Za-z0-9_.-]{{1,80}})(?P<sep>{_FLAG_SEP})" + _VALUE
_SECRET_END = re.compile(r"(?i)" + _SECRET_NAME)  # fullmatch: the name ends in a secret word
# An assignment is redacted only when its name ends in a secret word (`_SECRET_END`) right
# before its separator: a text without a secret word followed by a separator holds none.
_SECRET_WORD = rf"(?:{_WORDS_ALWAYS}|key)"
ASSIGNMENT_GATE = rf"(?i){_SECRET_WORD}(?:{_ASSIGNMENT_SEP})"
FLAG_GATE = rf"(?i){_SECRET_WORD}(?:{_FLAG_SEP})"
# On a text without the four characters of `_folds_to_ascii` the same gates run on the
# lower-cased text without `(?i)`, several times faster (`_SECRET_WORD` is lower case; the
# separators hold no letter).
# Values that name no secret: references, placeholders, booleans, type names, calls.
HARMLESS_VALUE = (
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


def replacer(kind: str) -> Callable[[re.Match[str]], str]:
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


def sub_assignments(pattern: re.Pattern[str], text: str) -> str:
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
    if not value or re.match(HARMLESS_VALUE, value) or "[REDACTED" in value:
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
