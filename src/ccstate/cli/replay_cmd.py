"""`ccstate replay`: what the read ledger, shell-read notices and tool-output digests would
have kept out of recorded sessions."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ccstate.cli import cli, echo_json, handle_errors, project_option, resolve_project
from ccstate.config import load_config
from ccstate.ledger import core as ledger
from ccstate.ledger import replay
from ccstate.outputs import core as outputs
from ccstate.outputs import replay as outputs_replay


@cli.command(name="replay")
@click.argument(
    "transcripts", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path)
)
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: auto).")
@handle_errors
def replay_cmd(
    transcripts: tuple[Path, ...], project: Path | None, as_json: bool, jobs: int | None
) -> None:
    """Run the read ledger's and the digests' decisions over transcripts: what they would save.

    Per transcript and in total: Reads; replacements by kind (identical, unseen range, diff);
    characters and tokens kept out; token-turns (saved tokens x later API calls in the same
    context and epoch); shell reads (`cat F`, `sed -n 'a,bp' F`...) and the notices their
    repeats would get. Per tool and in total: what digests of bulky Bash, Grep, Glob,
    WebFetch and MCP results keep out. Two safety checks: every replacement relies only on
    text its context received in the current epoch, and every failure line of a digested
    output is in its digest. Uses the project's dedupe.* and outputs.* settings (the
    `enabled` switches aside). A directory stands for the *.jsonl files under it; big inputs
    are replayed by a process per CPU (files are independent walks). Exits 1 when a safety
    check fails.

    \b
    Example:
        ccstate replay ~/.claude/projects/-home-me-app/
        ccstate replay session.jsonl --json
    """
    cfg = ledger.Options.from_config(load_config(resolve_project(project)))
    opts = ledger.Options(
        True, cfg.identical, cfg.unseen_ranges, cfg.diff, cfg.diff_max_ratio, cfg.min_saved_chars
    )
    config = load_config(resolve_project(project))
    digest_opts = outputs.Options.from_config(config)
    digest_opts.enabled = True
    tally = outputs_replay.DigestTally(digest_opts)
    reports, total = replay.replay(transcripts, opts, tally, jobs)
    digests = tally.totals
    if as_json:
        echo_json(
            {
                "files": [{"path": str(r.path), **r.totals.as_json()} for r in reports],
                "total": total.as_json(),
                "digests": digests.as_json(),
            }
        )
    else:
        _render(reports, total)
        _render_digests(total, digests)
    sys.exit(1 if total.violations or digests.lost else 0)


COLUMNS = (
    "reads",
    "identical",
    "unseen",
    "diff",
    "shell",
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
    _print_check(
        console,
        "safety check",
        total.violations,
        "every replacement relies only on text its context received in the current epoch.",
    )


def _cells(t: replay.Totals) -> list[str]:
    return [
        f"{t.reads:,}",
        f"{t.replaced['identical']:,}",
        f"{t.replaced['unseen']:,}",
        f"{t.replaced['diff']:,}",
        f"{t.shell_notices:,}",
        f"{t.chars_saved:,}",
        f"{t.tokens_saved:,}",
        f"{t.token_turns_saved:,}",
        f"{len(t.violations):,}",
    ]


DIGEST_COLUMNS = ("results", "digests", "chars kept out", "tokens", "token-turns")


def _render_digests(total: replay.Totals, digests: outputs_replay.DigestTotals) -> None:
    from rich.table import Table
    from rich.text import Text

    from ccstate.cli import tables

    table = Table(title="tool-output digests (over outputs.min_chars, errors excluded)")
    table.add_column("tool")
    for name in DIGEST_COLUMNS:
        table.add_column(name, justify="right", no_wrap=True)
    for name, one in sorted(digests.tools.items()):
        table.add_row(Text(name), *_digest_cells(one))
    table.add_row("TOTAL", *_digest_cells(digests.total), style="bold")
    console = tables.make_console()
    tables.print_table(console, table)
    kept_out = digests.total.token_turns_saved + total.shell_token_turns_saved
    ratio = kept_out / total.token_turns_saved if total.token_turns_saved else 0.0
    console.print(
        f"{total.shell_reads} shell reads, {total.shell_notices} repeats answered with a notice "
        f"({total.shell_tokens_saved:,} tokens, {total.shell_token_turns_saved:,} token-turns "
        f"kept out). Digests and shell-read notices keep out {kept_out:,} token-turns: "
        f"{ratio:.1f}x the read ledger's {total.token_turns_saved:,}."
    )
    _print_check(
        console,
        "digest safety check",
        digests.lost,
        f"all {digests.failure_lines:,} failure and error lines of the digested outputs are in "
        "their digests.",
    )


def _print_check(console: Any, name: str, problems: list[str], passed: str) -> None:
    from rich.text import Text

    if problems:
        console.print(f"[bold red]{name} FAILED: {len(problems)}[/]")
        for line in problems[:20]:
            console.print(Text(f"  {line}"))
    else:
        console.print(f"[green]{name} passed[/]: {passed}")


def _digest_cells(t: outputs_replay.ToolTotals) -> list[str]:
    return [
        f"{t.results:,}",
        f"{t.digests:,}",
        f"{t.chars_saved:,}",
        f"{t.tokens_saved:,}",
        f"{t.token_turns_saved:,}",
    ]
