"""Compacting earlier, advised from the user's own sessions: a replay (pure; #26).

This is a model, not a measurement. For each session's main conversation it takes the calls
as they were (each call's prompt and output, the idle gap before it, the TTL in force, the
model's prices) and replays them with Claude Code compacting once the context passes a lower
threshold `T`. Assumptions, all printed with the advice:

- between two calls the context grows by what it grew in the session (the prompt difference);
  a compaction the session really had is kept when the user asked for it (`/compact`) and
  dropped when it was automatic (under `T` the context never reaches the old threshold);
- a compaction costs one summarising call (the context read from the cache, Claude Code's
  instruction as input, the summary as output), and none is made when what it would leave is
  not under `T` (Claude Code: "compaction cannot help"); it leaves the fixed prefix (the session's
  smallest cache read: system prompt and tools), the summary and what Claude Code keeps or
  attaches again (preserved turns, recently read files); the summary size, that remainder and
  the re-reads that follow a compaction (files the model reads again) are the user's own
  medians where the report found compactions, else the corpus calibration's
  (`bench/compaction_calibration.py`);
- every call is priced by one cache rule, the same for the session as it was and for the
  replay: within the TTL a call reads what the previous one sent and writes the rest; after a
  compaction or an expired TTL it reads the fixed prefix at most and writes the rest; output
  as it was. The saving is the difference of the two, so the rule's error largely cancels;
  its error on the session as it was (model vs bill) is printed and sets the margin.
- It prices tokens only: a summary written earlier may lose detail the model needs later.

The setting: Claude Code 2.1.328 and 2.1.332 compact at `W - 33,000` tokens with
`CLAUDE_CODE_AUTO_COMPACT_WINDOW=W` (the window less a 20,000-token output reserve less a
13,000-token buffer; docs/COMPACTION.md), whatever the model's window.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ccstate.report.advice import Decision
from ccstate.report.audit import TTL_SECONDS, CardOf, seconds_between
from ccstate.report.compactions import SUMMARY_PROMPT_TOKENS, CompactionCost, est_tokens, prompt_of
from ccstate.report.pricing import Rates
from ccstate.report.usage import MAIN, FileScan

THRESHOLDS = (60_000, 80_000, 100_000, 120_000, 140_000)
WINDOW_RESERVE = 33_000
MARGIN = 0.05  # the least share of the modelled cost a saving must pass to be advised
# The corpus calibration's medians (bench/compaction_calibration.py on the public corpus's 11
# compactions): used where the user's own sessions hold no compaction.
DEFAULT_SUMMARY = 3_630
DEFAULT_REMAINDER = 21_715
DEFAULT_REREAD = 3_675


class Step(NamedTuple):
    """One main-conversation call, as the replay needs it."""

    prompt: int
    output: int
    cold: bool  # the idle gap before it outlived the TTL in force
    one_hour: bool  # its cache writes are 1-hour ones
    rates: Rates | None  # None: unpriced model
    observed: str  # "auto" / "manual": a compaction came right before it; "" otherwise
    pre: int  # that compaction's context (for its summarising call)
    summary: int  # that compaction's summary (tokens)


@dataclass
class Conversation:
    """The main conversation of one transcript file, and its fixed prefix."""

    steps: list[Step]
    fixed: int


def main_sequences(members: Sequence[FileScan], card_of: CardOf) -> list[Conversation]:
    """Each file's main-thread calls in order, with the compactions between them."""
    out = []
    for scan in members:
        turns = sorted((t for t in scan.turns.values() if t.thread == MAIN), key=lambda t: t.line)
        if not turns:
            continue
        marks = sorted(scan.compactions, key=lambda c: c.line)
        steps, prev = [], None
        for turn in turns:
            before = [c for c in marks if (prev.line if prev else -1) < c.line < turn.line]
            c = before[-1] if before else None
            gap: float | None = None
            if prev is not None:
                gap = seconds_between(prev.last or prev.timestamp, turn.timestamp)
            ttl = "1h" if prev and prev.cache_write_1h and not prev.cache_write_5m else "5m"
            card = card_of(turn.model, turn.timestamp)
            steps.append(
                Step(
                    prompt_of(turn),
                    turn.output,
                    gap is not None and gap > TTL_SECONDS[ttl],
                    bool(turn.cache_write_1h) and not turn.cache_write_5m,
                    card.rates if card is not None else None,
                    ("manual" if c.trigger == "manual" else "auto") if c is not None else "",
                    c.pre_tokens if c is not None else 0,
                    est_tokens(c.summary_chars) if c is not None else 0,
                )
            )
            prev = turn
        reads = [t.cache_read for t in turns if t.cache_read > 0]
        out.append(Conversation(steps, min(reads) if reads else min(s.prompt for s in steps)))
    return out


class History(NamedTuple):
    """What the user's own compactions show (else the calibration's defaults)."""

    summary: int
    remainder: int
    reread: int
    compactions: int  # how many the figures come from (0: the defaults)


def history(costs: Iterable[tuple[CompactionCost, int]]) -> History:
    """From (compaction, the fixed prefix of its session) pairs."""
    summaries, remainders, rereads = [], [], []
    for cost, fixed in costs:
        c = cost.compaction
        if cost.carried_after is None or not c.summary_chars:
            continue
        summary = est_tokens(c.summary_chars)
        summaries.append(summary)
        remainders.append(max(0, cost.carried_after - fixed - summary))
        rereads.append(cost.reread_tokens)
    if not summaries:
        return History(DEFAULT_SUMMARY, DEFAULT_REMAINDER, DEFAULT_REREAD, 0)
    return History(
        int(statistics.median(summaries)),
        int(statistics.median(remainders)),
        int(statistics.median(rereads)),
        len(summaries),
    )


@dataclass
class Outcome:
    """One replay (or the session as it was, `threshold` None), summed over sequences."""

    threshold: int | None
    usd: float = 0.0
    calls: int = 0
    compactions: int = 0  # summarising calls
    added: int = 0  # compactions the replay made
    dropped: int = 0  # automatic compactions of the session it did not need
    carried: int = 0  # token-calls: every call's prompt, summed
    rereads: int = 0  # tokens read again after the replay's compactions
    unpriced: int = 0

    def merge(self, other: Outcome) -> None:
        for name in ("usd", "calls", "compactions", "added", "dropped", "carried", "rereads"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.unpriced += other.unpriced


def replay(seq: Conversation, threshold: int | None, hist: History) -> Outcome:
    """The sequence priced by the cache rule, compacting past `threshold` (None: as it was)."""
    out = Outcome(threshold)
    carried = sent = last_out = 0  # the context the replay carries, the prompt last sent
    for i, step in enumerate(seq.steps):
        reset = False
        if i == 0:
            carried = step.prompt
        elif threshold is None or step.observed == "manual":
            if step.observed:  # the session's own compaction
                context = step.pre if threshold is None else carried + last_out
                out.usd += _summariser(step.rates, context, step.summary)
                out.compactions += 1
                reset = True
            carried = step.prompt
        else:
            out.dropped += bool(step.observed)
            grown = 0 if step.observed else step.prompt - seq.steps[i - 1].prompt
            base = seq.fixed + hist.summary + hist.remainder + hist.reread
            # Claude Code checks after each call, and does not compact when what a compaction
            # leaves would not be under the threshold ("compaction cannot help")
            if carried + last_out > threshold and base < threshold:
                out.usd += _summariser(step.rates, carried + last_out, hist.summary)
                out.compactions += 1
                out.added += 1
                out.rereads += hist.reread
                carried = base
                reset = True
            carried = max(seq.fixed, carried + grown)
        out.usd += _call(step, carried, sent, seq.fixed, reset)
        out.unpriced += step.rates is None
        out.calls += 1
        out.carried += carried
        sent, last_out = carried, step.output
    return out


def _call(step: Step, prompt: int, previous: int, fixed: int, reset: bool) -> float:
    """One call by the cache rule: an expired TTL reads nothing, a compaction before it the
    fixed prefix at most, else what the previous call sent; the rest is written."""
    if step.rates is None:
        return 0.0
    r = step.rates
    cached = 0 if step.cold else min(fixed if reset else previous, prompt)
    write = r.cache_write_1h if step.one_hour else r.cache_write_5m
    return (cached * r.cache_read + (prompt - cached) * write + step.output * r.output) / 1e6


def _summariser(rates: Rates | None, context: int, summary: int) -> float:
    """A summarising call right after the call it follows: its context read from the cache."""
    if rates is None:
        return 0.0
    prompt = context * rates.cache_read + SUMMARY_PROMPT_TOKENS * rates.input
    return (prompt + summary * rates.output) / 1e6


# --------------------------------------------------------------------------- the advice


@dataclass
class Advice:
    history: History
    billed: float  # the main conversations' calls as billed
    observed: Outcome
    replays: list[Outcome] = field(default_factory=list)

    @property
    def model_error(self) -> float:
        return abs(self.observed.usd - self.billed) / self.billed if self.billed else 0.0

    @property
    def margin(self) -> float:
        return max(MARGIN, self.model_error)

    def best(self) -> Outcome | None:
        """The cheapest replay, when it saves more than the margin of the modelled cost."""
        cheapest = min(self.replays, key=lambda o: o.usd, default=None)
        if cheapest is None or self.observed.usd - cheapest.usd <= self.margin * self.observed.usd:
            return None
        return cheapest


def advise(
    sequences: Iterable[Conversation], hist: History, billed: float, thresholds: Sequence[int]
) -> Advice:
    seqs = list(sequences)
    advice = Advice(hist, billed, Outcome(None))
    for seq in seqs:
        advice.observed.merge(replay(seq, None, hist))
    for threshold in thresholds:
        total = Outcome(threshold)
        for seq in seqs:
            total.merge(replay(seq, threshold, hist))
        advice.replays.append(total)
    return advice


def setting(threshold: int) -> str:
    return f"CLAUDE_CODE_AUTO_COMPACT_WINDOW={threshold + WINDOW_RESERVE}"


ASSUMPTIONS = (
    "This is a model, not a measurement: the sessions' main conversations replayed with the "
    "context growing as it grew, user-asked compactions kept and automatic ones dropped; each "
    "compaction priced as one summarising call and followed by the fixed prefix, a summary of "
    "{summary:,} tokens, {remainder:,} tokens Claude Code keeps or attaches again and "
    "{reread:,} tokens of re-reads ({source}); every call priced by one cache rule (within the "
    "TTL it reads what the previous call sent); tokens only, not what an earlier summary may "
    "lose."
)


def advice_text(advice: Advice) -> str:
    if not advice.observed.calls:
        return "Compaction advice: no main-conversation calls to replay."
    o, h = advice.observed, advice.history
    source = f"your {h.compactions} compaction(s)" if h.compactions else "the corpus calibration"
    head = (
        f"Compaction advice: your {o.calls:,} main-conversation calls with {o.compactions:,} "
        f"compaction(s) cost ${advice.billed:,.2f} as billed and ${o.usd:,.2f} in the model "
        f"(error {advice.model_error:.1%})."
    )
    parts = [
        f"compacting at {r.threshold:,} tokens: ${r.usd:,.2f} ({r.added:,} summarising call(s) "
        f"added, {r.dropped:,} automatic one(s) dropped, "
        f"{max(0, o.carried - r.carried):,} token-calls not carried, {r.rereads:,} re-read)"
        for r in advice.replays
        if r.threshold is not None
    ]
    best = advice.best()
    if best is None or best.threshold is None:
        verdict = (
            f"None saves more than {advice.margin:.0%} of the modelled cost: keep Claude Code's "
            "threshold."
        )
    else:
        saved = o.usd - best.usd
        verdict = (
            f"Cheapest: {best.threshold:,} tokens, ${saved:,.2f} ({saved / o.usd:.0%}) less: set "
            f"{setting(best.threshold)} (Claude Code then compacts at {best.threshold:,})."
        )
    assumptions = ASSUMPTIONS.format(
        summary=h.summary, remainder=h.remainder, reread=h.reread, source=source
    )
    return f"{head} Replayed " + "; ".join(parts) + f". {verdict} {assumptions}"


DECISION_HEADER = (
    "compact at",
    "cost",
    "vs now",
    "summaries\n+added -dropped",
    "token-calls\nnot carried",
    "tokens\nre-read",
)


def decision(advice: Advice) -> Decision:
    """The bill, the session as the model prices it, and a row per threshold replayed (its
    cost, the difference, summarising calls added and automatic ones dropped, token-calls
    not carried, tokens re-read); the verdict above, the model's error and inputs below."""
    o, h = advice.observed, advice.history
    if not o.calls:
        return Decision("Compaction: no main-conversation calls to replay.", (), [], 0, "", True)
    rows: list[tuple[str, ...]] = [
        (f"billed\n{o.calls:,} calls", f"${advice.billed:,.2f}", "", "", "", ""),
        ("now (model)", f"${o.usd:,.2f}", "", f"{o.compactions:,}", "", ""),
    ]
    rows += [
        (
            f"{r.threshold:,}",
            f"${r.usd:,.2f}",
            _signed(r.usd - o.usd),
            f"+{r.added:,} -{r.dropped:,}",
            f"{max(0, o.carried - r.carried):,}",
            f"{r.rereads:,}",
        )
        for r in advice.replays
        if r.threshold is not None
    ]
    source = f"median of your {h.compactions}" if h.compactions else "corpus medians"
    caveat = (
        f"Model error {advice.model_error:.1%}; {source}: {h.summary:,} summary, "
        f"{h.remainder:,} kept, {h.reread:,} re-read"
    )
    return Decision(_verdict(advice), DECISION_HEADER, rows, 2, caveat, True)


def _verdict(advice: Advice) -> str:
    best, now = advice.best(), advice.observed.usd
    if best is None or best.threshold is None:
        return f"Compaction: keep Claude Code's threshold; none saves over {advice.margin:.0%}"
    saved = now - best.usd
    return f"Compaction: set {setting(best.threshold)}; ${saved:,.2f} ({saved / now:.0%}) less"


def _signed(usd: float) -> str:
    return f"{'-' if usd < 0 else '+'}${abs(usd):,.2f}"


def advice_json(advice: Advice) -> dict[str, Any]:
    best = advice.best()
    return {
        "billed_usd": round(advice.billed, 6),
        "model_usd": round(advice.observed.usd, 6),
        "model_error": round(advice.model_error, 4),
        "margin": round(advice.margin, 4),
        "history": advice.history._asdict(),
        "observed": _outcome_json(advice.observed),
        "replays": [_outcome_json(r) for r in advice.replays],
        "best_threshold": best.threshold if best else None,
        "setting": setting(best.threshold) if best and best.threshold else None,
        "text": advice_text(advice),
    }


def _outcome_json(o: Outcome) -> dict[str, Any]:
    return {
        "threshold": o.threshold,
        "usd": round(o.usd, 6),
        "calls": o.calls,
        "compactions": o.compactions,
        "added": o.added,
        "dropped": o.dropped,
        "token_calls": o.carried,
        "reread_tokens": o.rereads,
        "unpriced_calls": o.unpriced,
    }
