"""`ccstate report`: what a report holds (sessions and totals with costs) and what it says of
them, as figures, JSON and CSV (pure).

Sessions are built from file scans by builder.py; costs: pricing.py; definitions:
docs/REPORT.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ccstate.report import advice, audit, compact_advice, hooktax

# the applied kept-out figure lives in applied.py (the Stop hook imports it, not this module)
from ccstate.report.applied import CHARS_PER_TOKEN as CHARS_PER_TOKEN
from ccstate.report.applied import KeptOut as KeptOut
from ccstate.report.applied import est_tokens
from ccstate.report.applied import kept_out_as_applied as kept_out_as_applied
from ccstate.report.compactions import CompactionCost, compaction_json
from ccstate.report.compactions import totals as compaction_totals
from ccstate.report.composition import READ_KINDS, REREAD_KINDS, Composition
from ccstate.report.pricing import PricingTable
from ccstate.report.usage import FileScan

SCHEMA_VERSION = 2  # 2: cache_audit, ttl_advice, hooks (#16)


@dataclass
class Tokens:
    """Token totals, API calls and their cost: of a scope, a model or the subagents."""

    input: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0
    output: int = 0
    calls: int = 0
    cost: float = 0.0
    unpriced_calls: int = 0

    @property
    def cache_write(self) -> int:
        return self.cache_write_5m + self.cache_write_1h

    @property
    def total(self) -> int:
        return self.input + self.cache_write + self.cache_read + self.output

    @property
    def hit_ratio(self) -> float:
        """Share of prompt tokens served from the cache."""
        prompt = self.input + self.cache_write + self.cache_read
        return self.cache_read / prompt if prompt else 0.0

    def add(self, tokens: tuple[int, int, int, int, int], calls: int, cost: float | None) -> None:
        """Add `calls` API calls that used `tokens` (input, 5-minute cache writes, 1-hour cache
        writes, cache reads, output) and cost `cost` USD (None: no price for their model)."""
        self.input += tokens[0]
        self.cache_write_5m += tokens[1]
        self.cache_write_1h += tokens[2]
        self.cache_read += tokens[3]
        self.output += tokens[4]
        self.calls += calls
        if cost is None:
            self.unpriced_calls += calls
        else:
            self.cost += cost

    def merge(self, other: Tokens) -> None:
        for name in ("input", "cache_write_5m", "cache_write_1h", "cache_read", "output"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.calls += other.calls
        self.cost += other.cost
        self.unpriced_calls += other.unpriced_calls

    def as_dict(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "cache_write": self.cache_write,
            "cache_write_5m": self.cache_write_5m,
            "cache_write_1h": self.cache_write_1h,
            "cache_read": self.cache_read,
            "output": self.output,
            "total": self.total,
            "api_calls": self.calls,
            "unpriced_calls": self.unpriced_calls,
            "cost_usd": round(self.cost, 6),
            "cache_hit_ratio": round(self.hit_ratio, 4),
        }


@dataclass
class Scope:
    """Sessions, one session, or all of them: the same numbers at any level."""

    tokens: Tokens = field(default_factory=Tokens)
    by_model: dict[str, Tokens] = field(default_factory=dict)
    subagents: Tokens = field(default_factory=Tokens)
    composition: Composition = field(default_factory=Composition)
    compactions: list[CompactionCost] = field(default_factory=list)
    # USD per token to keep one token in context: written once, read by each later call
    write_rate: float = 0.0
    read_rate: float = 0.0
    cache_audit: audit.Audit = field(default_factory=audit.Audit)
    ttl: dict[str, advice.TtlCosts] = field(
        default_factory=lambda: {s: advice.TtlCosts() for s in advice.SCOPES}
    )
    hook_runs: list[tuple[str, str, int]] = field(default_factory=list)

    def merge(self, other: Scope) -> None:
        self.tokens.merge(other.tokens)
        for model, tokens in other.by_model.items():
            self.by_model.setdefault(model, Tokens()).merge(tokens)
        self.subagents.merge(other.subagents)
        self.composition.merge(other.composition)
        self.compactions.extend(other.compactions)
        self.cache_audit.merge(other.cache_audit)
        for scope, costs in other.ttl.items():
            self.ttl[scope].merge(costs)
        self.hook_runs.extend(other.hook_runs)


@dataclass
class SessionReport:
    """One session's files, time span, Claude Code versions and numbers."""

    session_id: str
    project: str
    files: list[str]
    first: str
    last: str
    versions: list[str]
    scope: Scope
    scans: list[FileScan] = field(default_factory=list)  # for the charts (not in JSON)
    counted: set[str] = field(default_factory=set)  # message ids counted in this session
    # the main conversation per file and each compaction's fixed prefix: the compaction
    # advice's replay (compact_advice.py; not in JSON)
    sequences: list[compact_advice.Conversation] = field(default_factory=list)
    compaction_fixed: list[int] = field(default_factory=list)


@dataclass
class Report:
    """Everything `ccstate report` prints: sessions, the total and how they were read."""

    sessions: list[SessionReport]
    total: Scope
    pricing: PricingTable
    files: int
    records: int
    skipped_lines: int
    folded_records: int
    cross_file_duplicates: int
    unpriced_models: list[str]


# --------------------------------------------------------------------------- figures


def compaction_advice(
    report: Report, thresholds: tuple[int, ...] = compact_advice.THRESHOLDS
) -> compact_advice.Advice:
    """The replay of every session's main conversation at lower compaction thresholds."""
    pairs = [
        (cost, fixed)
        for s in report.sessions
        for cost, fixed in zip(s.scope.compactions, s.compaction_fixed, strict=False)
    ]
    hist = compact_advice.history(pairs)
    billed = report.total.tokens.cost - report.total.subagents.cost
    sequences = (seq for s in report.sessions for seq in s.sequences)
    return compact_advice.advise(sequences, hist, billed, thresholds)


def ccstate_figures(scope: Scope) -> dict[str, Any]:
    """What ccstate put into the context and what it kept out of it, in tokens and USD."""
    comp = scope.composition
    injected, injected_calls = (
        est_tokens(comp.injection_chars),
        est_tokens(comp.injection_char_calls),
    )
    saved, saved_calls = est_tokens(comp.saved_chars), est_tokens(comp.saved_char_calls)
    notes, note_calls = est_tokens(comp.note_chars), est_tokens(comp.note_char_calls)
    cost = (injected + notes) * scope.write_rate + (injected_calls + note_calls) * scope.read_rate
    savings = saved * scope.write_rate + saved_calls * scope.read_rate
    return {
        "injections": comp.injections,
        "injected_tokens": injected,
        "injected_token_calls": injected_calls,
        "notes": comp.notes,
        "note_tokens": notes,
        "note_token_calls": note_calls,
        "notices": comp.notices,
        "notice_tokens": est_tokens(comp.notice_chars),
        "digests": comp.digests,
        "digest_tokens": est_tokens(comp.digest_chars),
        "digest_saved_tokens": est_tokens(comp.digest_saved_chars),
        "saved_tokens": saved,
        "saved_token_calls": saved_calls,
        "cost_usd": round(cost, 6),
        "savings_usd": round(savings, 6),
        "net_usd": round(savings - cost, 6),
        # Claude Code's own "file unchanged" answers (#23): its saving, never ccstate's
        "claude_code_stubs": comp.cc_stubs,
        "claude_code_saved_tokens": est_tokens(comp.cc_saved_chars),
        "claude_code_saved_token_calls": est_tokens(comp.cc_saved_char_calls),
    }


def composition_rows(comp: Composition) -> list[tuple[str, int, int]]:
    """(category, count, est. tokens) rows: tool results by tool, reads by kind, re-prints,
    ccstate's injections and notices, compaction summaries."""
    rows = [(f"tool: {name}", n, est_tokens(comp.tool_chars[name])) for name, n in _by_size(comp)]
    rows += [
        (
            f"Read: {kind.replace('_', ' ')}",
            comp.read_count[kind],
            est_tokens(comp.read_chars[kind]),
        )
        for kind in READ_KINDS
        if comp.read_count[kind]
    ]
    rows.append(("Bash re-prints", comp.bash_reprints, est_tokens(comp.bash_reprint_chars)))
    rows.append(("ccstate capsule", comp.injections, est_tokens(comp.injection_chars)))
    rows.append(("ccstate notices", comp.notices, est_tokens(comp.notice_chars)))
    rows.append(("ccstate digests", comp.digests, est_tokens(comp.digest_chars)))
    rows.append(("ccstate notes", comp.notes, est_tokens(comp.note_chars)))
    rows.append(
        ("compaction summaries", comp.compact_summaries, est_tokens(comp.compact_summary_chars))
    )
    rows += [
        (f"attached: {kind}", n, est_tokens(comp.attached_chars[kind]))
        for kind, n in sorted(comp.attached_count.items())
    ]
    return rows


def _by_size(comp: Composition) -> list[tuple[str, int]]:
    return sorted(comp.tool_count.items(), key=lambda kv: (-comp.tool_chars[kv[0]], kv[0]))


def top_rereads(comp: Composition, limit: int = 10) -> list[tuple[str, int, int]]:
    """(path, re-reads, est. tokens re-read), most re-read first."""
    ranked = sorted(comp.reread_files.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [(path, n, est_tokens(comp.reread_file_chars[path])) for path, n in ranked]


def reread_summary(comp: Composition) -> dict[str, int]:
    rereads = sum(comp.read_count[k] for k in REREAD_KINDS)
    return {
        "reads": sum(comp.read_count.values()),
        "first_reads": comp.read_count["first"],
        "rereads": rereads,
        "reread_tokens": est_tokens(sum(comp.read_chars[k] for k in REREAD_KINDS)),
        "rereads_after_compaction": comp.read_count["after_compaction"],
    }


# --------------------------------------------------------------------------- JSON and CSV


def scope_json(scope: Scope, top: int = 10, rows: bool = True) -> dict[str, Any]:
    """Every figure of a scope; `rows`: each rebuild too (sessions list theirs, the total
    only its sums)."""
    comp = scope.composition
    return {
        "tokens": scope.tokens.as_dict(),
        "models": {m: t.as_dict() for m, t in sorted(scope.by_model.items())},
        "subagents": scope.subagents.as_dict(),
        "context": {
            "tool_results": {
                name: {"count": n, "est_tokens": est_tokens(comp.tool_chars[name])}
                for name, n in _by_size(comp)
            },
            "tool_errors": comp.error_count,
            "reads": {
                k: {"count": comp.read_count[k], "est_tokens": est_tokens(comp.read_chars[k])}
                for k in READ_KINDS
            },
            "bash_reprints": {
                "count": comp.bash_reprints,
                "est_tokens": est_tokens(comp.bash_reprint_chars),
            },
            "compaction_summaries": {
                "count": comp.compact_summaries,
                "est_tokens": est_tokens(comp.compact_summary_chars),
            },
            "attached": {  # by Claude Code itself (2.1.x attachment records)
                kind: {"count": n, "est_tokens": est_tokens(comp.attached_chars[kind])}
                for kind, n in sorted(comp.attached_count.items())
            },
        },
        "rereads": reread_summary(comp),
        "top_reread_files": [
            {"path": p, "rereads": n, "est_tokens": t} for p, n, t in top_rereads(comp, top)
        ],
        "compactions": [compaction_json(c) for c in scope.compactions],
        "compaction_totals": compaction_totals(scope.compactions),
        "ccstate": ccstate_figures(scope),
        "cache_audit": audit.audit_json(scope.cache_audit, with_rows=rows),
        "ttl_advice": advice.advice_json(scope.ttl),
        "hooks": hooktax.hooks_json(scope.hook_runs),
    }


def report_json(report: Report, top: int = 10) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "pricing": {
            "date": report.pricing.date,
            "source": report.pricing.source,
            "table": report.pricing.origin,
        },
        "files": report.files,
        "records": report.records,
        "skipped_lines": report.skipped_lines,
        "folded_records": report.folded_records,
        "cross_file_duplicates": report.cross_file_duplicates,
        "unpriced_models": report.unpriced_models,
        "sessions": [
            {
                "session_id": s.session_id,
                "project": s.project,
                "files": s.files,
                "first": s.first,
                "last": s.last,
                "versions": s.versions,
                **scope_json(s.scope, top),
            }
            for s in report.sessions
        ],
        "total": scope_json(report.total, top, rows=False),
    }


CSV_HEADER = [
    "session_id",
    "project",
    "first",
    "last",
    "api_calls",
    "input",
    "cache_write",
    "cache_read",
    "output",
    "total",
    "cost_usd",
    "cache_hit_ratio",
    "compactions",
    "rereads",
    "reread_est_tokens",
    "ccstate_saved_est_tokens",
    "rebuilds",
    "rebuild_rewritten_tokens",
    "rebuild_extra_usd",
    "hook_seconds",
]


def csv_rows(report: Report) -> list[list[str]]:
    """One row per session and a final `TOTAL` row."""
    rows = [CSV_HEADER]
    for s in report.sessions:
        rows.append(_csv_row(s.session_id, s.project, s.first, s.last, s.scope))
    rows.append(_csv_row("TOTAL", "", "", "", report.total))
    return rows


def _csv_row(session: str, project: str, first: str, last: str, scope: Scope) -> list[str]:
    t = scope.tokens
    rereads = reread_summary(scope.composition)
    values: list[Any] = [session, project, first, last, t.calls, t.input, t.cache_write]
    values += [t.cache_read, t.output, t.total, f"{t.cost:.6f}", f"{t.hit_ratio:.4f}"]
    values += [len(scope.compactions), rereads["rereads"], rereads["reread_tokens"]]
    values.append(est_tokens(scope.composition.saved_chars))
    a = scope.cache_audit
    hook_ms = sum(run[2] for run in scope.hook_runs)
    values += [a.count, a.rewritten, f"{a.extra_usd:.6f}", f"{hook_ms / 1000:.3f}"]
    return [str(v) for v in values]
