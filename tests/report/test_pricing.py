"""The pricing table: model names, the cost formula, dated cards, overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ccstate.errors import ConfigError
from ccstate.report import pricing


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
        ("claude-opus-4-6[1m]", "claude-opus-4-6"),
        ("claude-3-5-haiku@20241022", "claude-3-5-haiku"),
        ("Claude-Opus-5-5", "claude-opus-5-5"),
    ],
)
def test_model_names_are_normalised(model: str, key: str) -> None:
    assert pricing.normalize_model(model) == key
    assert pricing.load_pricing().card(model) is not None


def test_unknown_models_are_unpriced_not_guessed() -> None:
    assert pricing.load_pricing().card("claude-opus-4-9") is None
    assert pricing.load_pricing().card("<synthetic>") is None


def test_cost_formula_with_1h_writes_long_context_and_fast_mode() -> None:
    table = pricing.load_pricing()
    opus = table.card("claude-opus-4-6")
    assert opus is not None
    cost = pricing.request_cost(
        opus, input=1000, cache_write_5m=2000, cache_write_1h=3000, cache_read=4000, output=500
    )
    assert cost == pytest.approx((1000 * 5 + 2000 * 6.25 + 3000 * 10 + 4000 * 0.5 + 500 * 25) / 1e6)
    fast = pricing.request_cost(
        opus, input=1000, cache_write_5m=0, cache_write_1h=0, cache_read=0, output=0, fast=True
    )
    assert fast == pytest.approx(6 * 1000 * 5 / 1e6)
    sonnet = table.card("claude-sonnet-4-20250514")
    assert sonnet is not None
    long = pricing.request_cost(
        sonnet, input=10, cache_write_5m=0, cache_write_1h=0, cache_read=200_000, output=100
    )
    assert long == pytest.approx((10 * 6 + 200_000 * 0.6 + 100 * 22.5) / 1e6)


def test_dated_rate_cards_follow_the_request_date() -> None:
    table = pricing.load_pricing()
    before = table.card("claude-sonnet-5-5", "2026-10-06T23:59:59Z")
    after = table.card("claude-sonnet-5-5", "2026-10-07T00:00:00Z")
    assert before is not None and after is not None
    assert (before.rates.cache_read, after.rates.cache_read) == (0.2, 0.1)


def test_pricing_override_file_adds_and_replaces_models(tmp_path: Path) -> None:
    override = tmp_path / "prices.json"
    rates = {"input": 1, "cache_write_5m": 1, "cache_write_1h": 1, "cache_read": 1, "output": 1}
    override.write_text(json.dumps({"date": "2030-01-01", "models": {"my-model": rates}}))
    table = pricing.load_pricing(override)
    assert table.date == "2030-01-01"
    assert table.card("my-model") is not None and table.card("claude-opus-4-6") is not None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "is not valid JSON"),
        ('{"models": []}', "needs a 'models' mapping"),
        ('{"models": {"m": {"input": "cheap"}}}', "models.m.input must be a price"),
        ('{"models": {"m": [{"from": "May 1"}]}}', "models.m.from must be a date"),
    ],
)
def test_bad_pricing_files_name_the_file_and_key(
    tmp_path: Path, content: str, message: str
) -> None:
    bad = tmp_path / "prices.json"
    bad.write_text(content)
    with pytest.raises(ConfigError, match=message) as err:
        pricing.load_pricing(bad)
    assert str(bad) in str(err.value)
