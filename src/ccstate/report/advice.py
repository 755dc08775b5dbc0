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
from typing import Any, NamedTuple

from ccstate.report.audit import TTL_SECONDS, Call, CardOf, is_main, rates_of
from ccstate.report.pricing import RateCard

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


# Calls that share a rate card, long-context and fast mode, summed: (scope, card or None,
# long, fast, (input, 5-minute writes, 1-hour writes, reads, output, calls)). The report
# prices its calls in such groups already (summary._TurnSums); the scenarios reuse them.
Group = tuple[str, RateCard | None, bool, bool, tuple[int, int, int, int, int, int]]


def ttl_costs(
    calls: Iterable[Call], groups: Iterable[Group], card_of: CardOf
) -> dict[str, TtlCosts]:
    """The two scenarios for the main conversation and for subagents: every group priced
    with either write rate, then the calls whose fate the TTL decides adjusted one by one."""
    out = {scope: TtlCosts() for scope in SCOPES}
    for scope, card, long, fast, (input, w5, w1, read, output, count) in groups:
        costs = out[scope]
        costs.calls += count
        costs.writes_5m += w5
        costs.writes_1h += w1
        if card is None:
            costs.unpriced += count
            continue
        r = card.long_rates if long and card.long_rates is not None else card.rates
        base = input * r.input + read * r.cache_read + output * r.output
        multiplier = card.fast_multiplier if fast else 1.0
        costs.usd_5m += (base + (w5 + w1) * r.cache_write_5m) * multiplier / 1_000_000
        costs.usd_1h += (base + (w5 + w1) * r.cache_write_1h) * multiplier / 1_000_000
    for call in calls:
        if call.counted and call.gap is not None:
            _adjust(out["main" if is_main(call.turn) else "subagents"], call, card_of)
    return out


def _adjust(costs: TtlCosts, call: Call, card_of: CardOf) -> None:
    """A call's gap bucket, and its price change where the TTL decides whether the cache
    survived the gap before it."""
    gap = call.gap
    assert gap is not None
    costs.gaps[_bucket(gap)] += 1
    if gap <= TTL_SECONDS["5m"] or gap > TTL_SECONDS["1h"]:
        return  # both TTLs keep it, or both lose it
    turn = call.turn
    avoided = call.kind == "ttl_expiry"
    lost = call.ttl == "1h" and not call.kind and turn.cache_read > 0
    if not (avoided or lost):
        return
    card = card_of(turn.model, turn.timestamp)
    if card is None:
        return
    r, multiplier = rates_of(card, turn)
    scale = multiplier / 1_000_000
    if avoided:  # 1 hour would have kept it: the rewrite is read instead
        rewritten = call.expected - turn.cache_read
        as_writes = min(rewritten, turn.cache_write_5m + turn.cache_write_1h)
        saved = as_writes * (r.cache_write_1h - r.cache_read)
        saved += (rewritten - as_writes) * (r.input - r.cache_read)
        costs.usd_1h -= saved * scale
        costs.avoided += 1
        costs.avoided_tokens += rewritten
    else:  # 5 minutes would have lost what it read from its 1-hour cache
        tokens = min(turn.cache_read, call.expected)
        costs.usd_5m += tokens * (r.cache_write_5m - r.cache_read) * scale
        costs.added += 1
        costs.added_tokens += tokens


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


class Decision(NamedTuple):
    """A decision as the CLI prints it (#40): the verdict first, a table, one line of caveat."""

    verdict: str
    header: tuple[str, ...]
    rows: list[tuple[str, ...]]
    section: int  # a line above this row: the decision's rows, then the figures behind it
    caveat: str
    numeric: bool  # the columns after the first hold numbers (right-justified)


TTL_CAVEAT = "Set in ~/.claude/settings.json (or CLAUDE_CODE_[SUBAGENT_]PROMPT_CACHE_TTL)."
COLUMNS = {"main": "main conversation", "subagents": "subagents"}
SHORT = {"5m": "5 minutes", "1h": "1 hour"}


def ttl_decision(costs: dict[str, TtlCosts]) -> Decision:
    """Per scope (a column each): the setting, the TTL now and the other one, what each cost,
    the verdict; then the calls, their idle gaps and the TTL rebuilds behind it."""
    scopes = [scope for scope in SCOPES if costs[scope].calls]
    if not scopes:
        return Decision("Cache TTL: no API calls to judge by.", (), [], 0, "", False)
    cs = [costs[scope] for scope in scopes]
    other = {"5m": "1h", "1h": "5m"}
    rows = [
        ("setting", *(SETTINGS[scope][0] for scope in scopes)),
        ("now", *(f"{WORDS[c.current]} writes" for c in cs)),
        ("alternative", *(f"{WORDS[other[c.current]]} writes" for c in cs)),
        ("cost now", *(_usd(c, c.current) for c in cs)),
        ("cost then", *(_usd(c, other[c.current]) for c in cs)),
        ("verdict", *(_verdict(c) for c in cs)),
        ("calls", *(f"{c.calls:,}" for c in cs)),
        ("after 5-60 min idle", *(f"{c.gaps['5m_to_60m']:,}" for c in cs)),
        ("after over 1 h idle", *(f"{c.gaps['over_60m']:,}" for c in cs)),
        ("TTL rebuilds 1 h avoids", *(f"{c.avoided:,}" for c in cs)),
        ("TTL rebuilds 5 min adds", *(f"{c.added:,}" for c in cs)),
    ]
    header = ("", *(COLUMNS[scope] for scope in scopes))
    return Decision(_ttl_verdict(costs, scopes), header, rows, 6, TTL_CAVEAT, False)


def _usd(c: TtlCosts, ttl: str) -> str:
    return f"${c.usd_5m if ttl == '5m' else c.usd_1h:,.2f}"


def _verdict(c: TtlCosts) -> str:
    best, saving = best_ttl(c), abs(c.net_usd)
    if best == c.current:
        return f"keep: ${saving:,.2f} less"
    return f'set "{best}": ${saving:,.2f} less'


def _ttl_verdict(costs: dict[str, TtlCosts], scopes: list[str]) -> str:
    """The title line: what to do, scope by scope."""
    moves = [scope for scope in scopes if best_ttl(costs[scope]) != costs[scope].current]
    if not moves:
        return "Cache TTL: keep what you have; ccstate changed nothing"
    if len(scopes) == 2 and all(best_ttl(costs[scope]) == "1h" for scope in scopes):
        return "Cache TTL: 1 hour pays for both (ENABLE_PROMPT_CACHING_1H=1 where unset)"
    parts = [f"{NAMES[scope]} to {SHORT[best_ttl(costs[scope])]}" for scope in moves]
    return "Cache TTL: switch " + " and ".join(parts) + "; ccstate changed nothing"


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
