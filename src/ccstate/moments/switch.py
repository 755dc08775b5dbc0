"""The model-switch warning: PreModelSwitch with a warm cache and a large context tells the
user what the switch re-writes and costs (pure).

Claude Code 2.1.328 and 2.1.332 send `from_model`, `to_model`, `context_tokens`,
`prompt_cache_warm`, `cache_ttl`, `estimated_cache_write_usd` and `pricing` (docs/MOMENTS.md).
The price is ccstate's own table (the one `ccstate report` uses); Claude Code's estimate
stands in for a model the table does not price. Never a denial: at most `ask` (a setting, off
by default), which shows the same text in Claude Code's confirm dialog.
"""

from __future__ import annotations

from ccstate.moments import line
from ccstate.moments import rates as rates_mod

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    CardOf = Callable[[str], rates_mod.Card | None]


def warning(raw: Mapping[str, Any], card_of: CardOf, *, min_tokens: int) -> str | None:
    """The message, or None: cold cache (a switch loses nothing), a context under
    `min_tokens`, the same model, or a payload without the fields."""
    given = raw.get("context_tokens")
    tokens = given if _count(given) else 0
    if raw.get("prompt_cache_warm") is not True or not tokens or tokens < min_tokens:
        return None
    before, after = raw.get("from_model"), raw.get("to_model")
    if not isinstance(after, str) or not after or after == before:
        return None
    ttl = str(raw.get("cache_ttl")) if raw.get("cache_ttl") in ("5m", "1h") else "5m"
    target = card_of(after)
    switch_usd: float | None = None
    if target is not None:
        switch_usd = rates_mod.usd(tokens, target.for_prompt(tokens).write(ttl))
    elif _price(raw.get("estimated_cache_write_usd")):
        switch_usd = float(raw["estimated_cache_write_usd"])
    current = card_of(before) if isinstance(before, str) else None
    price = f" ≈ {line.money(switch_usd)}" if switch_usd is not None else ""
    text = (
        f"ccstate: switching to {after} drops the warm {ttl} cache of {before or 'this model'}: "
        f"the next turn re-writes ~{line.tokens(tokens)} tokens{price}"
    )
    if current is not None and switch_usd is not None:
        stay = rates_mod.usd(tokens, current.for_prompt(tokens).cache_read)
        text += f" (staying would read them from the cache ≈ {line.money(stay)})"
    return text + "."


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _price(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
