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
    the context's own Writes and Edits after which the ledger holds the file; characters and
    tokens kept out; token-turns (saved tokens x later API calls in the same context and
    epoch); shell reads (`cat F`, `sed -n 'a,bp' F`...) and the notices their repeats would
    get; where the replaced text came from (Reads, or the context's own writes); Claude
    Code's own "file unchanged" answers (its saving, not ccstate's). Per tool and in total:
    what digests of bulky Bash, Grep, Glob, WebFetch and MCP results keep out. Then the share
    of all tool-result token-turns ccstate keeps out (every result's tokens x the later calls
    of its context and epoch). Two safety checks: every replacement relies only on text its
    context received or wrote in the current epoch, and every failure line of a digested
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
    kept, share = replay.kept_out_share(total, digests.total.token_turns_saved)
    if as_json:
        echo_json(
            {
                "files": [{"path": str(r.path), **r.totals.as_json()} for r in reports],
                "total": total.as_json(),
                "digests": digests.as_json(),
                "kept_out": {
                    "token_turns": kept,
                    "result_token_turns": total.result_token_turns,
                    "share": round(share, 6),
                },
            }
        )
    else:
        _render(reports, total)
        _render_digests(total, digests)
        _render_share(total, digests, kept, share)
    sys.exit(1 if total.violations or digests.lost else 0)


COLUMNS = (
    "reads",
    "identical",
    "unseen",
    "diff",
    "shell",
    "held",  # the writes after which the ledger holds the file, of all writes
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
    console.print(_sources_line(total))
    cc = total.cc_dedupe
    console.print(
        f'Claude Code\'s own read dedupe: {cc:,} "file unchanged" answer'
        f"{'' if cc == 1 else 's'} to repeated Reads, {total.cc_dedupe_tokens:,} tokens and "
        f"{total.cc_dedupe_token_turns:,} token-turns kept out by Claude Code (not counted as "
        "ccstate's)."
    )
    _print_check(
        console,
        "safety check",
        total.violations,
        "every replacement relies only on text its context received or wrote in the current epoch.",
    )


def _sources_line(total: replay.Totals) -> str:
    """Where the replaced text came from: Reads, or the context's own writes (#24)."""
    parts = []
    for source, (count, saved, turns) in total.by_source.items():
        if source == "Read" or count:
            what = "Reads (and shell reads)" if source == "Read" else f"its own {source}s"
            parts.append(f"{what} {count:,} ({saved:,} tokens, {turns:,} token-turns)")
    held = ", ".join(f"{total.writes_held[t]:,} of {total.writes[t]:,} {t}s" for t in total.writes)
    return (
        f"Replacements by where their text came from: {'; '.join(parts)}. The ledger held the "
        f"file after {held}."
    )


def _cells(t: replay.Totals) -> list[str]:
    return [
        f"{t.reads:,}",
        f"{t.replaced['identical']:,}",
        f"{t.replaced['unseen']:,}",
        f"{t.replaced['diff']:,}",
        f"{t.shell_notices:,}",
        f"{sum(t.writes_held.values()):,}/{sum(t.writes.values()):,}",
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


def _render_share(
    total: replay.Totals, digests: outputs_replay.DigestTotals, kept: int, share: float
) -> None:
    from ccstate.cli import tables

    console = tables.make_console()
    console.print(
        f"[bold]ccstate keeps out {share:.1%} of all tool-result token-turns[/]: {kept:,} of "
        f"{total.result_token_turns:,} (read ledger {total.token_turns_saved:,}, shell-read "
        f"notices {total.shell_token_turns_saved:,}, digests "
        f"{digests.total.token_turns_saved:,}; every tool result's tokens x the later API calls "
        "of its context and epoch)."
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
