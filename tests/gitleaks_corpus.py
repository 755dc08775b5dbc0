"""gitleaks' own rule samples (tests/fixtures/gitleaks/, issue #23), read for the tests.

`TRUE_POSITIVES`: (rule, text, secrets) for every true positive whose text holds a secret;
`FALSE_POSITIVES`: (rule, text) for every false positive that must come through unchanged (the
ones another gitleaks rule still flags, and those only a file name makes false, are left out:
gitleaks itself would report them). `BY_DESIGN` lists, per rule, how many false positives
ccstate redacts on purpose, with the reason (docs/RELIABILITY.md says the same). `WRAPPERS`:
what a transcript puts around a secret (#37).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "generate"))

import gitleaks_fixture

DATA = gitleaks_fixture.load()
RULES = DATA["rules"]
TRUE_POSITIVES = [
    (r["id"], tp["text"], tp["secrets"]) for r in RULES for tp in r["tps"] if tp["secrets"]
]
FALSE_POSITIVES = [
    (r["id"], fp["text"])
    for r in RULES
    for fp in r["fps"]
    if not fp["flagged_by"] and not fp.get("only_by_path")
]
_TRUNCATED = "a vendor's exact prefix on a key cut short or mistyped: a cut key is still a key"
_ASSIGNED = "a random-looking value assigned to a name that says token or key"
BY_DESIGN = {
    "anthropic-admin-api-key": (2, _TRUNCATED),
    "anthropic-api-key": (2, _TRUNCATED),
    "sentry-org-token": (3, _TRUNCATED),
    "slack-user-token": (1, _TRUNCATED),
    "mailchimp-api-key": (1, "a key of the exact Mailchimp shape passed as `token:`"),
    "generic-api-key": (1, "`apiKey:` with 32 hex characters (a stopword of gitleaks' list)"),
    "settlemint-application-access-token": (1, _ASSIGNED),
    "settlemint-service-access-token": (1, _ASSIGNED),
    "stripe-access-token": (1, _ASSIGNED),
    "sumologic-access-token": (1, _ASSIGNED),
    "telegram-bot-api-token": (9, _ASSIGNED),
}
# Where transcripts put a secret (#37): gitleaks ends one at a quote, a space, a semicolon or a
# newline; a transcript also at a tag (a tool's error), a bracket, a pipe, a backtick, a comma
# or a full stop, and between JSON-escaped newlines or tabs. (text before, text after) a sample.
WRAPPERS = (
    ("<tool_use_error>String not found: ", "</tool_use_error>"),
    ("(", ")"),
    ("[", "]"),
    ("", ","),
    ("", "."),
    ("|", "|"),
    ("`", "`"),
    ('{"text": "line one\\n', '\\nline three"}'),
    ('{"text": "cell one\\t', '\\tcell three"}'),
)
WINDOW = 12  # no stretch of a secret this long may survive (issue #23)
_MARK = re.compile(r"\[REDACTED:[^\]]*\]")


SHORTEST = 8  # a secret shorter than WINDOW, but this long, must not survive whole


def windows(secret: str) -> set[str]:
    if len(secret) < WINDOW:
        return {secret} if len(secret) >= SHORTEST else set()
    return {secret[i : i + WINDOW] for i in range(len(secret) - WINDOW + 1)}


def surviving(out: str, secret_windows: set[str]) -> set[str]:
    """The windows of the secrets still in `out` (redaction marks taken out first: a mark
    names a rule, `bedrock-api-key`, which a secret may share)."""
    text = _MARK.sub("\0", out)
    found = {text[i : i + WINDOW] for i in range(len(text) - WINDOW + 1)} & secret_windows
    return found | {w for w in secret_windows if len(w) < WINDOW and w in text}
