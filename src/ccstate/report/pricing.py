"""Model prices: the dated table shipped as package data (`pricing.json`), optionally overridden.

Prices are USD per million tokens. A request is priced on its own: long-context tiers depend
on that request's prompt size, and dated rate cards on its timestamp. Standard library only.
See docs/REPORT.md for the cost formula.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ccstate.errors import ConfigError

PACKAGE_TABLE = "pricing.json"
RATE_KEYS = ("input", "cache_write_5m", "cache_write_1h", "cache_read", "output")
_PROVIDER_PREFIX = re.compile(r"^(?:[a-z]+\.)?anthropic[./]")
_SUFFIXES = (
    re.compile(r"\[[^\]]*\]$"),  # claude-opus-4-6[1m]
    re.compile(r"-v\d+(?::\d+)?$"),  # Bedrock: -v1:0
    re.compile(r"[@-]\d{8}$"),  # dated ids: -20250514, Vertex @20250514
    re.compile(r"-latest$"),
)


@dataclass(frozen=True, slots=True)
class Rates:
    """USD per million tokens of each token class."""

    input: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float
    output: float


@dataclass(frozen=True, slots=True)
class RateCard:
    """A model's rates from a given day on, with its long-context and fast-mode terms."""

    since: str  # "" or YYYY-MM-DD: the first day these rates apply
    rates: Rates
    long_threshold: int | None = None
    long_rates: Rates | None = None
    fast_multiplier: float = 1.0


@dataclass(frozen=True)
class PricingTable:
    """Rate cards per model, dated; `card` picks the one in force on a day."""

    date: str
    source: str
    models: Mapping[str, tuple[RateCard, ...]] = field(default_factory=dict)
    origin: str = PACKAGE_TABLE

    def card(self, model: str, when: str = "") -> RateCard | None:
        """The rate card for `model` on the day `when` (ISO timestamp); None when unpriced."""
        cards = self.models.get(normalize_model(model))
        if not cards:
            return None
        day = when[:10]
        chosen = cards[0]
        for card in cards[1:]:
            if day and card.since <= day:
                chosen = card
        return chosen


@lru_cache(maxsize=256)
def normalize_model(model: str) -> str:
    """`us.anthropic.claude-sonnet-4-20250514-v1:0` -> `claude-sonnet-4` (the table's keys)."""
    name = _PROVIDER_PREFIX.sub("", model.strip().lower())
    for suffix in _SUFFIXES:
        name = suffix.sub("", name)
    return name


def request_cost(
    card: RateCard,
    *,
    input: int,
    cache_write_5m: int,
    cache_write_1h: int,
    cache_read: int,
    output: int,
    fast: bool = False,
) -> float:
    """USD for one request: each token class times its rate (long-context rates when the
    request's prompt passes the card's threshold), times the fast-mode multiplier."""
    prompt = input + cache_write_5m + cache_write_1h + cache_read
    tokens = (input, cache_write_5m, cache_write_1h, cache_read, output)
    return tokens_cost(card, is_long(card, prompt), fast, tokens)


def is_long(card: RateCard, prompt: int) -> bool:
    """Whether a request with this many prompt tokens is billed at the long-context rates."""
    threshold = card.long_threshold
    return card.long_rates is not None and threshold is not None and prompt > threshold


def tokens_cost(
    card: RateCard, long: bool, fast: bool, tokens: tuple[int, int, int, int, int]
) -> float:
    """USD for (input, 5-minute cache writes, 1-hour cache writes, cache reads, output) tokens
    of requests that share `long` and `fast`: one request's, or the sums of many."""
    rates = card.long_rates if long and card.long_rates is not None else card.rates
    input, write_5m, write_1h, read, output = tokens
    total = (
        input * rates.input
        + write_5m * rates.cache_write_5m
        + write_1h * rates.cache_write_1h
        + read * rates.cache_read
        + output * rates.output
    ) / 1_000_000
    return total * card.fast_multiplier if fast else total


def load_pricing(override: Path | None = None) -> PricingTable:
    """The shipped table, with the models of `override` (a JSON file of the same shape) on top."""
    base = _package_table()
    if override is None:
        return base
    try:
        raw = json.loads(override.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(
            f"{override}: pricing file cannot be read ({exc.strerror}); fix 'report.pricing'"
        ) from exc
    except ValueError as exc:
        raise ConfigError(f"{override}: pricing file is not valid JSON ({exc})") from exc
    extra = parse_table(raw, str(override))
    models = {**base.models, **extra.models}
    return PricingTable(
        date=extra.date or base.date,
        source=extra.source or base.source,
        models=models,
        origin=f"{PACKAGE_TABLE} + {override}",
    )


@lru_cache(maxsize=1)
def _package_table() -> PricingTable:
    # beside this module (package data); importlib.resources would add ~25 ms of imports
    text = Path(__file__).with_name(PACKAGE_TABLE).read_text(encoding="utf-8")
    return parse_table(json.loads(text), PACKAGE_TABLE)


def parse_table(raw: Any, filename: str) -> PricingTable:
    """Validate a pricing document; ConfigError names the file and the bad key."""
    if not isinstance(raw, dict) or not isinstance(raw.get("models"), dict):
        raise ConfigError(f"{filename}: a pricing file needs a 'models' mapping of model -> rates")
    models: dict[str, tuple[RateCard, ...]] = {}
    for name, spec in raw["models"].items():
        specs = spec if isinstance(spec, list) else [spec]
        cards = [_card(s, f"{filename}: models.{name}") for s in specs]
        models[normalize_model(str(name))] = tuple(sorted(cards, key=lambda c: c.since))
    return PricingTable(
        date=str(raw.get("date", "")), source=str(raw.get("source", "")), models=models
    )


def _card(spec: Any, where: str) -> RateCard:
    if not isinstance(spec, dict):
        raise ConfigError(f"{where} must be a mapping of {', '.join(RATE_KEYS)}")
    since = spec.get("from", "")
    if not isinstance(since, str) or (since and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", since)):
        raise ConfigError(f"{where}.from must be a date like 2026-10-07 (got {since!r})")
    long_spec = spec.get("long_context")
    long_threshold: int | None = None
    long_rates: Rates | None = None
    if long_spec is not None:
        if not isinstance(long_spec, dict) or not isinstance(long_spec.get("threshold"), int):
            raise ConfigError(f"{where}.long_context needs an integer 'threshold' and rates")
        long_threshold = long_spec["threshold"]
        long_rates = _rates(long_spec, f"{where}.long_context")
    fast: Any = spec.get("fast_multiplier", 1.0)
    if not _is_number(fast) or fast <= 0:
        raise ConfigError(f"{where}.fast_multiplier must be a positive number (got {fast!r})")
    return RateCard(since, _rates(spec, where), long_threshold, long_rates, float(fast))


def _rates(spec: Mapping[str, Any], where: str) -> Rates:
    values = []
    for key in RATE_KEYS:
        value: Any = spec.get(key)
        if not _is_number(value) or value < 0:
            raise ConfigError(f"{where}.{key} must be a price in USD per million tokens, e.g. 3")
        values.append(float(value))
    return Rates(*values)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
