"""recall.confidence: rare words, their weights, a hit's share, strong or weak, strong first."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccstate.recall import confidence, index, sources, writer
from ccstate.secrets import redact
from helpers import prompt_record, write_jsonl


def test_rare_words_are_held_and_not_common() -> None:
    found = {"absent": 0, "rare": 3, "common": 2500}
    assert confidence.rare(found, found, total=200_000) == ["rare", "common"]  # 2,500 <= 2 %
    assert confidence.rare(found, found, total=10_000) == ["rare"]  # 2,500 > max(2,000, 200)
    assert confidence.rare(["absent"], found, total=10) == []


def test_a_rarer_word_weighs_more_and_an_absent_one_most() -> None:
    weight = confidence.weights(["a", "b", "c"], {"a": 0, "b": 5, "c": 90}, total=100)
    assert weight["a"] > weight["b"] > weight["c"] > 0
    assert confidence.share(["a", "b", "c"], weight) == 1.0
    assert confidence.share([], weight) == 0.0
    assert confidence.share(["b", "b"], weight) == confidence.share(["b"], weight)
    assert confidence.rarest_first(["c", "a", "b"], weight) == ("a", "b", "c")


@pytest.mark.parametrize(
    ("share", "label"), [(1.0, "strong"), (confidence.STRONG, "strong"), (0.5, "weak")]
)
def test_strong_from_the_threshold_on(share: float, label: str) -> None:
    assert confidence.label(share) == label
    assert confidence.label(confidence.STRONG - 0.01) == "weak"


def test_the_strong_among_the_first_ten_come_first_each_in_its_order() -> None:
    order = list(range(12))
    shares = {3: 0.9, 7: 0.95, 11: 1.0}
    assert confidence.strong_first(order, shares) == [3, 7, 0, 1, 2, 4, 5, 6, 8, 9, 10, 11]
    assert confidence.strong_first([], shares) == []


def test_matched_words_are_looked_up_per_moment(tmp_path: Path) -> None:
    records = [prompt_record("retry the webhook"), prompt_record("the webhook timed out")]
    con = index.connect(tmp_path / "state")
    source = sources.transcript_source(write_jsonl(tmp_path / "s1.jsonl", records))
    writer.update(con, [source], redactor=redact.Redactor(), max_bytes=1 << 30)
    held = confidence.matched(con, ["webhook", "retries", "absent"], [1, 2])
    assert held == {1: ["webhook", "retries"], 2: ["webhook"]}  # `retries` is stemmed
    assert confidence.matched(con, ["webhook"], []) == {}
    con.close()


def test_postings_are_the_moments_holding_a_word(tmp_path: Path) -> None:
    records = [prompt_record("retry the webhook"), prompt_record("the webhook timed out")]
    con = index.connect(tmp_path / "state")
    source = sources.transcript_source(write_jsonl(tmp_path / "s1.jsonl", records))
    writer.update(con, [source], redactor=redact.Redactor(), max_bytes=1 << 30)
    assert confidence.postings(con, "webhook") == {1, 2}
    assert confidence.postings(con, "retrying") == {1} and confidence.postings(con, "x") == set()
    con.close()
