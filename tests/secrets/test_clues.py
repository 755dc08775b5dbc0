"""The literal-clue prefilter (src/ccstate/secrets/clues.py): it may only ever skip a rule that
cannot match. Checked on the secrets corpus of #12, on every code point `re.IGNORECASE` folds,
and on generated texts (hypothesis): every rule that matches a text is among its candidates."""

from __future__ import annotations

import importlib.util
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_redact import AWS, GITHUB, GITHUB_PAT, JWT, OPENAI, PEM, SLACK

from ccstate.secrets import clues, needs, redact
from helpers import PUBLIC, REPO
from secrets_corpus import KINDS, ORDINARY

# CLUES_EXAMPLES=20000 for a longer search (the CI runs 400 per property)
EXAMPLES_N = int(os.environ.get("CLUES_EXAMPLES", "400"))
# the property tests' settings: CLUES_EXAMPLES examples, no deadline (the rules are many)
PROPERTY = settings(
    max_examples=EXAMPLES_N, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SECRETS = [secret for _kind, _text, secret, _neg in KINDS] + [
    AWS,
    GITHUB,
    GITHUB_PAT,
    JWT,
    OPENAI,
    PEM,
    SLACK,
]
EXAMPLES = [text for _kind, text, _s, _neg in KINDS] + [neg for *_x, neg in KINDS] + ORDINARY
# What assignment rules key on, and characters that fold onto ASCII letters.
WORDS = [
    "password",
    "PASSWD",
    "pwd",
    "secret",
    "token",
    "Credentials",
    "apikey",
    "api_key",
    "PAT",
    "access-key",
    "--token",
    "--api-key",
    "Authorization: Bearer ",
    "basic ",
    "https://",
    "mysql -u root ",
    "docker login -p ",
    "AccountKey=",
    "?sig=",
    "_authToken=",
    "-----BEGIN PRIVATE KEY-----",
]
SEPARATORS = ["=", ":", " = ", ":=", "=>", '"', "'", " ", "\t", "\n", "\x00", "@", "/", "-", "_"]


def _mutations(secret: str) -> st.SearchStrategy[str]:
    n = len(secret)
    return st.one_of(
        st.just(secret),
        st.just(secret.swapcase()),
        st.just(secret.lower()),
        st.integers(0, n).map(lambda k: secret[:k]),
        st.integers(0, n).map(lambda k: secret[k:]),
        st.tuples(st.integers(0, max(0, n - 1)), st.sampled_from(needs.FOLDS_TO_ASCII + "é?")).map(
            lambda kc: secret[: kc[0]] + kc[1] + secret[kc[0] + 1 :]
        ),
    )


PIECES = st.one_of(
    st.sampled_from(SECRETS).flatmap(_mutations),
    st.sampled_from(EXAMPLES),
    st.sampled_from(WORDS + SEPARATORS),
    st.text(
        alphabet=st.sampled_from(
            "abcxyzKSIABC0123456789+/=_-.:@ \n\"'" + needs.FOLDS_TO_ASCII + "é"
        ),
        max_size=24,
    ),
)
TEXTS = st.lists(PIECES, max_size=8).map("".join)


# the prefilter's two ways: one automaton pass (ahocorasick_rs, a dependency) and one `in`
# per string (a python3 without the dependency)
BOTH = pytest.mark.parametrize("accelerate", [True, False], ids=["one-pass", "in-per-string"])


def _both() -> tuple[clues.Prefilter, clues.Prefilter]:
    rules = redact._rules()
    gates = [redact._needs(r) for r in rules]
    patterns = redact.prefilter_patterns(rules)
    fast = clues.Prefilter(patterns, gates)
    assert fast.accelerated, "ahocorasick_rs (a dependency) is not installed"
    return fast, clues.Prefilter(patterns, gates, accelerate=False)


FAST, SLOW = _both()


@pytest.fixture(autouse=True)
def _prefilter_built() -> None:
    """`apply_rules` uses the prefilter once it is built (after PREFILTER_AFTER texts)."""
    redact.prepare()


def test_a_few_texts_do_not_build_the_prefilter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact, "_prefilters", [])
    monkeypatch.setattr(redact, "_calls", [0])
    for _ in range(redact.PREFILTER_AFTER):
        assert redact.redact(f"deploy {AWS}") == "deploy [REDACTED:aws-key]"
    assert redact._prefilters == []
    assert redact.redact(f"deploy {AWS}") == "deploy [REDACTED:aws-key]"
    assert len(redact._prefilters) == 1


def _matching(text: str) -> list[int]:
    """The rules whose pattern (and gate) match `text`: those a prefilter must keep."""
    return [
        number
        for number, rule in enumerate(redact._rules())
        if (rule.finder.pattern if rule.finder else rule.pattern).search(text) is not None
        and rule.may_match(text)
        and (rule.finder is None or rule.finder.wants(text.lower()))
    ]


def _candidates(text: str) -> list[int]:
    return list(redact._prefilter().candidates(text))


def test_every_matching_rule_is_a_candidate_on_the_corpus() -> None:
    """60 secret kinds and their look-alikes, 164 ordinary strings, the unit tests' secrets."""
    texts = [*EXAMPLES, *SECRETS, *(f"x {s} y" for s in SECRETS)]
    for text in texts:
        assert set(_matching(text)) <= set(_candidates(text)), text
    # and the prefilter does skip rules: most of an ordinary string's rules are not run
    rules = len(redact._rules())
    assert sum(len(_candidates(t)) for t in ORDINARY) < 0.2 * rules * len(ORDINARY)


@PROPERTY
@given(TEXTS)
def test_every_matching_rule_is_a_candidate(text: str) -> None:
    assert set(_matching(text)) <= set(_candidates(text))


@PROPERTY
@given(TEXTS)
def test_prefiltered_rules_redact_as_every_rule_does(text: str) -> None:
    assert redact.apply_rules(text) == redact.apply_rules(text, every_rule=True)


@pytest.mark.parametrize("text", [t for _k, t, _s, _n in KINDS] + ORDINARY[:40])
def test_prefiltered_rules_redact_the_corpus_as_every_rule_does(text: str) -> None:
    assert redact.apply_rules(text) == redact.apply_rules(text, every_rule=True)


@BOTH
def test_a_case_insensitive_need_is_found_whatever_the_case(accelerate: bool) -> None:
    pre = clues.Prefilter([re.compile(r"(?i)bearer\s+\w{12,}")], [()], accelerate=accelerate)
    assert pre.candidates("Authorization: BEARER abcdefghijkl") == [0]
    assert pre.candidates("Authorization: \u212a bearer abcdefghijkl") == [0]
    assert pre.candidates("Authorization: token abcdefghijkl") == []


@BOTH
def test_a_run_of_token_characters_gates_a_long_shape(accelerate: bool) -> None:
    pre = clues.Prefilter(
        [re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")],
        [()],
        accelerate=accelerate,
    )
    assert pre.candidates("a " + "Ab1/" * 10 + " b") == [0]
    assert pre.candidates("a " + "Ab1/" * 9 + " b") == []
    assert pre.candidates("a " + "Ab1/" * 9 + "Ab1\u00e9" + " b") == [0]  # é: may be \w


@PROPERTY
@given(TEXTS)
def test_the_lower_case_gate_agrees_with_the_case_insensitive_one(text: str) -> None:
    """An assignment rule's gate runs without `(?i)` on the lower-cased text when it can."""
    gated = [rule for rule in redact._rules() if rule.gate is not None]
    assert len(gated) == 2
    for rule in gated:
        assert rule.gate is not None
        assert rule.may_match(text) == (rule.gate.search(text) is not None)


def test_only_the_folding_characters_lower_case_to_ascii() -> None:
    """Why `redact._folds_to_ascii` may use lower(): no other character becomes ASCII."""
    others = (chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000)
    assert {c for c in others if any(x.isascii() for x in c.lower())} <= set(needs.FOLDS_TO_ASCII)
    assert all(redact._folds_to_ascii(f"a{c}b") for c in needs.FOLDS_TO_ASCII)


def _corpus_moments(separator: str) -> list[str]:
    """Title and body of every moment recall builds from the 33 public transcripts (about
    2,000 texts, 1 MB), as bench/bench_prefilter.py reads them."""
    spec = importlib.util.spec_from_file_location(
        "bench_prefilter", REPO / "bench" / "bench_prefilter.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    texts: list[str] = bench.moment_texts(PUBLIC, separator)
    assert len(texts) > 1000
    return texts


@pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"{PUBLIC} is absent (shared corpus)")
def test_the_public_corpus_moments_redact_as_with_every_rule() -> None:
    texts = _corpus_moments("\x00")
    differ = [t for t in texts if redact.apply_rules(t) != redact.apply_rules(t, every_rule=True)]
    assert differ == []


def test_strings_are_grouped_under_a_part_they_all_hold() -> None:
    assert clues._groups(["xoxa-", "xoxb-"]) == (("xox", ("xoxa-", "xoxb-")),)
    assert clues._groups(["ab", "cd"]) == (("ab", ()), ("cd", ()))
    grouped = clues._groups(["app-", "oxa-", "oxb-"])
    assert grouped == (("app-", ()), ("ox", ("oxa-", "oxb-")))


@BOTH
def test_a_text_made_ascii_finds_every_string_the_text_holds(accelerate: bool) -> None:
    """Needs are looked for in the text with each non-ASCII character as `?`."""
    pre = clues.Prefilter(
        [re.compile(r"sk-ant-\w+"), re.compile(r"(?i)bearer\s+\S+")],
        [(), ()],
        accelerate=accelerate,
    )
    assert pre.candidates("é sk-ant-abc") == [0]
    assert pre.candidates("😀 BEARER x") == [1]
    assert pre.candidates("😀 sk-an…t") == []


def test_patterns_whose_first_needs_share_a_part_are_skipped_together() -> None:
    pre = clues.Prefilter(
        [re.compile("BEGIN RSA PRIVATE KEY"), re.compile("BEGIN EC PRIVATE KEY"), re.compile("x")],
        [(), (), ()],
    )
    assert [(common, [n for n, _ in members]) for common, _f, members in pre._clusters] == [
        (" PRIVATE KEY", [0, 1]),
        ("", [2]),
    ]
    assert pre.candidates("BEGIN EC PRIVATE KEY") == [1]
    assert pre.candidates("BEGIN EC PRIVATE") == []


@PROPERTY
@given(TEXTS, st.integers(0, 100))
def test_one_pass_gives_what_a_search_per_string_gives(text: str, start: int) -> None:
    assert FAST.candidates(text, start) == SLOW.candidates(text, start)


@pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"{PUBLIC} is absent (shared corpus)")
def test_one_pass_gives_what_a_search_per_string_gives_on_the_corpus_moments() -> None:
    texts = _corpus_moments("\x00\n")  # as recall redacts them (extract._row)
    variants = [v for t in texts for v in (t, t.upper(), "\u212a" + t, t.replace("e", "é"))]
    differ = [t for t in variants if FAST.candidates(t) != SLOW.candidates(t)]
    assert differ == []


SHAPES = [
    r"x",  # a need of one short string, no stretch: looked at in every text
    r"\d+",  # no need, no stretch: a candidate for every text
    r"(?i)bearer\s+\w{12,}",  # a folded key
    r"(?i)token[:=]\s*[A-Za-z0-9]{30}",  # a folded key and a stretch
    r"AKIA[A-Z0-9]{16}",  # an exact key and a stretch
    r"(?:a|c)-[A-Za-z0-9_-]{20}",  # a need of short strings and a stretch: by stretch
    r"(?i)[A-Z]{14}",  # a stretch alone
]


@PROPERTY
@given(
    st.lists(
        st.sampled_from(["x", "7", "bearer ", "BEARER", "token=", "AKIA", "a-", "c-", " "])
        | st.text(alphabet="abcdxyzAKIQ019_-= \u212aé", max_size=40),
        max_size=8,
    ).map("".join),
    st.integers(0, 6),
)
def test_one_pass_handles_every_kind_of_pattern(text: str, start: int) -> None:
    patterns = [re.compile(p) for p in SHAPES]
    fast = clues.Prefilter(patterns, [()] * len(patterns))
    slow = clues.Prefilter(patterns, [()] * len(patterns), accelerate=False)
    assert fast.candidates(text, start) == slow.candidates(text, start)


def test_without_ahocorasick_rs_the_prefilter_searches_one_string_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(clues, "_automaton_module", lambda: None)
    pre = clues.Prefilter([re.compile(r"sk-ant-\w+")], [()])
    assert not pre.accelerated
    assert pre.candidates("key sk-ant-abc") == [0]
    assert pre.candidates("key sk-an") == []
