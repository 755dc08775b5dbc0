"""recall.text: identifier parts, query terms, trimming."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ccstate.recall import text


def test_parts_split_snake_and_camel_case_identifiers_only() -> None:
    got = text.parts("fixed parse_date and parseWeekDate in src/dates.py; plain words, E0308")
    assert got == "parse date parse week date"


def test_parts_are_bounded() -> None:
    many = " ".join(f"name_{i}_x" for i in range(1000))
    assert len(text.parts(many).split()) == text.MAX_PARTS


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(["parse_date", "parseDate", "_x", "a_", "X", "é", "é_é", "aÉ", "…", "😀"])
        | st.text(alphabet="abAZ_1é \n\t\u3000-.…😀\u00a0", max_size=12),
        max_size=10,
    ).map("".join)
)
def test_identifiers_finds_what_the_unicode_pattern_finds(sample: str) -> None:
    """The fast paths (ASCII mode; chunks that can hold one) change nothing."""
    assert text.identifiers(sample) == text._IDENT.findall(sample)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abAZ09_ é-\n", max_size=16))
def test_has_joint_is_the_alternation_of_both_joints(sample: str) -> None:
    joint = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]")
    assert text.has_joint(sample) == (joint.search(sample) is not None)


def test_query_terms_drop_filler_and_keep_identifiers_paths_and_codes() -> None:
    terms = text.query_terms("where did we fix parse_date in src/api/client.ts for E0308?")
    assert terms == ["fix", "parse_date", "src/api/client.ts", "E0308"]


def test_query_terms_keep_quoted_phrases_and_drop_a_question_of_only_filler() -> None:
    assert text.query_terms('the "retry loop" again') == ["retry loop"]
    assert text.query_terms("what was it") == []  # nothing but filler: nothing to search
    assert text.has_words("what was it") and not text.has_words(" ?! ")


def test_what_is_left_of_a_contraction_is_no_term() -> None:
    # `couldn't` -> `couldn` `t`, `box's` -> `box` `s`: the fragments are no information
    assert text.query_terms("Why couldn't the box's API reach what's running?") == [
        "box",
        "API",
        "reach",
        "running",
    ]


def test_names_are_capitalised_words_past_a_sentence_start() -> None:
    assert text.names("What Sentry config did we add for GraphQL-based MQTT?") == [
        "Sentry",
        "GraphQL",  # a compound's first word
        "MQTT",
    ]
    # a sentence's first word, the function words and quoted phrases are no names
    assert text.names("Why? Which one. I asked: How did the webhook fail") == []
    assert text.names('what did "Some Phrase" say (Docker) then') == ["Docker"]
    # days, months and short capitals (PR, CI) name nothing a session would have said
    assert text.names("What did the PR on Monday in March change for CI and AWS?") == []


def test_fts_phrase_escapes_quotes() -> None:
    assert text.fts_phrase('say "hi"') == '"say ""hi"""'


def test_clip_and_head_tail() -> None:
    assert text.clip("abcdef", 4) == "abc…" and text.clip("abc", 4) == "abc"
    cut = text.head_tail("a" * 50 + "b" * 50, 21)
    assert cut.startswith("a" * 8) and cut.endswith("b" * 8) and "[…]" in cut
