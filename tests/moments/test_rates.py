"""moments/rates.py gives the report's prices without the report's imports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccstate.moments import rates
from ccstate.report import pricing

TABLE = json.loads(Path(rates.PACKAGE_TABLE).read_text(encoding="utf-8"))
DAYS = ("2025-01-01", "2026-10-06", "2026-10-07", "2026-12-02")
# what model ids are made of (provider prefixes, dated and versioned suffixes, [1m] tags)
ID_CHARS = st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789-.:/@[]_ ")
PARTS = st.sampled_from(
    [
        "claude-sonnet-4",
        "claude-opus-5-5",
        "anthropic.",
        "anthropic/",
        "us.",
        "eu.anthropic.",
        "-20250514",
        "@20250514",
        "-v1:0",
        "-v2",
        "[1m]",
        "-latest",
        "]",
        "[",
        "anthropic",
        "",
    ]
)


@pytest.mark.parametrize(
    "model",
    [
        "us.anthropic.claude-sonnet-4-20250514-v1:0",
        "anthropic/claude-opus-4-6[1m]",
        "claude-sonnet-4-5@20250929",
        "Claude-3-5-Haiku-Latest",
        "anthropic.",
        "x.anthropic.anthropic/claude",
        "a[b[c]",
        "claude-opus-5-5",
    ],
)
def test_normalize_matches_the_report(model: str) -> None:
    assert rates.normalize_model(model) == pricing.normalize_model(model)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(PARTS, st.text(ID_CHARS, max_size=4)), max_size=6))
def test_normalize_matches_the_report_on_built_ids(parts: list[str]) -> None:
    model = "".join(parts)
    assert rates.normalize_model(model) == pricing.normalize_model(model)


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("model", sorted(TABLE["models"]))
def test_every_card_has_the_reports_rates(model: str, day: str) -> None:
    ours, theirs = rates.card(model, today=day), pricing.load_pricing().card(model, day)
    assert ours is not None and theirs is not None
    for key in rates.RATE_KEYS:
        assert getattr(ours.rates, key) == getattr(theirs.rates, key), key
    assert ours.long_threshold == theirs.long_threshold
    if theirs.long_rates is not None:
        assert ours.long_rates is not None
        assert [getattr(ours.long_rates, k) for k in rates.RATE_KEYS] == [
            getattr(theirs.long_rates, k) for k in rates.RATE_KEYS
        ]


def test_dated_cards_and_long_context() -> None:
    before = rates.card("claude-sonnet-5-5", today="2026-10-06")
    after = rates.card("claude-sonnet-5-5", today="2026-10-07")
    assert before is not None and after is not None
    assert (before.rates.cache_read, after.rates.cache_read) == (0.2, 0.1)
    card = rates.card("claude-sonnet-4-5", today="2026-12-02")
    assert card is not None
    assert card.for_prompt(200_000).cache_write_5m == 3.75
    assert card.for_prompt(200_001).cache_write_5m == 7.5
    assert card.rates.write("1h") == 6 and card.rates.write("5m") == 3.75


def test_unknown_model_and_override(tmp_path) -> None:
    assert rates.card("gpt-9", today="2026-12-02") is None
    assert rates.card("", today="2026-12-02") is None
    extra = tmp_path / "prices.json"
    card = {"input": 1, "cache_write_5m": 2, "cache_write_1h": 3, "cache_read": 0.5, "output": 4}
    extra.write_text(json.dumps({"models": {"gpt-9": card, "claude-opus-5-5": card}}))
    mine = rates.card("gpt-9", today="2026-12-02", override=str(extra))
    assert mine is not None and mine.rates.cache_write_1h == 3
    shadowed = rates.card("claude-opus-5-5", today="2026-12-02", override=str(extra))
    assert shadowed is not None and shadowed.rates.cache_write_5m == 2
    assert rates.card("gpt-9", today="2026-12-02", override=str(tmp_path / "missing.json")) is None


def test_usd() -> None:
    assert rates.usd(217_000, 5.0) == pytest.approx(1.085)
