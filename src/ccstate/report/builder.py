"""`ccstate report`'s sessions built from file scans (pure): each API response counted once,
every call priced, each session's rebuilds audited and its calls priced with either cache TTL.

A session is a main transcript plus its `<session>/subagents/` files. An API response seen in
two files (a resumed 1.0.x session copies earlier records) counts once, in the earliest file
(`scan_order`); `session_part` builds one session alone, in a worker, and `ReportBuilder.take`
keeps it when none of its responses was counted before. What a report holds: summary.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ccstate.report import advice, audit, compact_advice
from ccstate.report.compactions import price_session
from ccstate.report.pricing import PricingTable, RateCard, is_long, tokens_cost
from ccstate.report.summary import Report, Scope, SessionReport, Tokens
from ccstate.report.usage import MAIN, FileScan, Turn


def build_report(scans: Iterable[FileScan], pricing: PricingTable) -> Report:
    """Group scans into sessions, count each API response once, price every call."""
    ordered = sorted(scans, key=scan_order)
    builder = ReportBuilder(pricing)
    for (project, session_id), members in group_sessions(ordered).items():
        builder.add(project, session_id, members)
    return builder.report(
        files=len(ordered),
        records=sum(s.records for s in ordered),
        skipped=sum(s.skipped for s in ordered),
        folded=sum(s.folded for s in ordered),
    )


def scan_order(scan: FileScan) -> tuple[str, str]:
    """Files in the order their API responses are counted: the earliest first."""
    return (scan.first or "~", scan.path)


def group_sessions(ordered: Iterable[FileScan]) -> dict[tuple[str, str], list[FileScan]]:
    """(project, session id) -> its files, in the order of `ordered`; sessions in the order
    of their first file."""
    groups: dict[tuple[str, str], list[FileScan]] = {}
    for scan in ordered:
        groups.setdefault((scan.project, scan.session_id), []).append(scan)
    return groups


class ReportBuilder:
    """Sessions added one at a time, in order: an API response already counted in an earlier
    session (or an earlier file of this one) is a cross-file duplicate, not counted again."""

    def __init__(self, pricing: PricingTable) -> None:
        self.pricing = pricing
        self.cards = _CardCache(pricing)
        self.seen: set[str] = set()
        self.duplicates = 0
        self.unpriced: set[str] = set()
        self.sessions: list[SessionReport] = []

    def add(self, project: str, session_id: str, members: list[FileScan]) -> SessionReport:
        """Count, price and audit one session's files (`members`, in `scan_order`)."""
        pricing, seen = self.pricing, self.seen
        scope = Scope()
        sums = _TurnSums(self.cards)
        counted: set[str] = set()
        for scan in members:
            for turn in scan.turns.values():
                if turn.message_id in seen:
                    self.duplicates += 1
                    continue
                seen.add(turn.message_id)
                counted.add(turn.message_id)
                sums.add(turn)
            scope.composition.merge(scan.composition)
            scope.hook_runs.extend(scan.hook_runs)
        sums.settle(scope, self.unpriced)
        scope.compactions = price_session(members, self.cards.card)
        _set_context_rates(scope, pricing)
        _audit(scope, session_id, members, counted, sums)
        session = _session(project, session_id, members, scope)
        session.scans, session.counted = members, counted
        _replay_inputs(session, members, self.cards.card)
        self.sessions.append(session)
        return session

    def take(self, part: SessionPart) -> bool:
        """Add a session built on its own (`session_part`) when none of its API responses
        was counted before it, which makes it what `add` would build here; False otherwise
        (then `add` it from its scans)."""
        if not self.seen.isdisjoint(part.message_ids):
            return False
        self.seen.update(part.message_ids)
        self.duplicates += part.duplicates
        self.unpriced |= part.unpriced
        self.sessions.append(part.session)
        return True

    def report(self, *, files: int, records: int, skipped: int, folded: int) -> Report:
        total = Scope()
        for session in self.sessions:
            total.merge(session.scope)
        _set_context_rates(total, self.pricing)
        return Report(
            sessions=self.sessions,
            total=total,
            pricing=self.pricing,
            files=files,
            records=records,
            skipped_lines=skipped,
            folded_records=folded,
            cross_file_duplicates=self.duplicates,
            unpriced_models=sorted(self.unpriced),
        )


@dataclass
class SessionPart:
    """One session built apart from the others (in a worker): its report as if no other
    session shared its API responses, and what `ReportBuilder.take` needs to check that."""

    order: tuple[str, str]  # its first file's `scan_order`
    project: str
    session_id: str
    session: SessionReport  # without scans and counted ids: the charts use `build_report`
    message_ids: tuple[str, ...]  # of its API responses
    duplicates: int
    unpriced: set[str]
    files: int
    records: int
    skipped: int
    folded: int


def session_part(
    project: str, session_id: str, members: list[FileScan], pricing: PricingTable
) -> SessionPart:
    """`members` (one session's files) built on their own, light enough to send back."""
    members = sorted(members, key=scan_order)
    builder = ReportBuilder(pricing)
    session = builder.add(project, session_id, members)
    session.scans, session.counted = [], set()
    return SessionPart(
        order=scan_order(members[0]),
        project=project,
        session_id=session_id,
        session=session,
        message_ids=tuple(builder.seen),
        duplicates=builder.duplicates,
        unpriced=builder.unpriced,
        files=len(members),
        records=sum(s.records for s in members),
        skipped=sum(s.skipped for s in members),
        folded=sum(s.folded for s in members),
    )


def _audit(
    scope: Scope, session_id: str, members: list[FileScan], counted: set[str], sums: _TurnSums
) -> None:
    """The session's rebuild audit and its calls priced with either cache TTL."""
    context_list = audit.contexts((m.path, m.turns.values()) for m in members)
    walked = audit.walk_all(context_list, counted)
    card = sums.cards.card
    scope.cache_audit = audit.audit_session(session_id, walked, card)
    groups: list[advice.Group] = [
        (
            "subagents" if sub else "main",
            card(model, day),
            long,
            fast,
            (v[0], v[1], v[2], v[3], v[4], v[5]),
        )
        for (model, day, sub, long, fast), v in sums.groups.items()
    ]
    scope.ttl = advice.ttl_costs((call for calls in walked for call in calls), groups, card)


def _replay_inputs(session: SessionReport, members: list[FileScan], card: audit.CardOf) -> None:
    fixed: list[int] = []
    for member in members:
        sequences = compact_advice.main_sequences([member], card)
        session.sequences.extend(sequences)
        fixed += [sequences[0].fixed if sequences else 0] * len(member.compactions)
    session.compaction_fixed = fixed


def _session(project: str, session_id: str, members: list[FileScan], scope: Scope) -> SessionReport:
    return SessionReport(
        session_id=session_id,
        project=project,
        files=[m.path for m in members],
        first=min((m.first for m in members if m.first), default=""),
        last=max((m.last for m in members), default=""),
        versions=sorted({v for m in members for v in m.versions}),
        scope=scope,
    )


class _CardCache:
    """`pricing.card` per (model, day): a report prices thousands of calls of a few models."""

    def __init__(self, pricing: PricingTable) -> None:
        self.pricing = pricing
        self.cards: dict[tuple[str, str], RateCard | None] = {}

    def card(self, model: str, day: str) -> RateCard | None:
        key = (model, day)
        try:
            return self.cards[key]
        except KeyError:
            found = self.cards[key] = self.pricing.card(model, day)
            return found


class _TurnSums:
    """A session's API calls summed per (model, day, subagent or not, long-context, fast):
    calls that share those share a rate card and rates, so each group is priced once."""

    def __init__(self, cards: _CardCache) -> None:
        self.cards = cards
        self.groups: dict[tuple[str, str, bool, bool, bool], list[int]] = {}

    def add(self, turn: Turn) -> None:
        _id, model, stamp, thread, input, write_5m, write_1h, read, output, fast = turn[:10]
        day = stamp[:10]
        card = self.cards.card(model, day)
        long = card is not None and is_long(card, input + write_5m + write_1h + read)
        key = (model, day, thread != MAIN, long, fast)
        sums = self.groups.get(key)
        if sums is None:
            sums = self.groups[key] = [0, 0, 0, 0, 0, 0]
        sums[0] += input
        sums[1] += write_5m
        sums[2] += write_1h
        sums[3] += read
        sums[4] += output
        sums[5] += 1

    def settle(self, scope: Scope, unpriced: set[str]) -> None:
        """Add the priced groups to the scope's totals, per model and for subagents."""
        for (model, day, subagent, long, fast), sums in self.groups.items():
            tokens = (sums[0], sums[1], sums[2], sums[3], sums[4])
            card = self.cards.card(model, day)
            cost = None if card is None else tokens_cost(card, long, fast, tokens)
            if card is None:
                unpriced.add(model)
            by_model = scope.by_model.get(model)
            if by_model is None:
                by_model = scope.by_model[model] = Tokens()
            targets = (
                (scope.tokens, by_model, scope.subagents) if subagent else (scope.tokens, by_model)
            )
            for target in targets:
                target.add(tokens, sums[5], cost)


def _set_context_rates(scope: Scope, pricing: PricingTable) -> None:
    """Rates of the scope's busiest model, to price tokens kept in (or out of) the context."""
    if not scope.by_model:
        return
    model = max(scope.by_model.items(), key=lambda item: (item[1].calls, item[0]))[0]
    card = pricing.card(model)
    if card is not None:
        scope.write_rate = card.rates.cache_write_5m / 1_000_000
        scope.read_rate = card.rates.cache_read / 1_000_000
