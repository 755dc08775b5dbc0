"""The rebuild audit: every API call whose cache read fell below what its context's previous
call had cached, why, and what it cost (pure; standard library only).

A *context* is one thread of one transcript file (the main thread, a subagent, a 1.0.x inline
sidechain), its calls in file order. For each call after the first, *expected* is what the
previous call left in the cache (its cache reads + writes, at most this call's prompt). A
*rebuild* is a call that read less, by Claude Code 2.1.328's own rule for a miss (its
promptCacheLedger): the read is under 95 % of expected and at least 2,000 tokens short.
Smaller drops are counted apart. The *rewritten* tokens (expected - read) were written again,
or sent uncached, instead of read: the extra cost is what they cost that way minus what they
would have cost as reads, at that call's rates. Each rebuild gets the first class that fits:

- compaction: a compaction (or microcompaction: old tool results cleared) since the last call
- new context: a resume or `/clear` since the last call (a SessionStart:resume/clear hook
  record, or a 1.0.x resumed file whose earlier calls were copies)
- model switch: the model differs from the last call's (each model has its own cache)
- TTL expiry: idle longer than the TTL in force (1 hour when the context's last cache write
  was all 1-hour, from `usage.cache_creation`; else 5 minutes)
- prefix changed at a new user turn / mid-turn: a prompt, or only tool results, came between
- unexplained: nothing the transcript shows

Definitions and what Claude Code does to cause each class: docs/REPORT.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from ccstate.report.pricing import RateCard, Rates, is_long
from ccstate.report.usage import (
    EV_COMPACTION,
    EV_MICROCOMPACT,
    EV_NEW_CONTEXT,
    EV_PROMPT,
    EV_TOOL_RESULT,
    MAIN,
    Turn,
)

CLASSES = (
    "ttl_expiry",
    "model_switch",
    "compaction",
    "new_context",
    "prefix_new_turn",
    "prefix_mid_turn",
    "unexplained",
)
LABELS = {
    "ttl_expiry": "TTL expiry",
    "model_switch": "model switch",
    "compaction": "compaction",
    "new_context": "new context",
    "prefix_new_turn": "prefix changed at a new user turn",
    "prefix_mid_turn": "prefix changed mid-turn",
    "unexplained": "unexplained",
}
MISS_SHARE = 0.95  # Claude Code 2.1.328: a miss reads under 95 % of the prefix...
MISS_TOKENS = 2000  # ...and is at least this many tokens short
TTL_SECONDS = {"5m": 300, "1h": 3600}

CardOf = Callable[[str, str], RateCard | None]


class Call(NamedTuple):
    """One API call in its context, with what the audit and the TTL advice need."""

    turn: Turn
    file: str
    counted: bool  # False: a copy counted in another file (1.0.x resume)
    gap: float | None  # seconds since the previous call of the context ended
    ttl: str  # the TTL in force for what the previous calls cached: "5m" / "1h"
    expected: int  # tokens the previous call left cached (0 for the first call)
    kind: str  # a class of CLASSES for a rebuild, "drop" for a smaller drop, else ""


class Rebuild(NamedTuple):
    """One rebuild and its evidence."""

    session: str
    file: str
    line: int
    thread: str
    timestamp: str
    kind: str
    gap: float | None
    ttl: str
    models: tuple[str, str]  # (previous call's, this call's)
    changed: tuple[str, ...]  # request settings that changed: "effort low -> high", ...
    expected: int
    read: int
    rewritten: int
    extra_usd: float | None  # None: no price for the model


@dataclass
class ClassTotal:
    count: int = 0
    rewritten: int = 0
    extra_usd: float = 0.0


@dataclass
class Audit:
    """Rebuilds of a session (or of many, merged) and their totals by class."""

    rebuilds: list[Rebuild] = field(default_factory=list)
    by_class: dict[str, ClassTotal] = field(
        default_factory=lambda: {c: ClassTotal() for c in CLASSES}
    )
    compared: int = 0  # calls that had a previous call in their context
    small_drops: int = 0
    small_drop_tokens: int = 0
    rewritten_as_writes: int = 0  # rewritten tokens that were cache writes (not plain input)

    def add(self, rebuild: Rebuild, as_writes: int) -> None:
        self.rebuilds.append(rebuild)
        total = self.by_class[rebuild.kind]
        total.count += 1
        total.rewritten += rebuild.rewritten
        total.extra_usd += rebuild.extra_usd or 0.0
        self.rewritten_as_writes += as_writes

    def merge(self, other: Audit) -> None:
        self.rebuilds.extend(other.rebuilds)
        for kind, total in other.by_class.items():
            mine = self.by_class[kind]
            mine.count += total.count
            mine.rewritten += total.rewritten
            mine.extra_usd += total.extra_usd
        self.compared += other.compared
        self.small_drops += other.small_drops
        self.small_drop_tokens += other.small_drop_tokens
        self.rewritten_as_writes += other.rewritten_as_writes

    @property
    def count(self) -> int:
        return sum(t.count for t in self.by_class.values())

    @property
    def rewritten(self) -> int:
        return sum(t.rewritten for t in self.by_class.values())

    @property
    def extra_usd(self) -> float:
        return sum(t.extra_usd for t in self.by_class.values())


# --------------------------------------------------------------------------- contexts


def contexts(files: Iterable[tuple[str, Iterable[Turn]]]) -> list[list[tuple[Turn, str]]]:
    """The contexts of a session's files: each thread of each file, its calls in order."""
    out: list[list[tuple[Turn, str]]] = []
    for path, turns in files:
        threads: dict[str, list[tuple[Turn, str]]] = {}
        for turn in turns:
            threads.setdefault(turn.thread, []).append((turn, path))
        out.extend(threads.values())
    return out


def walk(context: Sequence[tuple[Turn, str]], counted: set[str]) -> Iterator[Call]:
    """Each call of one context with its gap, TTL in force, expected read and kind."""
    prev: Turn | None = None
    ttl = "5m"
    copied = False  # the previous call was a copy counted in another file
    for turn, path in context:
        is_counted = turn.message_id in counted
        if prev is None:
            yield Call(turn, path, is_counted, None, ttl, 0, "")
        else:
            gap = seconds_between(prev.last or prev.timestamp, turn.timestamp)
            cached = prev.cache_read + prev.cache_write_5m + prev.cache_write_1h
            prompt = turn.input + turn.cache_read + turn.cache_write_5m + turn.cache_write_1h
            expected = min(cached, prompt)
            kind = ""
            if turn.cache_read < expected:
                short = expected - turn.cache_read
                material = turn.cache_read < expected * MISS_SHARE and short >= MISS_TOKENS
                resumed = copied and is_counted
                kind = classify(prev, turn, gap, ttl, resumed) if material else "drop"
            yield Call(turn, path, is_counted, gap, ttl, expected, kind)
        if turn.cache_write_5m or turn.cache_write_1h:  # what later calls read was written so
            ttl = "1h" if turn.cache_write_1h and not turn.cache_write_5m else "5m"
        copied = not is_counted
        prev = turn


def classify(prev: Turn, turn: Turn, gap: float | None, ttl: str, resumed: bool) -> str:
    """The class of a rebuild: the first rule of the module docstring that fits."""
    events = turn.events
    if events & (EV_COMPACTION | EV_MICROCOMPACT):
        return "compaction"
    if events & EV_NEW_CONTEXT or resumed:
        return "new_context"
    if prev.model != turn.model:
        return "model_switch"
    if gap is not None and gap > TTL_SECONDS[ttl]:
        return "ttl_expiry"
    if events & EV_PROMPT:
        return "prefix_new_turn"
    if events & EV_TOOL_RESULT:
        return "prefix_mid_turn"
    return "unexplained"


def seconds_between(earlier: str, later: str) -> float | None:
    """Seconds from one ISO timestamp to another; None when either is unreadable."""
    start, end = _epoch(earlier), _epoch(later)
    return None if start is None or end is None else end - start


_EPOCHS: dict[str, float | None] = {}


def _epoch(stamp: str) -> float | None:
    found = _EPOCHS.get(stamp, -1.0)
    if found != -1.0:
        return found
    value: float | None
    try:  # 3.11 reads the trailing Z; 3.10 needs it spelled +00:00
        value = datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        try:
            value = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except ValueError:
            value = None
    if len(_EPOCHS) < 100_000:
        _EPOCHS[stamp] = value
    return value


# --------------------------------------------------------------------------- the audit


def rates_of(card: RateCard, turn: Turn) -> tuple[Rates, float]:
    """The rates a call was billed at (long-context ones past the threshold) and its
    fast-mode multiplier."""
    prompt = turn.input + turn.cache_read + turn.cache_write_5m + turn.cache_write_1h
    long = is_long(card, prompt)
    rates = card.long_rates if long and card.long_rates is not None else card.rates
    return rates, (card.fast_multiplier if turn.fast else 1.0)


def extra_cost(card: RateCard | None, turn: Turn, rewritten: int) -> tuple[float | None, int]:
    """(USD the rewritten tokens cost beyond reading them, how many were cache writes)."""
    write = turn.cache_write_5m + turn.cache_write_1h
    as_writes = min(rewritten, write)
    if card is None:
        return None, as_writes
    rates, multiplier = rates_of(card, turn)
    if write:
        write_rate = (
            turn.cache_write_5m * rates.cache_write_5m + turn.cache_write_1h * rates.cache_write_1h
        ) / write
    else:
        write_rate = rates.cache_write_5m
    usd = as_writes * (write_rate - rates.cache_read)
    usd += (rewritten - as_writes) * (rates.input - rates.cache_read)
    return usd * multiplier / 1_000_000, as_writes


def walk_all(
    context_list: Sequence[Sequence[tuple[Turn, str]]], counted: set[str]
) -> list[list[Call]]:
    """`walk` over each context (the audit and the TTL advice read the same calls)."""
    return [list(walk(context, counted)) for context in context_list]


def audit_session(session_id: str, walked: Sequence[Sequence[Call]], card_of: CardOf) -> Audit:
    """The rebuilds of one session's walked contexts (calls counted in another file are
    skipped)."""
    audit = Audit()
    for calls in walked:
        prev: Turn | None = None
        for call in calls:
            turn = call.turn
            if prev is not None and call.counted:
                audit.compared += 1
                if call.kind == "drop":
                    audit.small_drops += 1
                    audit.small_drop_tokens += call.expected - turn.cache_read
                elif call.kind:
                    rewritten = call.expected - turn.cache_read
                    usd, as_writes = extra_cost(
                        card_of(turn.model, turn.timestamp), turn, rewritten
                    )
                    audit.add(_rebuild(session_id, call, prev, rewritten, usd), as_writes)
            prev = turn
    return audit


def _rebuild(session_id: str, call: Call, prev: Turn, rewritten: int, usd: float | None) -> Rebuild:
    turn = call.turn
    changed = []
    if prev.effort and turn.effort and prev.effort != turn.effort:
        changed.append(f"effort {prev.effort} -> {turn.effort}")
    if prev.fast != turn.fast:
        changed.append("fast mode " + ("on" if turn.fast else "off"))
    return Rebuild(
        session=session_id,
        file=call.file,
        line=turn.line,
        thread=turn.thread,
        timestamp=turn.timestamp,
        kind=call.kind,
        gap=call.gap,
        ttl=call.ttl,
        models=(prev.model, turn.model),
        changed=tuple(changed),
        expected=call.expected,
        read=turn.cache_read,
        rewritten=rewritten,
        extra_usd=usd,
    )


# --------------------------------------------------------------------------- output


def rebuild_json(r: Rebuild) -> dict[str, Any]:
    return {
        "class": r.kind,
        "file": r.file,
        "line": r.line,
        "thread": r.thread,
        "timestamp": r.timestamp,
        "gap_seconds": None if r.gap is None else round(r.gap, 3),
        "ttl": r.ttl,
        "model_before": r.models[0],
        "model": r.models[1],
        "changed": list(r.changed),
        "expected_read": r.expected,
        "cache_read": r.read,
        "rewritten_tokens": r.rewritten,
        "extra_usd": None if r.extra_usd is None else round(r.extra_usd, 6),
    }


def audit_json(audit: Audit, with_rows: bool = True) -> dict[str, Any]:
    """Totals by class (they add up to `total`), sub-threshold drops and, per session, every
    rebuild with its evidence."""
    data: dict[str, Any] = {
        "by_class": {
            kind: {
                "count": t.count,
                "rewritten_tokens": t.rewritten,
                "extra_usd": round(t.extra_usd, 6),
            }
            for kind, t in audit.by_class.items()
        },
        "total": {
            "count": audit.count,
            "rewritten_tokens": audit.rewritten,
            "rewritten_as_cache_writes": audit.rewritten_as_writes,
            "extra_usd": round(audit.extra_usd, 6),
        },
        "calls_compared": audit.compared,
        "small_drops": {"count": audit.small_drops, "tokens": audit.small_drop_tokens},
    }
    if with_rows:
        data["rebuilds"] = [rebuild_json(r) for r in audit.rebuilds]
    return data


CSV_HEADER = [
    "session_id",
    "class",
    "file",
    "line",
    "thread",
    "timestamp",
    "gap_seconds",
    "ttl",
    "model_before",
    "model",
    "changed",
    "expected_read",
    "cache_read",
    "rewritten_tokens",
    "extra_usd",
]


def csv_rows(rebuilds: Iterable[Rebuild]) -> list[list[str]]:
    """One row per rebuild (`ccstate report --rebuilds --csv`)."""
    rows = [CSV_HEADER]
    for r in rebuilds:
        gap = "" if r.gap is None else f"{r.gap:.3f}"
        usd = "" if r.extra_usd is None else f"{r.extra_usd:.6f}"
        values: list[Any] = [r.session, r.kind, r.file, r.line, r.thread, r.timestamp, gap]
        values += [r.ttl, r.models[0], r.models[1], "; ".join(r.changed), r.expected, r.read]
        values += [r.rewritten, usd]
        rows.append([str(v) for v in values])
    return rows


def is_main(turn: Turn) -> bool:
    """A call of the main conversation (promptCacheTtl), not of a subagent."""
    return turn.thread == MAIN
