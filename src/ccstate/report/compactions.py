"""What each compaction cost and what it saved (pure; #26). Definitions: docs/REPORT.md and
docs/COMPACTION.md.

**Cost.** The summarising call is billed like any call: its prompt is the whole context (read
from the cache when it is warm, written again when it is not), plus Claude Code's summarisation
instruction as uncached input, plus the summary as output. No transcript holds that call's own
usage; Claude Code 2.1.x's `cost-state` records hold running totals that include it, so where a
window between two of them holds exactly one compaction, what they count beyond the file's own
calls (and its subagents' calls in that time) of the compaction's model *is* the call:
`measured`. Elsewhere (every transcript of the corpora) it is an `estimate` with the inputs
named: the context at the compaction (`preTokens`), warm when the previous call ended within
the TTL in force, `SUMMARY_PROMPT_TOKENS` of instruction, the kept summary as output (the
`<analysis>` before it is billed too and recorded nowhere: the estimate is a floor). The first
call after it writes the new context to the cache (`rebuild`, already in the totals); what
that costs beyond reading it is `rebuild_extra`.

**Saved.** Every later call of the epoch (until the next compaction or the session's end)
carries `carried_before - carried_after` fewer tokens (the context at the compaction minus the
first later call's prompt), less what the model read again of files it had before (re-reads
after the compaction); priced at each call's cache-read rate. `net = saved - summariser -
rebuild_extra`. Without the compaction the context might not have fitted at all: this prices
only the tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ccstate.report.audit import TTL_SECONDS, CardOf, rates_of, seconds_between
from ccstate.report.pricing import RateCard, is_long
from ccstate.report.usage import MAIN, Compaction, FileScan, Turn

# Tokens of the instruction Claude Code 2.1.328 and 2.1.332 append to the last user message
# of the summarising request (the "CRITICAL: Respond with TEXT ONLY..." text and its closing
# REMINDER, without the "Additional Instructions:" between them): tiktoken's count on the
# request the fake API received, 1,293 for both (docs/COMPACTION.md; the probe that measured it
# is `git show 3d58b1b:scripts/probe_compaction.py`). Older versions' instruction differs; it
# is the same order of size.
SUMMARY_PROMPT_TOKENS = 1_293
CHARS_PER_TOKEN = 4
Tokens = tuple[int, int, int, int, int]  # input, 5-minute writes, 1-hour writes, reads, output
_NONE: Tokens = (0, 0, 0, 0, 0)


@dataclass(frozen=True)
class CompactionCost:
    """One compaction: its summarising call, the cache rebuilt after it, what it saved."""

    compaction: Compaction
    summariser_usd: float
    rebuild_usd: float  # cache writes of the first call after it (already in the totals)
    summariser_source: str = "estimate"  # "measured": from Claude Code's cost-state totals
    summariser_tokens: Tokens = _NONE
    cache: str = ""  # the estimate's cache: "warm", "cold", or "unknown" (priced warm)
    rebuild_extra_usd: float = 0.0  # the rebuild's writes minus reading the same tokens
    following_calls: int = 0
    carried_after: int | None = None  # the first later call's prompt
    saved_tokens: int = 0  # token-calls the later calls did not carry
    saved_usd: float = 0.0
    reread_tokens: int = 0

    @property
    def cost_usd(self) -> float:
        return self.summariser_usd + self.rebuild_extra_usd

    @property
    def net_usd(self) -> float:
        return self.saved_usd - self.cost_usd


def est_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def prompt_of(turn: Turn) -> int:
    return turn.input + turn.cache_write_5m + turn.cache_write_1h + turn.cache_read


def price_session(members: Sequence[FileScan], card_of: CardOf) -> list[CompactionCost]:
    """Every compaction of a session's files, in file order."""
    subagent_turns = [t for m in members if m.subagent_file for t in m.turns.values()]
    out = []
    for scan in members:
        main = sorted((t for t in scan.turns.values() if t.thread == MAIN), key=lambda t: t.line)
        measured = measured_calls(scan, subagent_turns)
        for i, c in enumerate(scan.compactions):
            end = scan.compactions[i + 1].line if i + 1 < len(scan.compactions) else math.inf
            before = [t for t in main if t.line < c.line]
            after = [t for t in main if c.line < t.line < end]
            prev = before[-1] if before else None
            out.append(price(c, prev, after, measured.get(i), card_of))
    return out


def price(
    c: Compaction,
    prev: Turn | None,
    after: Sequence[Turn],
    measured: Tokens | None,
    card_of: CardOf,
) -> CompactionCost:
    card = card_of(c.model, c.timestamp) if c.model else None
    if card is None:
        return CompactionCost(c, 0.0, 0.0, following_calls=len(after))
    if measured is not None:
        tokens, source, cache = measured, "measured", ""
    else:
        cache = _cache_state(prev, c.timestamp)
        tokens, source = _estimate(c, prev, cache), "estimate"
    summariser = _cost(card, tokens)
    r = card.rates
    rebuild = (c.rebuild_5m * r.cache_write_5m + c.rebuild_1h * r.cache_write_1h) / 1e6
    extra = (c.rebuild_5m * (r.cache_write_5m - r.cache_read)) / 1e6
    extra += (c.rebuild_1h * (r.cache_write_1h - r.cache_read)) / 1e6
    carried_after = prompt_of(after[0]) if after else None
    rereads = est_tokens(c.reread_chars)
    saved_tokens, saved_usd = 0, 0.0
    if carried_after is not None:
        per_call = max(0, c.pre_tokens - carried_after - rereads)
        for turn in after[1:]:
            found = card_of(turn.model, turn.timestamp)
            if found is None:
                continue
            rates, multiplier = rates_of(found, turn)
            saved_tokens += per_call
            saved_usd += per_call * rates.cache_read * multiplier / 1e6
    return CompactionCost(
        c,
        summariser,
        rebuild,
        summariser_source=source,
        summariser_tokens=tokens,
        cache=cache,
        rebuild_extra_usd=max(0.0, extra),
        following_calls=len(after),
        carried_after=carried_after,
        saved_tokens=saved_tokens,
        saved_usd=saved_usd,
        reread_tokens=rereads,
    )


def _cache_state(prev: Turn | None, when: str) -> str:
    if prev is None:
        return "unknown"
    gap = seconds_between(prev.last or prev.timestamp, when)
    if gap is None:
        return "unknown"
    ttl = "1h" if prev.cache_write_1h and not prev.cache_write_5m else "5m"
    return "warm" if gap <= TTL_SECONDS[ttl] else "cold"


def _estimate(c: Compaction, prev: Turn | None, cache: str) -> Tokens:
    """The summarising call: the context read (warm) or written again (cold), the instruction,
    the kept summary as output."""
    output = est_tokens(c.summary_chars)
    if cache == "cold":
        one_hour = prev is not None and prev.cache_write_1h > 0 and not prev.cache_write_5m
        writes = (0, c.pre_tokens) if one_hour else (c.pre_tokens, 0)
        return (SUMMARY_PROMPT_TOKENS, writes[0], writes[1], 0, output)
    return (SUMMARY_PROMPT_TOKENS, 0, 0, c.pre_tokens, output)


def _cost(card: RateCard, tokens: Tokens) -> float:
    rates = card.rates
    if is_long(card, tokens[0] + tokens[1] + tokens[2] + tokens[3]) and card.long_rates:
        rates = card.long_rates
    values = (
        rates.input,
        rates.cache_write_5m,
        rates.cache_write_1h,
        rates.cache_read,
        rates.output,
    )
    return sum(t * v for t, v in zip(tokens, values, strict=True)) / 1e6


def measured_calls(scan: FileScan, subagent_turns: Sequence[Turn]) -> dict[int, Tokens]:
    """compaction index -> the summarising call's usage, where a window between two of the
    file's `cost-state` records holds exactly that compaction and the totals count more of
    its model than the calls recorded in that window (this file's and its subagents')."""
    turns = list(scan.turns.values())  # in the order their first record came
    out: dict[int, Tokens] = {}
    seen, compactions, stamp = 0, 0, ""
    totals: dict[str, Any] = {}
    for state in scan.cost_states:
        now_seen, now_compactions, now_stamp, now_totals = state
        if now_compactions - compactions == 1:
            c = scan.compactions[compactions]
            window = [t for t in turns[seen:now_seen] if t.model == c.model]
            window += [
                t
                for t in subagent_turns
                if t.model == c.model and stamp < t.timestamp <= (now_stamp or "~")
            ]
            found = _unrecorded(c, now_totals, totals, window)
            if found is not None:
                out[compactions] = found
        seen, compactions, stamp, totals = now_seen, now_compactions, now_stamp, now_totals
    return out


def _unrecorded(
    c: Compaction, now: dict[str, Any], then: dict[str, Any], window: Sequence[Turn]
) -> Tokens | None:
    after, before = now.get(c.model), then.get(c.model) or [0, 0, 0, 0, 0]
    if not isinstance(after, list) or len(after) != 5:
        return None
    recorded = [0, 0, 0, 0, 0]
    for t in window:
        for k, value in enumerate(
            (t.input, t.cache_write_5m, t.cache_write_1h, t.cache_read, t.output)
        ):
            recorded[k] += value
    rest = tuple(int(a) - int(b) - r for a, b, r in zip(after, before, recorded, strict=True))
    prompt = rest[0] + rest[1] + rest[2] + rest[3]
    # one summarising call: its prompt is about the context at the compaction
    plausible = c.pre_tokens * 1.25 + 10_000 if not c.pre_estimated else math.inf
    if min(rest) < 0 or prompt <= 0 or prompt > plausible:
        return None
    return (rest[0], rest[1], rest[2], rest[3], rest[4])


# --------------------------------------------------------------------------- JSON and totals


def compaction_json(cost: CompactionCost) -> dict[str, Any]:
    c = cost.compaction
    i, w5, w1, read, out = cost.summariser_tokens
    return {
        "timestamp": c.timestamp,
        "trigger": c.trigger,
        "pre_tokens": c.pre_tokens,
        "pre_tokens_estimated": c.pre_estimated,
        "post_tokens": c.post_tokens,
        "model": c.model,
        "summary_est_tokens": est_tokens(c.summary_chars),
        "rebuild_cache_write": c.rebuild_5m + c.rebuild_1h,
        "est_cost_usd": round(cost.summariser_usd + cost.rebuild_usd, 6),
        "est_summariser_usd": round(cost.summariser_usd, 6),
        "est_rebuild_usd": round(cost.rebuild_usd, 6),
        "summariser": {
            "source": cost.summariser_source,
            "cache": cost.cache or None,
            "usd": round(cost.summariser_usd, 6),
            "input": i,
            "cache_write": w5 + w1,
            "cache_read": read,
            "output": out,
        },
        "rebuild_extra_usd": round(cost.rebuild_extra_usd, 6),
        "following_calls": cost.following_calls,
        "carried_before": c.pre_tokens,
        "carried_after": cost.carried_after,
        "reread_est_tokens": cost.reread_tokens,
        "saved_token_calls": cost.saved_tokens,
        "saved_usd": round(cost.saved_usd, 6),
        "net_usd": round(cost.net_usd, 6),
    }


def totals(costs: Sequence[CompactionCost]) -> dict[str, Any]:
    """The scope's compactions summed: their cost, what they saved, the net."""
    measured = sum(c.summariser_source == "measured" for c in costs)
    return {
        "count": len(costs),
        "summariser_measured": measured,
        "summariser_estimated": len(costs) - measured,
        "summariser_usd": round(sum(c.summariser_usd for c in costs), 6),
        "rebuild_extra_usd": round(sum(c.rebuild_extra_usd for c in costs), 6),
        "cost_usd": round(sum(c.cost_usd for c in costs), 6),
        "saved_token_calls": sum(c.saved_tokens for c in costs),
        "saved_usd": round(sum(c.saved_usd for c in costs), 6),
        "net_usd": round(sum(c.net_usd for c in costs), 6),
        "reread_est_tokens": sum(c.reread_tokens for c in costs),
    }
