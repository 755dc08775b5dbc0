"""`ccstate replay`: what the read ledger would have kept out of recorded sessions."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ccstate.cli import cli, echo_json, handle_errors, project_option, resolve_project
from ccstate.config import load_config
from ccstate.ledger import core as ledger
from ccstate.ledger import replay


@cli.command(name="replay")
@click.argument(
    "transcripts", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path)
)
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@handle_errors
def replay_cmd(transcripts: tuple[Path, ...], project: Path | None, as_json: bool) -> None:
    """Run the read ledger's decisions over transcripts and report what it would save.

    Per transcript and in total: Reads; replacements by kind (identical, unseen range, diff);
    characters and tokens kept out; token-turns (saved tokens x later API calls in the same
    context and epoch); Bash re-prints of lines already held (counted, never replaced); and a
    safety check that every replacement relies only on text its context received in the
    current epoch. Uses the project's dedupe.* settings (dedupe.enabled aside). A directory
    stands for the *.jsonl files under it. Exits 1 when the safety check fails.

    \b
    Example:
        ccstate replay ~/.claude/projects/-home-me-app/
        ccstate replay session.jsonl --json
    """
    cfg = ledger.Options.from_config(load_config(resolve_project(project)))
    opts = ledger.Options(
        True, cfg.identical, cfg.unseen_ranges, cfg.diff, cfg.diff_max_ratio, cfg.min_saved_chars
    )
    reports, total = replay.replay(transcripts, opts)
    if as_json:
        echo_json(
            {
                "files": [{"path": str(r.path), **r.totals.as_json()} for r in reports],
                "total": total.as_json(),
            }
        )
    else:
        _render(reports, total)
    sys.exit(1 if total.violations else 0)


COLUMNS = (
    "reads",
    "identical",
    "unseen",
    "diff",
    "bash",
    "chars",
    "tokens",
    "token-turns",
    "unsafe",
)


def _render(reports: list[replay.FileReport], total: replay.Totals) -> None:
    from rich.table import Table
    from rich.text import Text

    from ccstate.cli import tables

    table = Table(title="ccstate replay: the read ledger over recorded sessions")
    table.add_column("transcript", overflow="fold")
    for name in COLUMNS:
        table.add_column(name, justify="right", no_wrap=True)
    for report in reports:
        table.add_row(Text(report.path.name), *_cells(report.totals))
    table.add_row("TOTAL", *_cells(total), style="bold")
    console = tables.make_console()
    tables.print_table(console, table)
    share = total.chars_saved / total.read_chars if total.read_chars else 0.0
    unit = "tiktoken cl100k_base" if total.tokens_exact else "estimated as chars/4"
    console.print(
        f"{total.reads} Reads, {total.rereads} of them re-reads in the same context and epoch, "
        f"{sum(total.replaced.values())} replaced; "
        f"{total.chars_saved:,} of {total.read_chars:,} Read characters kept out ({share:.1%}); "
        f"tokens: {unit}."
    )
    if total.violations:
        console.print(f"[bold red]safety check FAILED: {len(total.violations)}[/]")
        for line in total.violations[:20]:
            console.print(Text(f"  {line}"))
    else:
        console.print(
            "[green]safety check passed[/]: every replacement relies only on text its context "
            "received in the current epoch."
        )


def _cells(t: replay.Totals) -> list[str]:
    return [
        f"{t.reads:,}",
        f"{t.replaced['identical']:,}",
        f"{t.replaced['unseen']:,}",
        f"{t.replaced['diff']:,}",
        f"{t.bash_reprints:,}",
        f"{t.chars_saved:,}",
        f"{t.tokens_saved:,}",
        f"{t.token_turns_saved:,}",
        f"{len(t.violations):,}",
    ]
