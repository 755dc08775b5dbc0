"""TTL advice: what the same calls would have cost with 5-minute and with 1-hour cache writes,
and the Claude Code setting to apply when the other one pays (pure; standard library only).

Both scenarios price every cache write of the calls at one TTL's rate (1.25x vs 2x base on
the current cards) and keep everything else as the transcript has it, except where the TTL
decides whether the cache survived the idle gap before a call:
- 1 hour: a TTL-expiry rebuild after a gap of at most 60 minutes would not have happened:
  its rewritten tokens are priced as cache reads;
- 5 minutes: a call that read a 1-hour cache after a gap of 5 to 60 minutes would have found
  it gone: what it read is priced as a cache write.
The main conversation and subagents are apart: Claude Code 2.1.328 sets their TTLs apart
(`promptCacheTtl` / `subagentPromptCacheTtl` in settings.json, or the environment variables
CLAUDE_CODE_PROMPT_CACHE_TTL / CLAUDE_CODE_SUBAGENT_PROMPT_CACHE_TTL, which take precedence;
ENABLE_PROMPT_CACHING_1H=1 asks for 1 hour where neither is set; FORCE_PROMPT_CACHING_5M=1
overrides them all). Definitions: docs/REPORT.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ccstate.report.audit import TTL_SECONDS, Call, CardOf, is_main, rates_of

SCOPES = ("main", "subagents")
GAPS = ("under_5m", "5m_to_60m", "over_60m")


@dataclass
class TtlCosts:
    """One scope's calls priced with 5-minute and with 1-hour cache writes."""

    calls: int = 0
    usd_5m: float = 0.0
    usd_1h: float = 0.0
    writes_5m: int = 0  # cache-write tokens the transcripts show, by TTL
    writes_1h: int = 0
    avoided: int = 0  # TTL rebuilds 1-hour writes would have avoided
    avoided_tokens: int = 0
    added: int = 0  # calls that would have rebuilt with 5-minute writes
    added_tokens: int = 0
    unpriced: int = 0
    gaps: dict[str, int] = field(default_factory=lambda: dict.fromkeys(GAPS, 0))

    def merge(self, other: TtlCosts) -> None:
        for name in ("calls", "usd_5m", "usd_1h", "writes_5m", "writes_1h", "avoided"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("avoided_tokens", "added", "added_tokens", "unpriced"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for gap, count in other.gaps.items():
            self.gaps[gap] += count

    @property
    def net_usd(self) -> float:
        """What 1-hour writes save over 5-minute ones (negative: they cost more)."""
        return self.usd_5m - self.usd_1h

    @property
    def current(self) -> str:
        """The TTL most of the scope's cache writes used."""
        return "1h" if self.writes_1h > self.writes_5m else "5m"


def ttl_costs(calls: Iterable[Call], card_of: CardOf) -> dict[str, TtlCosts]:
    """The two scenarios for the main conversation and for subagents."""
    out = {scope: TtlCosts() for scope in SCOPES}
    for call in calls:
        if call.counted:
            _add(out["main" if is_main(call.turn) else "subagents"], call, card_of)
    return out


def _add(costs: TtlCosts, call: Call, card_of: CardOf) -> None:
    turn = call.turn
    costs.calls += 1
    costs.writes_5m += turn.cache_write_5m
    costs.writes_1h += turn.cache_write_1h
    gap = call.gap
    if gap is not None:
        costs.gaps[_bucket(gap)] += 1
    card = card_of(turn.model, turn.timestamp)
    if card is None:
        costs.unpriced += 1
        return
    r, multiplier = rates_of(card, turn)
    writes = turn.cache_write_5m + turn.cache_write_1h
    base = turn.input * r.input + turn.cache_read * r.cache_read + turn.output * r.output
    usd_5m = base + writes * r.cache_write_5m
    usd_1h = base + writes * r.cache_write_1h
    within_hour = gap is not None and gap <= TTL_SECONDS["1h"]
    if call.kind == "ttl_expiry" and within_hour:
        rewritten = call.expected - turn.cache_read
        as_writes = min(rewritten, writes)
        usd_1h -= as_writes * (r.cache_write_1h - r.cache_read)
        usd_1h -= (rewritten - as_writes) * (r.input - r.cache_read)
        costs.avoided += 1
        costs.avoided_tokens += rewritten
    elif (
        call.ttl == "1h"
        and within_hour
        and gap is not None
        and gap > TTL_SECONDS["5m"]
        and turn.cache_read > 0
    ):
        lost = min(turn.cache_read, call.expected)
        usd_5m += lost * (r.cache_write_5m - r.cache_read)
        costs.added += 1
        costs.added_tokens += lost
    costs.usd_5m += usd_5m * multiplier / 1_000_000
    costs.usd_1h += usd_1h * multiplier / 1_000_000


def _bucket(gap: float) -> str:
    if gap <= TTL_SECONDS["5m"]:
        return "under_5m"
    return "5m_to_60m" if gap <= TTL_SECONDS["1h"] else "over_60m"


# --------------------------------------------------------------------------- the advice

SETTINGS = {
    "main": ("promptCacheTtl", "CLAUDE_CODE_PROMPT_CACHE_TTL"),
    "subagents": ("subagentPromptCacheTtl", "CLAUDE_CODE_SUBAGENT_PROMPT_CACHE_TTL"),
}
NAMES = {"main": "the main conversation", "subagents": "subagents"}
WORDS = {"5m": "5-minute", "1h": "1-hour"}


def best_ttl(costs: TtlCosts) -> str:
    """The TTL that would have cost less ("5m" on a tie: the cheaper write)."""
    return "1h" if costs.net_usd > 0 else "5m"


def setting(scope: str, ttl: str) -> str:
    """The exact setting that gives `scope` this TTL."""
    key, env = SETTINGS[scope]
    return f'"{key}": "{ttl}" in ~/.claude/settings.json (or {env}={ttl} in the environment)'


def advice_text(costs: dict[str, TtlCosts]) -> str:
    """One paragraph: the gaps, both costs per scope, and what to set when it pays."""
    parts = []
    for scope in SCOPES:
        c = costs[scope]
        if not c.calls:
            continue
        parts.append(_scope_sentence(scope, c))
    if not parts:
        return "TTL advice: no API calls to judge by."
    both = all(costs[s].calls and best_ttl(costs[s]) == "1h" for s in SCOPES)
    tail = (
        " Both pay with 1 hour: ENABLE_PROMPT_CACHING_1H=1 sets that where neither setting is."
        if both
        else ""
    )
    return "TTL advice: " + " ".join(parts) + tail + " ccstate changed nothing."


def _scope_sentence(scope: str, c: TtlCosts) -> str:
    gaps = c.gaps
    head = (
        f"For {NAMES[scope]} ({c.calls:,} calls; {gaps['5m_to_60m']:,} after an idle gap of "
        f"5-60 min, {gaps['over_60m']:,} after more than an hour), 5-minute cache writes "
        f"cost ${c.usd_5m:,.2f} and 1-hour writes ${c.usd_1h:,.2f} "
        f"(TTL rebuilds: {c.avoided:,} avoided with 1 hour, {c.added:,} more with 5 minutes)."
    )
    best, now = best_ttl(c), c.current
    saving = abs(c.net_usd)
    if best == now:
        return (
            f"{head} Its {WORDS[now]} writes were the cheaper choice by ${saving:,.2f}: keep them."
        )
    return (
        f"{head} {WORDS[best]} writes would have saved ${saving:,.2f}: set {setting(scope, best)}."
    )


def advice_json(costs: dict[str, TtlCosts]) -> dict[str, Any]:
    return {
        "scopes": {
            scope: {
                "calls": c.calls,
                "gaps": dict(c.gaps),
                "cache_writes_5m": c.writes_5m,
                "cache_writes_1h": c.writes_1h,
                "current_ttl": c.current if c.calls else None,
                "usd_with_5m_writes": round(c.usd_5m, 6),
                "usd_with_1h_writes": round(c.usd_1h, 6),
                "net_usd_1h_saves": round(c.net_usd, 6),
                "rebuilds_avoided_with_1h": c.avoided,
                "tokens_avoided_with_1h": c.avoided_tokens,
                "rebuilds_added_with_5m": c.added,
                "tokens_added_with_5m": c.added_tokens,
                "unpriced_calls": c.unpriced,
                "best_ttl": best_ttl(c) if c.calls else None,
                "setting": setting(scope, best_ttl(c)) if c.calls else None,
            }
            for scope, c in costs.items()
        },
        "text": advice_text(costs),
    }
