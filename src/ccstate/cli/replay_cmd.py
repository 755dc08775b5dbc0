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
        _render_digests(digests)
        _render_summary(total, digests, kept, share)
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
    tables.print_table(console, _sources_table(total))


def _sources_table(total: replay.Totals) -> Any:
    """Where the replaced text came from: Reads, or the context's own writes (#24); after how
    many of its writes the ledger held the file; Claude Code's own answers apart (#23)."""
    from rich.table import Table

    table = Table(title="Replacements by where their text came from")
    table.add_column("source")
    for name in ("replaced", "tokens", "token-turns", "file held after"):
        table.add_column(name, justify="right", no_wrap=True)
    for source, (count, saved, turns) in total.by_source.items():
        what = "Reads (and shell reads)" if source == "Read" else f"its own {source}s"
        held = ""
        if source in total.writes:
            held = f"{total.writes_held[source]:,} of {total.writes[source]:,}"
        table.add_row(what, f"{count:,}", f"{saved:,}", f"{turns:,}", held)
    table.add_section()
    table.add_row(
        "Claude Code's own read dedupe (not ccstate's)",
        f"{total.cc_dedupe:,}",
        f"{total.cc_dedupe_tokens:,}",
        f"{total.cc_dedupe_token_turns:,}",
        "",
    )
    return table


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


CAVEAT = "token-turns: tokens x the later API calls of their context and epoch"
SAFE = "every replacement relies only on text its context received or wrote in the current epoch"
DIGEST_COLUMNS = ("results", "digests", "chars kept out", "tokens", "token-turns")


def _render_digests(digests: outputs_replay.DigestTotals) -> None:
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
    tables.print_table(tables.make_console(), table)


def _render_summary(
    total: replay.Totals, digests: outputs_replay.DigestTotals, kept: int, share: float
) -> None:
    """The verdict (the share kept out, the two safety checks) over the figures behind it;
    then each failed check's problems."""
    from rich.text import Text

    from ccstate.cli import tables

    checks = [("safety check", total.violations), ("digest safety check", digests.lost)]
    failed = [f"{name} FAILED: {len(problems)}" for name, problems in checks if problems]
    verdict = Text(
        f"ccstate keeps out {share:.1%} of all tool-result token-turns; "
        + ("; ".join(failed) if failed else "safety checks passed"),
        style="bold red" if failed else "bold",
    )
    console = tables.make_console()
    rows = _summary_rows(total, digests, kept) + _check_rows(total, digests)
    tables.print_table(console, tables.facts_table(verdict, rows))
    tables.print_wrapped(console, CAVEAT, "dim")
    for name, problems in checks:
        if problems:
            console.print(f"[bold red]{name} FAILED: {len(problems)}[/]")
            for line in problems[:20]:
                console.print(Text(f"  {line}"))


def _summary_rows(
    total: replay.Totals, digests: outputs_replay.DigestTotals, kept: int
) -> list[tuple[str, Any]]:
    share = total.chars_saved / total.read_chars if total.read_chars else 0.0
    notices = digests.total.token_turns_saved + total.shell_token_turns_saved
    ratio = notices / total.token_turns_saved if total.token_turns_saved else 0.0
    replaced = sum(total.replaced.values())
    return [
        ("kept out", f"{kept:,} of {total.result_token_turns:,} token-turns"),
        ("tokens", "tiktoken cl100k_base" if total.tokens_exact else "estimated as chars/4"),
        ("read ledger", f"{total.token_turns_saved:,} token-turns"),
        (
            "  Reads",
            f"{total.reads:,}: {total.rereads:,} re-reads (same context, epoch), "
            f"{replaced:,} replaced",
        ),
        (
            "  Read characters",
            f"{total.chars_saved:,} of {total.read_chars:,} kept out ({share:.1%})",
        ),
        ("shell-read notices", f"{total.shell_token_turns_saved:,} token-turns"),
        (
            "  shell reads",
            f"{total.shell_reads:,}, {total.shell_notices:,} repeats answered "
            f"with a notice ({total.shell_tokens_saved:,} tokens)",
        ),
        ("digests", f"{digests.total.token_turns_saved:,} token-turns"),
        ("digests and notices", f"{notices:,} token-turns, {ratio:.1f}x the read ledger's"),
    ]


def _check_rows(
    total: replay.Totals, digests: outputs_replay.DigestTotals
) -> list[tuple[str, Any]]:
    lines = f"all {digests.failure_lines:,} failure and error lines of the digested outputs"
    return [
        ("safety check", _check(total.violations, SAFE)),
        ("digest safety check", _check(digests.lost, f"{lines} are in their digests")),
    ]


def _check(problems: list[str], passed: str) -> Any:
    from rich.text import Text

    if problems:
        return Text(f"FAILED: {len(problems):,}", style="bold red")
    return Text.assemble(("passed", "green"), f": {passed}")


def _digest_cells(t: outputs_replay.ToolTotals) -> list[str]:
    return [
        f"{t.results:,}",
        f"{t.digests:,}",
        f"{t.chars_saved:,}",
        f"{t.tokens_saved:,}",
        f"{t.token_turns_saved:,}",
    ]
