"""`ccstate report`: token accounting over Claude Code transcripts."""

from __future__ import annotations

import csv
import functools
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from ccstate.cli import (
    InputError,
    cli,
    handle_errors,
    project_option,
    request_fast_exit,
    resolve_project,
)


def _pricing_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """Callback: --pricing names a file that exists (a miss must blame the flag, not config)."""
    if value is None or value.is_file():
        return value
    what = "is a directory" if value.is_dir() else "does not exist"
    raise InputError(
        f"--pricing: {value} {what}; pass a pricing JSON file (format: docs/REPORT.md#cost)"
    )


@cli.command(name="report")
@click.argument("transcripts", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--session", "session_id", help="Only this session (its transcript and subagents).")
@click.option("--all", "all_projects", is_flag=True, help="Every project under ~/.claude/projects.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV: one row per session, then TOTAL.")
@click.option(
    "--pricing",
    "pricing_file",
    type=click.Path(path_type=Path),
    callback=_pricing_file,
    help="Pricing JSON over the built-in table (default: report.pricing in config).",
)
@click.option("--top", default=10, show_default=True, help="Re-read files and rebuilds to list.")
@click.option(
    "--rebuilds",
    is_flag=True,
    help="Only the rebuild audit: every rebuild (also with --csv/--json).",
)
@click.option(
    "--advice",
    is_flag=True,
    help="Only the advice: cache TTL, and compacting earlier (a replay; --json: the figures).",
)
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write a self-contained HTML report (charts, sortable sessions) to this file.",
)
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: auto).")
@click.option("--no-cache", is_flag=True, help="Read every transcript again (no scan cache).")
@handle_errors
def report_cmd(
    transcripts: tuple[Path, ...],
    session_id: str | None,
    all_projects: bool,
    project: Path | None,
    as_json: bool,
    as_csv: bool,
    pricing_file: Path | None,
    top: int,
    rebuilds: bool,
    advice: bool,
    html_file: Path | None,
    jobs: int | None,
    no_cache: bool,
) -> None:
    """Tokens, cost, cache hits and context composition of Claude Code sessions.

    Reads transcripts (any size, any Claude Code version, subagents included), counts each
    API response once by message.id, prices it with a dated table, and shows what filled the
    context: tool results by tool, re-reads, Bash re-prints, compactions and what ccstate
    itself added and saved; every cache rebuild with its cause and cost, what 5-minute vs
    1-hour cache writes would have cost (and the setting to change), and the time hooks took.
    Without arguments: this project's sessions. Scans of unchanged files are cached
    (~/.cache/ccstate/report-scans.jsonl; --no-cache to bypass).

    \b
    Example:
        ccstate report                      # this project's sessions
        ccstate report --all --json         # every project, as JSON
        ccstate report ~/.claude/projects/-home-me-app/1234.jsonl --csv
        ccstate report --all --rebuilds --csv   # one row per cache rebuild
        ccstate report --all --advice       # which cache TTL pays for you
        ccstate report --all --html report.html
    """
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    if rebuilds and advice:
        raise click.UsageError("choose one of --rebuilds and --advice")
    if advice and as_csv:
        raise click.UsageError("--advice prints tables (or --json), not CSV")
    if html_file is not None and (as_json or as_csv or rebuilds or advice):
        raise click.UsageError(
            "--html writes a page: use it without --json, --csv, --rebuilds, --advice"
        )
    from ccstate.report import scan

    root = resolve_project(project)
    files = scan.select_transcripts(transcripts, session_id, all_projects, root, os.environ)
    quiet = as_json or as_csv or advice or html_file is not None
    bar = functools.partial(_Progress, enabled=not quiet)
    from ccstate.report import pricing
    from ccstate.report import summary as report  # here: every ccstate command loads cli/
    from ccstate.report.builder import build_report

    table = pricing.load_pricing(_pricing_path(pricing_file, root))
    if html_file is None:  # each session built by the worker that scans it
        result = scan.report_all(files, jobs, table, use_cache=not no_cache, progress=bar)
    else:  # the charts need every scan
        scans = scan.scan_all(files, jobs, use_cache=not no_cache, progress=bar)
        result = build_report(scans, table)
    fidelity = _fidelity(result, root)
    if html_file is not None:
        _write_html(result, html_file)
    elif rebuilds or advice:
        _audit_output(result, rebuilds, as_json, as_csv)
    elif as_json:
        click.echo(_dumps(_with_fidelity(report.report_json(result, top), fidelity)))
    elif as_csv:
        csv.writer(sys.stdout, lineterminator="\n").writerows(report.csv_rows(result))
    else:
        from ccstate.cli import report_render

        report_render.render(result, top, fidelity=fidelity)
    request_fast_exit()


def _fidelity(result: Any, root: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """(session, compaction index) -> ccstate's record of what that compaction's summary kept
    of what PreCompact asked (#26), from this project's state; {} where it has none."""
    from ccstate import paths
    from ccstate.compaction import store as compaction_store
    from ccstate.report.audit import seconds_between

    records = compaction_store.all_records(paths.state_dir_str(str(root)))
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for s in result.sessions:
        entries = (records.get(s.session_id) or {}).get("compactions") or []
        if not entries or not s.scope.compactions:
            continue
        times = [_epoch_of(c.compaction.timestamp, seconds_between) for c in s.scope.compactions]
        for index, found in enumerate(compaction_store.match(times, entries)):
            if found is not None:
                out[(s.session_id, index)] = entries[found]
    return out


def _epoch_of(stamp: str, seconds_between: Any) -> float | None:
    found = seconds_between("1970-01-01T00:00:00Z", stamp) if stamp else None
    return float(found) if found is not None else None


def _with_fidelity(data: dict[str, Any], fidelity: dict[tuple[str, int], dict[str, Any]]) -> Any:
    """Each compaction's `fidelity` (kept/asked, lost; null when ccstate has no record of it)
    and the total's."""
    total = {"checked": 0, "asked": 0, "kept": 0}
    for session in data["sessions"]:
        sums = {"checked": 0, "asked": 0, "kept": 0}
        for index, entry in enumerate(session["compactions"]):
            found = fidelity.get((session["session_id"], index))
            if found is None or not isinstance(found.get("asked"), int):
                entry["fidelity"] = None
                continue
            entry["fidelity"] = {
                "asked": found["asked"],
                "kept": len(found.get("kept") or []),
                "lost": list(found.get("lost") or []),
                "in_capsule": list(found.get("in_capsule") or []),
                "reminder": found.get("reminder") or None,
            }
            for key, value in (("checked", 1), ("asked", found["asked"])):
                sums[key] += value
            sums["kept"] += entry["fidelity"]["kept"]
        session["compaction_fidelity"] = sums
        for key, value in sums.items():
            total[key] += value
    data["total"]["compaction_fidelity"] = total
    return data


def _write_html(result: Any, target: Path) -> None:
    from ccstate import store
    from ccstate.report import page

    try:
        store.atomic_write_text(target, page.render_page(result))
    except OSError as exc:
        message = f"{target}: cannot write the HTML report ({exc.strerror})"
        raise click.ClickException(message) from exc
    click.echo(f"wrote {target}")


def _audit_output(result: Any, rebuilds: bool, as_json: bool, as_csv: bool) -> None:
    """`--rebuilds` (every rebuild) or `--advice` (a table per decision), as text, JSON or CSV."""
    from ccstate.report import advice, audit, compact_advice
    from ccstate.report import summary as report

    rows = [r for s in result.sessions for r in s.scope.cache_audit.rebuilds]
    early = None if rebuilds else report.compaction_advice(result)
    if as_json:
        data = audit.audit_json(result.total.cache_audit, with_rows=False)
        data["rebuilds"] = [audit.rebuild_json(r) | {"session_id": r.session} for r in rows]
        if early is not None:
            data = advice.advice_json(result.total.ttl)
            data["compaction"] = compact_advice.advice_json(early)
        click.echo(_dumps(data))
    elif as_csv:
        csv.writer(sys.stdout, lineterminator="\n").writerows(audit.csv_rows(rows))
    elif rebuilds:
        from ccstate.cli import report_render, tables

        console = report_render.make_console()
        tables.print_table(console, report_render.rebuild_classes_table(result.total))
        tables.print_table(console, report_render.rebuilds_table(result, None))
    else:
        assert early is not None
        from ccstate.cli import report_render, tables

        console = report_render.make_console()
        tables.print_decision(console, advice.ttl_decision(result.total.ttl))
        console.print()
        tables.print_decision(console, compact_advice.decision(early))


def _dumps(data: Any) -> bytes:
    """One line of JSON, keys sorted: orjson's encoder (~5x json's on a big report)."""
    try:
        import orjson
    except ImportError:  # the same document, slower
        return json.dumps(data, sort_keys=True).encode()
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def _pricing_path(option: Path | None, root: Path) -> Path | None:
    if option is not None:
        return option
    from ccstate import config

    configured = str(config.load_cached(root).get("report.pricing") or "")
    return (root / configured) if configured else None


class _Progress:
    """A rich progress bar over bytes read, on stderr, only for a terminal and many files."""

    def __init__(self, count: int, size: int, *, enabled: bool) -> None:
        self.enabled = enabled and count > 1 and sys.stderr.isatty()
        self.size = size
        self._bar: Any = None
        self._task: Any = None

    def start(self) -> None:
        if not self.enabled:
            return
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

        self._bar = Progress(
            TextColumn("reading transcripts"),
            BarColumn(),
            DownloadColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._bar.start()
        self._task = self._bar.add_task("read", total=self.size)

    def advance(self, size: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, size)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
