"""gitleaks' rule set in ccstate (D14): the Go-to-Python rewrite, the port of gitleaks'
decision, and redaction over gitleaks' own samples (tests/fixtures/gitleaks, issue #23)."""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

import pytest

from ccstate.secrets import gitleaks, redact
from gitleaks_corpus import (
    BY_DESIGN,
    DATA,
    FALSE_POSITIVES,
    RULES,
    TRUE_POSITIVES,
    WRAPPERS,
    surviving,
)
from gitleaks_corpus import windows as secret_windows
from helpers import REPO
from secrets_corpus import KINDS, ORDINARY

sys.path.insert(0, str(REPO / "scripts" / "generate"))
import gitleaks_rules


@pytest.mark.parametrize(
    ("go", "python"),
    [
        (r"\b(p8e-(?i)[a-z0-9]{32})\b", r"\b(p8e-(?i:[a-z0-9]{32}))\b"),
        (r"a(?i)b|c", r"a(?i:b)|(?i:c)"),  # Go's flags hold to the end of the group
        (r"(x(?i)y|z)w", r"(x(?i:y)|(?i:z))w"),
        (r"(?i)abc", r"(?i)abc"),
        (r"(?:[^\w-]|\z)", r"(?:[^\w-]|\Z)"),
        (r"[\z(?i)]", r"[\z(?i)]"),  # inside a class nothing is rewritten
        (r"pat[[:alnum:]]{14}", r"pat[0-9A-Za-z]{14}"),
    ],
)
def test_go_patterns_are_rewritten_for_python(go: str, python: str) -> None:
    assert gitleaks_rules.to_python(go) == python


def test_the_shipped_rules_are_the_fixtures_commit_and_every_rule_has_samples() -> None:
    shipped = json.loads(Path(gitleaks.RULES_FILE).read_text(encoding="utf-8"))
    assert shipped["commit"] == DATA["commit"] == gitleaks.commit()
    ids = {r.id for r in gitleaks.rules()}
    assert len(ids) == len(gitleaks.rules()) >= 200
    sampled = {r["id"] for r in RULES if r["tps"]}
    # gitleaks' generator validates these two against no sample at all
    assert ids - sampled == {"dropbox-long-lived-api-token", "dropbox-short-lived-api-token"}


def test_each_rule_finds_in_its_samples_what_gitleaks_found() -> None:
    """The port decides as gitleaks' detector did on every sample: the same secrets in each
    true positive, nothing in each false positive gitleaks' own rule let through."""
    by_id = {r.id: r for r in gitleaks.rules()}
    differ = []
    for rule in RULES:
        ours = by_id.get(rule["id"])
        if ours is None:
            continue
        for tp in rule["tps"]:
            got = {tp["text"][a:b] for a, b in ours.secrets(tp["text"])}
            if tp["secrets"] and not set(tp["secrets"]) <= got and got != set(tp["secrets"]):
                differ.append((rule["id"], tp["text"][:60]))
        for fp in rule["fps"]:
            own = rule["id"] in fp["flagged_by"] or fp.get("only_by_path")
            if not own and ours.secrets(fp["text"]):
                differ.append((rule["id"], fp["text"][:60]))
    assert differ == []


def test_every_gitleaks_true_positive_is_redacted() -> None:
    leaked = collections.defaultdict(list)
    for rule, text, secrets in TRUE_POSITIVES:
        left = surviving(redact.redact(text), set().union(*map(secret_windows, secrets)))
        if left:
            leaked[rule].append(text[:80])
    assert len(TRUE_POSITIVES) > 6000
    assert dict(leaked) == {}


def test_every_gitleaks_true_positive_is_redacted_where_transcripts_end_it() -> None:
    """#37: gitleaks' rules end a secret at a quote, a space, a semicolon or a newline; a
    transcript also puts one inside a tag, brackets, pipes or backticks, before a comma or a
    full stop, between JSON-escaped newlines or tabs. Every true positive, in each of those."""
    leaked = collections.defaultdict(list)
    for rule, text, secrets in TRUE_POSITIVES:
        found = set().union(*map(secret_windows, secrets))
        for before, after in WRAPPERS:
            if surviving(redact.redact(before + text + after), found):
                leaked[f"{before}…{after}"].append(rule)
    assert dict(leaked) == {}


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("<tool_use_error>String not found: AIza{k}</tool_use_error>", ""),
        ("the key (AIza{k}), then", ""),
        ("keys: AIza{k}, AIza{k}.", ""),
        ('"line\\nAIza{k}\\tnext"', ""),
        ("AIza{k}.png", "AIza{k}.png"),  # a `.` that ends nothing: a file name goes on
        ("AIza{k}x", "AIza{k}x"),  # 36 characters: no Google key
    ],
)
def test_a_google_key_ends_where_a_transcript_ends_it(text: str, kept: str) -> None:
    """The issue's case: `AIza` and 35 characters, a valid shape, inside a tool's error."""
    key = "SyB1x2Y3z4W5v6U7t8S9r0Q1p2O3n4M5l6K"
    rule = next(r for r in gitleaks.rules() if r.id == "gcp-api-key")
    spans = rule.secrets(text.format(k=key))
    if kept:
        assert spans == []
    else:
        assert spans and all(text.format(k=key)[a:b] == "AIza" + key for a, b in spans)


def test_only_the_bounds_of_a_rule_are_widened() -> None:
    """`transcript_bounds` adds endings to a rule's last group of classes and anchors, starts
    to its first, and a start after an escape to a leading `\\b`; the rest stays gitleaks'."""
    end = r"""(?:[\x60'"\s;]|\\[nr]|$)"""
    widened = gitleaks.transcript_bounds(r"\b(AIza[\w-]{35})" + end)
    after_escape = r"(?:\b|(?<=" + gitleaks._ESCAPE + "))"
    assert widened.startswith(after_escape + r"(AIza[\w-]{35})" + end[:-1] + "|")
    assert widened.endswith(gitleaks.TRANSCRIPT_END + ")")
    assert gitleaks.transcript_bounds(r"ghp_[0-9a-zA-Z]{36}") == r"ghp_[0-9a-zA-Z]{36}"
    widened = gitleaks.transcript_bounds(r"(?:^|[\s>=:(,)])(x{3})(?:$|[\s<),])")
    assert widened == (
        rf"(?:^|[\s>=:(,)]|{gitleaks.TRANSCRIPT_START})(x{{3}})(?:$|[\s<),]|"
        rf"{gitleaks.TRANSCRIPT_END})"
    )
    changed = [r.id for r in gitleaks.rules() if gitleaks.transcript_bounds(r._data["regex"])
               != r._data["regex"]]  # fmt: skip
    assert len(changed) > 150


def test_gitleaks_false_positives_come_through_unchanged_but_those_by_design() -> None:
    changed = collections.Counter(
        rule for rule, text in FALSE_POSITIVES if redact.redact(text) != text
    )
    assert len(FALSE_POSITIVES) > 300
    assert dict(changed) == {rule: n for rule, (n, _why) in BY_DESIGN.items()}


def test_the_look_alike_corpus_stays_under_two_percent() -> None:
    changed = [s for s in ORDINARY if redact.redact(s) != s]
    assert len(changed) <= 0.02 * len(ORDINARY), changed
    assert [k for k, _t, _s, look in KINDS if redact.redact(look) != look] == []


def test_a_rule_compiles_only_when_a_text_holds_its_keyword() -> None:
    rule = gitleaks.Rule({"id": "x", "regex": "(", "keywords": ["zebra"]})
    assert rule.secrets("no such word here") == []  # "(" would not compile
    with pytest.raises(re.error):
        rule.secrets("a zebra")


def _plain_spans(rule: gitleaks.Rule, text: str) -> list[tuple[int, int]]:
    spans = []
    for found in rule.pattern.finditer(text):
        span = rule._secret(text, found)
        if span is not None:
            spans.append(span)
    return spans if rule.wants(text.lower()) else []


def test_the_semi_generic_shortcut_finds_what_every_position_finds() -> None:
    """`Rule._matches` tries a semi-generic rule only up to 50 characters before a keyword:
    on every sample of the fixture (and their joins), the same secrets as `finditer`."""
    shortcut = [r for r in gitleaks.rules() if r._data["regex"].startswith(gitleaks._SEMI_GENERIC)]
    assert len(shortcut) > 50
    texts = [tp["text"] for r in RULES for tp in r["tps"]] + [
        fp["text"] for r in RULES for fp in r["fps"]
    ]
    texts += ["\n".join(texts[i : i + 40]) for i in range(0, len(texts), 40)]
    differ = [
        (rule.id, text[:60])
        for rule in shortcut
        for text in texts
        if rule.wants(text.lower()) and rule.secrets(text) != _plain_spans(rule, text)
    ]
    assert differ == []
