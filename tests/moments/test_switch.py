"""moments/switch.py: the model-switch warning's words."""

from __future__ import annotations

from ccstate.moments import rates, switch

PAYLOAD = {
    "from_model": "claude-opus-5-5",
    "to_model": "claude-sonnet-5-5",
    "requested_model": "sonnet",
    "source": "command",
    "context_tokens": 217_000,
    "prompt_cache_warm": True,
    "cache_ttl": "5m",
    "estimated_cache_write_usd": 0.5425,
    "pricing": "catalog",
}


def card_of(model: str) -> rates.Card | None:
    return rates.card(model, today="2026-12-02")


def test_warm_and_large_names_the_rewrite_and_its_price() -> None:
    assert switch.warning(PAYLOAD, card_of, min_tokens=20_000) == (
        "ccstate: switching to claude-sonnet-5-5 drops the warm 5m cache of claude-opus-5-5: "
        "the next turn re-writes ~217k tokens ≈ $0.54 (staying would read them from the "
        "cache ≈ $0.04)."
    )


def test_one_hour_ttl_is_priced_at_its_rate() -> None:
    text = switch.warning({**PAYLOAD, "cache_ttl": "1h"}, card_of, min_tokens=0) or ""
    assert "warm 1h cache" in text and "≈ $0.87" in text  # 217k x $4/M


def test_silent_when_cold_small_same_or_malformed() -> None:
    for change in (
        {"prompt_cache_warm": False},
        {"context_tokens": 19_999},
        {"to_model": "claude-opus-5-5"},
        {"context_tokens": "many"},
        {"context_tokens": True},
        {"to_model": None},
    ):
        assert switch.warning({**PAYLOAD, **change}, card_of, min_tokens=20_000) is None, change
    assert switch.warning({}, card_of, min_tokens=0) is None


def test_an_unpriced_model_uses_claude_codes_estimate_or_no_price() -> None:
    text = switch.warning({**PAYLOAD, "to_model": "claude-next-9"}, card_of, min_tokens=0) or ""
    assert "re-writes ~217k tokens ≈ $0.54 (staying would read" in text  # Claude Code's figure
    bare = {**PAYLOAD, "to_model": "claude-next-9", "estimated_cache_write_usd": None}
    assert (switch.warning(bare, card_of, min_tokens=0) or "").endswith("~217k tokens.")
