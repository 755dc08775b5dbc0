"""Today's price of a model's tokens, read from the report's own table (`report/pricing.json`,
optionally `report.pricing` on top), without the report's imports: the status line and the
PreModelSwitch hook run on every assistant message and every `/model`.

`report.pricing` (dataclasses, re, pathlib) stays the reference: `tests/moments/test_rates.py`
checks that both name the same model and give the same rates for every card in the table.
Prices are USD per million tokens.
"""

from __future__ import annotations

import os

from ccstate import fastjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

RATE_KEYS = ("input", "cache_write_5m", "cache_write_1h", "cache_read", "output")
_TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "report")
PACKAGE_TABLE = os.path.join(_TABLE, "pricing.json")
_LOADED: dict[str, dict[str, Any]] = {}


class Rates:
    """USD per million tokens of each token class, for one model today."""

    __slots__ = ("cache_read", "cache_write_1h", "cache_write_5m", "input", "output")

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.input = float(values["input"])
        self.cache_write_5m = float(values["cache_write_5m"])
        self.cache_write_1h = float(values["cache_write_1h"])
        self.cache_read = float(values["cache_read"])
        self.output = float(values["output"])

    def write(self, ttl: str) -> float:
        """The cache-write rate of a TTL ("1h" or anything else: 5 minutes)."""
        return self.cache_write_1h if ttl == "1h" else self.cache_write_5m

    def __repr__(self) -> str:
        return "Rates(" + ", ".join(f"{k}={getattr(self, k)}" for k in RATE_KEYS) + ")"


class Card:
    """A model's rates, with the long-context rates its card names (a prompt over
    `long_threshold` tokens is priced at those, every token of it)."""

    __slots__ = ("long_rates", "long_threshold", "rates")

    def __init__(self, rates: Rates, threshold: int | None, long_rates: Rates | None) -> None:
        self.rates = rates
        self.long_threshold = threshold
        self.long_rates = long_rates

    def for_prompt(self, tokens: int) -> Rates:
        """The rates a request with `tokens` prompt tokens is billed at."""
        threshold, long_rates = self.long_threshold, self.long_rates
        if threshold is not None and long_rates is not None and tokens > threshold:
            return long_rates
        return self.rates


def normalize_model(model: str) -> str:
    """`us.anthropic.claude-sonnet-4-20250514-v1:0` -> `claude-sonnet-4`: what
    `report.pricing.normalize_model` gives, without its regular expressions."""
    name = model.strip().lower()
    dot = name.find(".")
    # `^(?:[a-z]+\.)?anthropic[./]`: the optional word is tried first, as the regex does
    for start in (dot + 1 if dot > 0 and _is_lower_word(name[:dot]) else -1, 0):
        tail = name[start + 9 : start + 10] if start >= 0 else ""
        if tail in (".", "/") and name.startswith("anthropic", start):
            name = name[start + 10 :]
            break
    if name.endswith("]"):  # `\[[^\]]*\]$`: the first "[" after the last inner "]"
        start = name.find("[", name.rfind("]", 0, len(name) - 1) + 1)
        if start >= 0:
            name = name[:start]
    v = name.rfind("-v")
    if v >= 0:
        major, colon, minor = name[v + 2 :].partition(":")
        if _is_number(major) and (not colon or _is_number(minor)):
            name = name[:v]
    if len(name) >= 9 and name[-9] in "@-" and _is_number(name[-8:]):
        name = name[:-9]
    if name.endswith("-latest"):
        name = name[:-7]
    return name


def _is_number(text: str) -> bool:
    return text.isdecimal()  # what the report's `\d` matches


def _is_lower_word(text: str) -> bool:
    return bool(text) and all("a" <= c <= "z" for c in text)


def card(model: str, *, today: str, override: str = "") -> Card | None:
    """The card in force on `today` (YYYY-MM-DD) for `model`; None for a model the table
    (with `override`, a pricing JSON file of the same shape, on top) does not price, or when
    the table cannot be read."""
    models = _models(PACKAGE_TABLE)
    if override:
        models = {**models, **_models(override)}
    spec = models.get(normalize_model(model)) if model else None
    if spec is None:
        return None
    specs = spec if isinstance(spec, list) else [spec]
    chosen: Any = None
    for item in sorted((s for s in specs if isinstance(s, dict)), key=_since):
        if chosen is None or _since(item) <= today:
            chosen = item
    try:
        return _card(chosen)
    except (KeyError, TypeError, ValueError):
        return None


def _since(spec: Mapping[str, Any]) -> str:
    return str(spec.get("from", ""))


def _card(spec: Mapping[str, Any]) -> Card:
    long_spec = spec.get("long_context")
    if isinstance(long_spec, dict) and isinstance(long_spec.get("threshold"), int):
        return Card(Rates(spec), int(long_spec["threshold"]), Rates(long_spec))
    return Card(Rates(spec), None, None)


def _models(path: str) -> dict[str, Any]:
    """The models of a pricing file, keyed by normalised name; {} when it cannot be read
    (the callers then stay quiet about money rather than guess)."""
    if path in _LOADED:
        return _LOADED[path]
    try:
        with open(path, encoding="utf-8") as fh:
            raw = fastjson.loads(fh.read())
        models = raw.get("models") if isinstance(raw, dict) else None
    except (OSError, ValueError):
        models = None
    table = {normalize_model(str(k)): v for k, v in (models or {}).items()}
    _LOADED[path] = table
    return table


def usd(tokens: int, rate: float) -> float:
    """USD for `tokens` at `rate` (USD per million)."""
    return tokens * rate / 1_000_000
