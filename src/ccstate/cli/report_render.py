"""Rich tables for `ccstate report` (rich is imported here only)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ccstate.cli import tables
from ccstate.report import advice, audit, hooktax
from ccstate.report import summary as report
from ccstate.report.compactions import totals as compaction_totals
from ccstate.report.summary import Report, Scope, Tokens, est_tokens

_NUM = {"justify": "right", "no_wrap": True}


TOOLS_SHOWN = 12
_redactor: list[Any] = []


def _shown(text: str) -> str:
    """A string from the transcripts (a path, a hook's command, a tool's name), redacted
    before a table folds or cuts it (#23)."""
    if not _redactor:
        from ccstate.secrets import redact

        _redactor.append(redact.Redactor())
    return str(_redactor[0].redact(text))


def render(
    result: Report,
    top: int,
    console: Console | None = None,
    fidelity: dict[tuple[str, int], dict[str, Any]] | None = None,
) -> None:
    if console is None:
        # no markup or emoji codes: paths (`app/[id]/page.tsx`), models (`...-4-6[1m]`) and
        # project names are data, printed as they are
        console = make_console()
    p = result.pricing
    console.print(
        Text.assemble(
            ("ccstate report", "bold"),
            f": {len(result.sessions)} session(s), {result.files} file(s), "
            f"{result.records:,} records",
        )
    )
    tables.print_wrapped(console, f"prices of {p.date} ({p.origin})", "dim")
    tables.print_table(console, _sessions_table(result))
    tables.print_table(console, _models_table(result.total))
    tables.print_table(console, _composition_table(result.total))
    rereads = _rereads_table(result.total, top)
    if rereads is not None:
        tables.print_table(console, rereads)
    compactions = _compactions_table(result, fidelity)
    if compactions is not None:
        tables.print_table(console, compactions)
    tables.print_table(console, _ccstate_table(result.total))
    tables.print_table(console, rebuild_classes_table(result.total))
    if result.total.cache_audit.count:
        tables.print_table(console, rebuilds_table(result, top))
    tables.print_decision(console, advice.ttl_decision(result.total.ttl))
    hooks = hooks_table(result.total)
    if hooks is not None:
        tables.print_table(console, hooks)
    for note in _notes(result):
        tables.print_wrapped(console, note, "dim")


def make_console() -> Console:
    return tables.make_console(highlight=False, markup=False, emoji=False)


def rebuild_classes_table(scope: Scope) -> Table:
    """Rebuilds by class; the rows add up to the total (docs/REPORT.md#rebuild-audit)."""
    a = scope.cache_audit
    writes = scope.tokens.cache_write
    table = Table(
        title=f"Cache rebuilds ({a.count:,} of {a.compared:,} calls; "
        f"{a.rewritten_as_writes / writes if writes else 0:.0%} of cache writes)",
        title_justify="left",
    )
    table.add_column("class")
    for name in ("rebuilds", "rewritten", "extra cost"):
        table.add_column(name, **_NUM)  # type: ignore[arg-type]
    for kind in audit.CLASSES:
        t = a.by_class[kind]
        table.add_row(
            audit.LABELS[kind], f"{t.count:,}", f"{t.rewritten:,}", f"${t.extra_usd:,.2f}"
        )
    table.add_section()
    table.add_row("total", f"{a.count:,}", f"{a.rewritten:,}", f"${a.extra_usd:,.2f}", style="bold")
    if a.small_drops:
        table.add_row(
            "(smaller drops, not counted)",
            f"{a.small_drops:,}",
            f"{a.small_drop_tokens:,}",
            "",
            style="dim",
        )
    return table


def rebuilds_table(result: Report, top: int | None) -> Table:
    """The rebuilds, costliest first (`top` of them; None: all)."""
    rows = sorted(
        (r for s in result.sessions for r in s.scope.cache_audit.rebuilds),
        key=lambda r: (-(r.extra_usd or 0.0), r.session, r.line),
    )
    shown = rows if top is None else rows[:top]
    title = "Rebuilds" if top is None or len(rows) <= top else f"Costliest {len(shown)} rebuilds"
    table = Table(
        title=f"{title} (record line, idle gap, tokens written again)", title_justify="left"
    )
    table.add_column("session", overflow="fold", max_width=14)
    table.add_column("line", **_NUM)  # type: ignore[arg-type]
    table.add_column("class", overflow="fold", max_width=18)
    for name in ("gap", "rewritten", "extra"):
        table.add_column(name, **_NUM)  # type: ignore[arg-type]
    for r in shown:
        extra = "?" if r.extra_usd is None else f"${r.extra_usd:,.2f}"
        table.add_row(
            _shown(r.session)[:14],
            f"{r.line}",
            audit.LABELS[r.kind],
            _gap(r.gap),
            f"{r.rewritten:,}",
            extra,
        )
    return table


def _gap(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 120:
        return f"{seconds:.0f}s"
    return f"{seconds / 60:.0f}m" if seconds < 7200 else f"{seconds / 3600:.0f}h"


def hooks_table(scope: Scope) -> Table | None:
    """Hook runs the transcripts recorded, by command; None when there are none."""
    rows = hooktax.hook_rows(scope.hook_runs)
    if not rows:
        return None
    total = sum(r.total_ms for r in rows) or 1
    mine = sum(r.total_ms for r in rows if r.ccstate)
    table = Table(
        title=f"Hook tax ({total / 1000:,.1f} s recorded; ccstate's share {mine / total:.0%})",
        title_justify="left",
    )
    table.add_column("command", overflow="fold", max_width=34)
    for name in ("runs", "p50 ms", "p95 ms", "max ms", "total s"):
        table.add_column(name, **_NUM)  # type: ignore[arg-type]
    for r in rows:
        name = _shown(hooktax.short_name(r.command))
        table.add_row(
            name,
            f"{r.runs:,}",
            f"{r.p50_ms:,}",
            f"{r.p95_ms:,}",
            f"{r.max_ms:,}",
            f"{r.total_ms / 1000:,.1f}",
        )
    return table


def _token_columns(table: Table) -> None:
    for name in ("calls", "input", "cache write", "cache read", "output", "cost", "hit"):
        table.add_column(name, **_NUM)  # type: ignore[arg-type]


def _token_cells(t: Tokens) -> list[str]:
    cost = f"${t.cost:,.2f}" + ("*" if t.unpriced_calls else "")
    return [
        f"{t.calls:,}",
        f"{t.input:,}",
        f"{t.cache_write:,}",
        f"{t.cache_read:,}",
        f"{t.output:,}",
        cost,
        f"{t.hit_ratio:.0%}",
    ]


def _sessions_table(result: Report) -> Table:
    table = Table(title="Sessions (one API call per message.id)", title_justify="left")
    table.add_column("session", overflow="fold", max_width=40)
    table.add_column("started", no_wrap=True)
    projects = len({s.project for s in result.sessions}) > 1
    if projects:
        table.add_column("project", overflow="fold", max_width=30)
    _token_columns(table)
    for s in result.sessions:
        cells = [_shown(s.session_id), s.first[:16].replace("T", " ")]
        cells += [_shown(s.project)] * projects
        table.add_row(*cells, *_token_cells(s.scope.tokens))
    table.add_section()
    blank = [""] * (1 + projects)
    table.add_row("TOTAL", *blank, *_token_cells(result.total.tokens), style="bold")
    return table


def _models_table(scope: Scope) -> Table:
    table = Table(title="Cost per model", title_justify="left")
    table.add_column("model", no_wrap=True)
    _token_columns(table)
    for model, tokens in sorted(scope.by_model.items(), key=lambda kv: (-kv[1].cost, kv[0])):
        table.add_row(_shown(model), *_token_cells(tokens))
    if scope.subagents.calls:
        table.add_section()
        table.add_row("(of which subagents)", *_token_cells(scope.subagents), style="dim")
    return table


def _composition_table(scope: Scope) -> Table:
    table = Table(title="Context composition (est. tokens = chars / 4)", title_justify="left")
    table.add_column("what")
    table.add_column("count", **_NUM)  # type: ignore[arg-type]
    table.add_column("est. tokens", **_NUM)  # type: ignore[arg-type]
    table.add_column("share", **_NUM)  # type: ignore[arg-type]
    comp = scope.composition
    all_results = est_tokens(sum(comp.tool_chars.values())) or 1
    rows = report.composition_rows(comp)
    tools = [r for r in rows if r[0].startswith("tool: ")]
    if len(tools) > TOOLS_SHOWN:  # the rest (often many MCP tools) in one line
        rest = tools[TOOLS_SHOWN - 1 :]
        other = (f"tool: {len(rest)} others", sum(r[1] for r in rest), sum(r[2] for r in rest))
        rows = [*tools[: TOOLS_SHOWN - 1], other, *rows[len(tools) :]]
    for what, count, tokens in rows:
        if count or what.startswith(("ccstate", "Bash")):
            share = (
                f"{tokens / all_results:.1%}" if what.startswith(("tool", "Read", "Bash")) else ""
            )
            table.add_row(_shown(what), f"{count:,}", f"{tokens:,}", share)
    return table


def _rereads_table(scope: Scope, top: int) -> Table | None:
    rows = report.top_rereads(scope.composition, top)
    if not rows:
        return None
    table = Table(title="Top re-read files (same context, same epoch)", title_justify="left")
    table.add_column("file", overflow="fold")
    table.add_column("re-reads", **_NUM)  # type: ignore[arg-type]
    table.add_column("est. tokens", **_NUM)  # type: ignore[arg-type]
    for path, n, tokens in rows:
        table.add_row(_shown(path), f"{n:,}", f"{tokens:,}")
    return table


def _compactions_table(
    result: Report, fidelity: dict[tuple[str, int], dict[str, Any]] | None = None
) -> Table | None:
    """Each compaction: the context before and after, the summarising call (measured where
    Claude Code's totals hold it, else estimated), the rebuild's extra, what the later calls
    saved, the net; and what the summary kept of what ccstate asked (docs/COMPACTION.md)."""
    rows: list[list[Any]] = []
    for s in result.sessions:
        for index, cost in enumerate(s.scope.compactions):
            c = cost.compaction
            pre = f"{c.pre_tokens:,}" + ("~" if c.pre_estimated else "")
            after = f"{cost.carried_after:,}" if cost.carried_after is not None else "-"
            how = "" if cost.summariser_source == "measured" else " est."
            seen = (fidelity or {}).get((s.session_id, index))
            kept = f"{len(seen['kept'])}/{seen['asked']}" if seen and "asked" in seen else "-"
            rows.append(
                [
                    _shown(s.session_id),
                    c.timestamp[:16].replace("T", " "),
                    c.trigger,
                    f"{pre} -> {after}",
                    f"${cost.summariser_usd:,.2f}{how}",
                    f"${cost.rebuild_extra_usd:,.2f}",
                    f"{cost.following_calls:,}",
                    f"${cost.saved_usd:,.2f}",
                    f"${cost.net_usd:,.2f}",
                    kept,
                ]
            )
    if not rows:
        return None
    t = compaction_totals(result.total.compactions)
    checked = [f for f in (fidelity or {}).values() if isinstance(f.get("asked"), int)]
    kept_all = (
        f"; the summaries kept {sum(len(f.get('kept') or []) for f in checked):,} of "
        f"{sum(f['asked'] for f in checked):,} items ccstate asked for in {len(checked)}"
        if checked
        else ""
    )
    table = Table(
        title=f"Compactions ({t['count']:,}: summarising calls ${t['summariser_usd']:,.2f}, "
        f"{t['summariser_measured']} measured, {t['summariser_estimated']} estimated; rebuilds "
        f"${t['rebuild_extra_usd']:,.2f}; saved ${t['saved_usd']:,.2f}; net ${t['net_usd']:,.2f}"
        f"{kept_all})",
        title_justify="left",
    )
    table.add_column("session", overflow="fold", max_width=40)
    for name in ("time", "trigger"):
        table.add_column(name, no_wrap=True)
    for name in ("context before -> after", "summariser", "rebuild extra", "calls after"):
        table.add_column(name, **_NUM)  # type: ignore[arg-type]
    for name in ("saved", "net", "kept/asked"):
        table.add_column(name, **_NUM)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*row)
    return table


def _ccstate_table(scope: Scope) -> Table:
    f = report.ccstate_figures(scope)
    table = Table(title="ccstate: what it added and what it kept out", title_justify="left")
    table.add_column("what")
    for name in ("count", "est. tokens", "token-calls", "est. USD"):
        table.add_column(name, **_NUM)  # type: ignore[arg-type]
    table.add_row(
        "capsule injected",
        f"{f['injections']:,}",
        f"{f['injected_tokens']:,}",
        f"{f['injected_token_calls']:,}",
        "",
    )
    table.add_row(
        "notes added (diffs, ranges)",
        f"{f['notes']:,}",
        f"{f['note_tokens']:,}",
        f"{f['note_token_calls']:,}",
        "",
    )
    table.add_row("cost of what it added", "", "", "", _usd(-f["cost_usd"]))
    table.add_row("notices served", f"{f['notices']:,}", f"{f['notice_tokens']:,}", "", "")
    table.add_row(
        "output digests served (kept out)",
        f"{f['digests']:,}",
        f"{f['digest_tokens']:,} ({f['digest_saved_tokens']:,})",
        "",
        "",
    )
    table.add_row(
        "tokens kept out (net)",
        "",
        f"{f['saved_tokens']:,}",
        f"{f['saved_token_calls']:,}",
        _usd(f["savings_usd"]),
    )
    table.add_section()
    table.add_row("net", "", "", "", _usd(f["net_usd"]), style="bold")
    if f["claude_code_stubs"]:  # #23: Claude Code's own saving, shown apart, never ccstate's
        table.add_section()
        table.add_row(
            "Claude Code's own read dedupe (not ccstate)",
            f"{f['claude_code_stubs']:,}",
            f"{f['claude_code_saved_tokens']:,}",
            f"{f['claude_code_saved_token_calls']:,}",
            "",
        )
    return table


def _usd(value: float) -> str:
    return f"{'-' if value < 0 else ''}${abs(value):,.4f}"


def _notes(result: Report) -> list[str]:
    notes = []
    if result.folded_records:
        notes.append(
            f"{result.folded_records:,} assistant records folded into their API call (same "
            "message.id)."
        )
    if result.cross_file_duplicates:
        notes.append(f"{result.cross_file_duplicates:,} API calls seen in two files counted once.")
    if result.skipped_lines:
        notes.append(
            f"{result.skipped_lines:,} unreadable line(s) skipped (e.g. a partial last line)."
        )
    if result.unpriced_models:
        notes.append(
            "* no price for: "
            + ", ".join(result.unpriced_models)
            + "; add them with report.pricing (docs/REPORT.md)."
        )
    return notes
