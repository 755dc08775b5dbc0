"""`ccstate report --html FILE`: one self-contained page (pure; standard library only).

No network and no chart library: the charts are SVG written here, the style inline, and the
only script (a few lines) sorts the session table. Per session, the main thread's context at
each API call, stacked by source (timeline.py), with markers for compactions and for cache
rebuilds coloured by class, and the session's cumulative cost; a totals section with cost by
model and by rebuild class. Every chart element carries `data-*` attributes (series, points,
class) that the browser test reads. Definitions: docs/REPORT.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ccstate.report import audit, timeline
from ccstate.report.pricing import PricingTable, is_long, tokens_cost
from ccstate.report.summary import Report, SessionReport
from ccstate.report.usage import EV_COMPACTION, EV_MICROCOMPACT, MAIN, Turn

WIDTH, HEIGHT = 960, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 70, 14, 30
SOURCE_COLOURS = {
    "system": "#b8bcc6",
    "claude_md": "#c9b458",
    "conversation": "#5b8def",
    "ccstate": "#2ca58d",
}
TOOL_COLOURS = ("#f28e2b", "#e15759", "#af7aa1", "#9c755f", "#76b7b2", "#edc948")
CLASS_COLOURS = {
    "ttl_expiry": "#d62728",
    "model_switch": "#9467bd",
    "compaction": "#ff7f0e",
    "new_context": "#17becf",
    "prefix_new_turn": "#8c564b",
    "prefix_mid_turn": "#e377c2",
    "unexplained": "#333333",
}
SOURCE_LABELS = {
    "system": "system prompt, tools, rest",
    "claude_md": "CLAUDE.md",
    "conversation": "conversation",
    "ccstate": "ccstate capsule/notes",
    "tool:other": "tool results: other tools",
}
CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1040px;padding:16px;color:#222}
h1{font-size:22px}h2{font-size:18px;margin-top:32px}h3{font-size:15px;margin:18px 0 4px}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;
padding:8px 12px;min-width:140px}.card b{display:block;font-size:20px}
table{border-collapse:collapse;width:100%}th,td{padding:3px 6px;border-bottom:1px solid #eee;
text-align:right}th:first-child,td:first-child{text-align:left}th{cursor:pointer;
background:#f6f6f6;position:sticky;top:0}th[data-dir=asc]:after{content:" \\25B2"}
th[data-dir=desc]:after{content:" \\25BC"}.legend span{display:inline-block;margin-right:12px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
svg text{font:11px system-ui,sans-serif;fill:#555}.muted{color:#777}
p.advice{background:#f6f8fb;border-left:3px solid #5b8def;padding:8px 12px}
"""
SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, i) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var asc = th.getAttribute("data-dir") !== "asc";
      rows.sort(function (a, b) {
        var x = a.cells[i].getAttribute("data-v"), y = b.cells[i].getAttribute("data-v");
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (isNaN(nx) || isNaN(ny)) ? String(x).localeCompare(String(y)) : nx - ny;
        return asc ? c : -c;
      });
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("data-dir"); });
      th.setAttribute("data-dir", asc ? "asc" : "desc");
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def render_page(result: Report) -> str:
    """The whole page."""
    t = result.total
    charts = [c for s in result.sessions if (c := session_chart(s, result.pricing))]
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        '<meta name=viewport content="width=device-width,initial-scale=1">',
        f"<title>ccstate report: {len(result.sessions)} sessions</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>ccstate report</h1>",
        f"<p class=muted>{len(result.sessions):,} sessions, {result.files:,} files, "
        f"{t.tokens.calls:,} API calls; prices of {escape(result.pricing.date)}. "
        "Definitions: docs/REPORT.md.</p>",
        _cards(result),
        f"<p class=advice>{escape(_advice(result))}</p>",
        "<h2 id=totals>Totals</h2>",
        _bars("Cost by model", _model_costs(result), "model"),
        _bars("Extra cost of cache rebuilds by class", _class_costs(result), "class"),
        "<h2 id=sessions>Sessions</h2>",
        _sessions_table(result),
        "<h2 id=charts>Context per API call</h2>",
        "<p class=muted>Main thread of each session: estimated tokens by source (chars / 4; the "
        "rest of the prompt the API reported is system prompt, tools and reminders), dashed "
        "lines at compactions, dots at cache rebuilds (colour: class), the line: cumulative "
        "cost of the session (right axis).</p>",
        _class_legend(),
        *charts,
        f"<script>{SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts)


def _advice(result: Report) -> str:
    from ccstate.report import advice

    return advice.advice_text(result.total.ttl)


def _cards(result: Report) -> str:
    t = result.total
    a = t.cache_audit
    cards = [
        ("cost", f"${t.tokens.cost:,.2f}"),
        ("API calls", f"{t.tokens.calls:,}"),
        ("cache hit ratio", f"{t.tokens.hit_ratio:.0%}"),
        ("cache rebuilds", f"{a.count:,}"),
        ("their extra cost", f"${a.extra_usd:,.2f}"),
        ("compactions", f"{len(t.compactions):,}"),
    ]
    inner = "".join(f"<div class=card>{escape(k)}<b>{escape(v)}</b></div>" for k, v in cards)
    return f"<div class=cards>{inner}</div>"


def _model_costs(result: Report) -> list[tuple[str, float]]:
    models = result.total.by_model.items()
    return sorted(((m, tok.cost) for m, tok in models), key=lambda kv: (-kv[1], kv[0]))


def _class_costs(result: Report) -> list[tuple[str, float]]:
    by_class = result.total.cache_audit.by_class
    return [(audit.LABELS[k], by_class[k].extra_usd) for k in audit.CLASSES]


def _bars(title: str, rows: Sequence[tuple[str, float]], kind: str) -> str:
    """A horizontal bar chart (SVG): one bar per row."""
    label_w, bar_w, row_h = 250, 560, 22
    height = row_h * len(rows) + 8
    top = max((v for _, v in rows), default=0.0) or 1.0
    out = [
        f"<h3>{escape(title)}</h3>",
        f'<svg class="bars" data-kind="{kind}" data-bars="{len(rows)}" width="{WIDTH}" '
        f'height="{height}" role="img" aria-label="{escape(title)}">',
    ]
    for i, (name, value) in enumerate(rows):
        y = 4 + i * row_h
        w = max(0.0, value / top * bar_w)
        colour = CLASS_COLOURS.get(_class_key(name), "#5b8def")
        out.append(
            f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end">{escape(name)}</text>'
            f'<rect class="bar" data-name="{escape(name)}" x="{label_w}" y="{y + 2}" '
            f'width="{w:.1f}" height="{row_h - 6}" fill="{colour}"><title>{escape(name)}: '
            f"${value:,.2f}</title></rect>"
            f'<text x="{label_w + w + 6:.1f}" y="{y + 14}">${value:,.2f}</text>'
        )
    out.append("</svg>")
    return "".join(out)


def _class_key(label: str) -> str:
    return next((k for k, v in audit.LABELS.items() if v == label), "")


def _sessions_table(result: Report) -> str:
    head = ["session", "project", "started", "calls", "cost", "hit", "rebuilds", "rebuild $"]
    head.append("compactions")
    rows = []
    for s in result.sessions:
        t, a = s.scope.tokens, s.scope.cache_audit
        cells: list[tuple[Any, str]] = [
            (s.session_id, f'<a href="#s-{escape(s.session_id)}">{escape(s.session_id)}</a>'),
            (s.project, escape(s.project)),
            (s.first, escape(s.first[:16].replace("T", " "))),
            (t.calls, f"{t.calls:,}"),
            (round(t.cost, 6), f"${t.cost:,.2f}"),
            (round(t.hit_ratio, 4), f"{t.hit_ratio:.0%}"),
            (a.count, f"{a.count:,}"),
            (round(a.extra_usd, 6), f"${a.extra_usd:,.2f}"),
            (len(s.scope.compactions), f"{len(s.scope.compactions):,}"),
        ]
        tds = "".join(f'<td data-v="{escape(str(v))}">{shown}</td>' for v, shown in cells)
        rows.append(f"<tr>{tds}</tr>")
    ths = "".join(f"<th>{escape(h)}</th>" for h in head)
    return (
        f'<table class="sortable" id="session-table"><thead><tr>{ths}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _class_legend() -> str:
    items = "".join(
        f'<span><i style="background:{CLASS_COLOURS[k]};border-radius:50%"></i>'
        f"{escape(audit.LABELS[k])}</span>"
        for k in audit.CLASSES
    )
    return f"<p class=legend>rebuilds: {items}</p>"


# --------------------------------------------------------------------------- session charts


def main_calls(session: SessionReport) -> list[tuple[Turn, list[list[Any]]]]:
    """The main thread's calls of a session, in order, with their context-size deltas."""
    out = []
    for scan in session.scans:
        for turn in scan.turns.values():
            if turn.thread == MAIN and turn.message_id in session.counted:
                out.append((turn, scan.sizes.get(turn.message_id, [])))
    return out


def session_chart(session: SessionReport, pricing: PricingTable) -> str:
    """The session's chart, or "" when its main thread made fewer than two calls."""
    calls = main_calls(session)
    if len(calls) < 2:
        return ""
    points = timeline.series(_with_replies(calls))
    sources = timeline.chart_sources(points)
    rows = timeline.stacked(points, sources)
    cost = _cumulative_cost(session, [t for t, _ in calls], pricing)
    rebuilds = {(r.line, r.timestamp): r for r in session.scope.cache_audit.rebuilds}
    n = len(points)
    peak = max(p.prompt for p in points) or 1
    x_of = lambda i: LEFT + (WIDTH - LEFT - RIGHT) * i / (n - 1)  # noqa: E731
    y_of = lambda v: TOP + (HEIGHT - TOP - BOTTOM) * (1 - v / peak)  # noqa: E731
    svg = [
        f'<svg class="chart" data-session="{escape(session.session_id)}" '
        f'data-series="{len(sources)}" data-points="{n}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="context per API call">',
        _axes(peak, n, cost[-1] if cost else 0.0),
    ]
    base = [0] * n
    for source, values, colour in zip(sources, rows, _colours(sources), strict=True):
        top = [b + v for b, v in zip(base, values, strict=True)]
        line = " ".join(f"{x_of(i):.1f},{y_of(v):.1f}" for i, v in enumerate(top))
        back = " ".join(f"{x_of(i):.1f},{y_of(v):.1f}" for i, v in reversed(list(enumerate(base))))
        svg.append(
            f'<polygon class="area" data-source="{escape(source)}" data-points="{n}" '
            f'points="{line} {back}" fill="{colour}" fill-opacity="0.85">'
            f"<title>{escape(_source_label(source))}</title></polygon>"
        )
        base = top
    svg += _compaction_marks(calls, x_of)
    svg += _rebuild_marks(calls, rebuilds, points, x_of, y_of)
    svg.append(_cost_line(cost, x_of))
    svg.append("</svg>")
    legend = "".join(
        f'<span><i style="background:{c}"></i>{escape(_source_label(s))}</span>'
        for s, c in zip(sources, _colours(sources), strict=True)
    )
    t = session.scope.tokens
    title = (
        f"{session.session_id} <span class=muted>({escape(session.project)}, "
        f"{len(calls):,} main-thread calls, ${t.cost:,.2f})</span>"
    )
    return (
        f'<section id="s-{escape(session.session_id)}"><h3>{title}</h3>'
        f"<p class=legend>{legend}</p>{''.join(svg)}</section>"
    )


def _with_replies(
    calls: Sequence[tuple[Turn, list[list[Any]]]],
) -> list[tuple[int, list[list[Any]], int]]:
    """Each call's prompt and size deltas, with the output of the earlier calls of its epoch."""
    out, replies = [], 0
    for turn, sizes in calls:
        if turn.events & EV_COMPACTION:
            replies = 0
        out.append((_prompt(turn), sizes, replies))
        replies += turn.output
    return out


def _prompt(turn: Turn) -> int:
    return turn.input + turn.cache_read + turn.cache_write_5m + turn.cache_write_1h


def _colours(sources: Sequence[str]) -> list[str]:
    out, tools = [], 0
    for source in sources:
        if source in SOURCE_COLOURS:
            out.append(SOURCE_COLOURS[source])
        else:
            out.append(TOOL_COLOURS[tools % len(TOOL_COLOURS)])
            tools += 1
    return out


def _source_label(source: str) -> str:
    if source in SOURCE_LABELS:
        return SOURCE_LABELS[source]
    return "tool results: " + source.removeprefix("tool:")


def _axes(peak: int, n: int, cost: float) -> str:
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    return (
        f'<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#999"/>'
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#999"/>'
        f'<text x="{LEFT - 6}" y="{TOP + 10}" text-anchor="end">{peak:,}</text>'
        f'<text x="{LEFT - 6}" y="{bottom}" text-anchor="end">0</text>'
        f'<text x="{LEFT}" y="{HEIGHT - 8}">call 1</text>'
        f'<text x="{right}" y="{HEIGHT - 8}" text-anchor="end">call {n}</text>'
        f'<text x="{right + 6}" y="{TOP + 10}">${cost:,.2f}</text>'
        f'<text x="{right + 6}" y="{bottom}">$0</text>'
    )


def _compaction_marks(calls: Sequence[tuple[Turn, Any]], x_of: Any) -> list[str]:
    out = []
    for i, (turn, _) in enumerate(calls):
        if turn.events & (EV_COMPACTION | EV_MICROCOMPACT):
            x = x_of(i)
            kind = "compaction" if turn.events & EV_COMPACTION else "microcompaction"
            out.append(
                f'<line class="compaction" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" '
                f'y2="{HEIGHT - BOTTOM}" stroke="#ff7f0e" stroke-dasharray="4 3">'
                f"<title>{kind} before call {i + 1}</title></line>"
            )
    return out


def _rebuild_marks(
    calls: Sequence[tuple[Turn, Any]],
    rebuilds: dict[tuple[int, str], audit.Rebuild],
    points: Sequence[timeline.Point],
    x_of: Any,
    y_of: Any,
) -> list[str]:
    out = []
    for i, (turn, _) in enumerate(calls):
        r = rebuilds.get((turn.line, turn.timestamp))
        if r is None or r.thread != MAIN:
            continue
        extra = "?" if r.extra_usd is None else f"${r.extra_usd:,.2f}"
        gap = "?" if r.gap is None else f"{r.gap:,.0f} s"
        out.append(
            f'<circle class="marker" data-class="{r.kind}" cx="{x_of(i):.1f}" '
            f'cy="{y_of(points[i].prompt):.1f}" r="5" fill="{CLASS_COLOURS[r.kind]}" '
            f'stroke="#fff"><title>call {i + 1}: {escape(audit.LABELS[r.kind])}; gap {gap}; '
            f"{r.rewritten:,} tokens written again, {extra} extra (line {r.line})</title></circle>"
        )
    return out


def _cumulative_cost(
    session: SessionReport, main: Sequence[Turn], pricing: PricingTable
) -> list[float]:
    """The session's cost so far (all its calls, subagents too) at each main-thread call."""
    every = sorted(
        (
            t
            for scan in session.scans
            for t in scan.turns.values()
            if t.message_id in session.counted
        ),
        key=lambda t: t.timestamp,
    )
    out, total, k = [], 0.0, 0
    for turn in main:
        while k < len(every) and every[k].timestamp <= turn.timestamp:
            total += _cost(every[k], pricing)
            k += 1
        out.append(total)
    return out


def _cost(turn: Turn, pricing: PricingTable) -> float:
    card = pricing.card(turn.model, turn.timestamp)
    if card is None:
        return 0.0
    tokens = (turn.input, turn.cache_write_5m, turn.cache_write_1h, turn.cache_read, turn.output)
    return tokens_cost(card, is_long(card, _prompt(turn)), turn.fast, tokens)


def _cost_line(cost: Sequence[float], x_of: Any) -> str:
    top = cost[-1] if cost and cost[-1] > 0 else 1.0
    height = HEIGHT - TOP - BOTTOM
    line = " ".join(f"{x_of(i):.1f},{TOP + height * (1 - c / top):.1f}" for i, c in enumerate(cost))
    return (
        f'<polyline class="cost" data-points="{len(cost)}" points="{line}" fill="none" '
        f'stroke="#222" stroke-width="1.5"><title>cumulative cost</title></polyline>'
    )
