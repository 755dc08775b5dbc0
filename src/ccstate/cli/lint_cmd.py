"""`ccstate lint`: price the always-loaded CLAUDE.md set; `--fix` imports into pointers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ccstate import config, paths, tokens
from ccstate.cli import cli, echo_json, handle_errors, resolve_project, warn_config
from ccstate.instructions import cache as claude_md_cache
from ccstate.instructions import lint as claude_md
from ccstate.instructions import split

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rich.console import Console


@cli.command(name="lint")
@click.argument("path", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--fix", is_flag=True, help="Turn @imports into plain pointers with a one-line gist.")
@handle_errors
def lint_cmd(path: Path | None, as_json: bool, fix: bool) -> None:
    """Price what Claude Code loads before the first prompt, and check the pointer layout.

    Lists the root CLAUDE.md, .claude/CLAUDE.md, unscoped .claude/rules/*.md,
    CLAUDE.local.md, every @import they pull in and the auto-memory MEMORY.md head,
    with tokens per file (tiktoken cl100k_base, an estimate of Claude's tokenizer),
    then the findings. PATH is the project folder or its CLAUDE.md (default: the
    current project). Exits 1 when any finding is an error. Rules: docs/CLAUDE-MD.md.

    \b
    Example:
        ccstate lint
        ccstate lint --json
        ccstate lint --fix     # @docs/a.md -> `docs/a.md` (what it holds)
    """
    root = _project(path)
    settings = config.load_config(root)
    report = _lint(root, settings)
    fixed: list[split.Change] = []
    before = report.total_tokens
    if fix:
        fixed = split.apply_changes(split.plan_fix(report))
        report = _lint(root, settings)
    state = paths.state_dir(root)
    if state.is_dir():  # a project that uses ccstate: refresh what the hooks read
        claude_md_cache.write(str(state), report.to_cache())
    if as_json:
        data = report.to_json()
        if fix:
            data["fixed"] = [note for change in fixed for note in change.notes]
            data["tokens_before_fix"] = before
        echo_json(data)
    else:
        _render(report, fixed, before if fix else None)
    sys.exit(1 if report.count("error") else 0)


def _project(path: Path | None) -> Path:
    """The launch folder to lint: PATH itself, the folder of a CLAUDE.md, else the project."""
    if path is None:
        return resolve_project(None)
    path = path.resolve()
    if path.is_dir():
        root = path
    elif path.name in ("CLAUDE.md", "CLAUDE.local.md"):
        root = path.parent.parent if path.parent.name == ".claude" else path.parent
    else:
        return resolve_project(path.parent)
    warn_config(root)
    return root


def _lint(root: Path, settings: config.Config) -> claude_md.Report:
    return claude_md.lint(str(root), settings, os.environ, tokens.count_tokens)


def _render(report: claude_md.Report, fixed: list[split.Change], before: int | None) -> None:
    from rich.table import Table
    from rich.text import Text

    from ccstate.cli import tables

    console = tables.make_console()
    files = Table(title="Loaded into every session before the first prompt", title_justify="left")
    for name, justify in (("file", "left"), ("kind", "left"), ("lines", "right")):
        files.add_column(name, justify=justify)  # type: ignore[arg-type]
    files.add_column("tokens", justify="right")
    files.add_column("loaded through", overflow="fold")
    show = report.context.show
    for f, n in report.files:
        via = f"{show(f.via)}:{f.via_line}" if f.via else ""
        files.add_row(Text(show(f.path)), f.kind, str(f.lines), f"{n:,}", Text(via))
    files.add_section()
    files.add_row("total", "", "", f"{report.total_tokens:,}", "")
    tables.print_table(console, files)
    tables.print_wrapped(console, f"tokens: {report.tokenizer}")
    if not report.files:
        console.print("no CLAUDE.md, rules or imports here: nothing loads before the first prompt")
    for change in fixed:
        for note in change.notes:
            console.print(Text(f"fixed {note}"))
    if before is not None:
        console.print(
            f"always-loaded tokens: {before:,} before the fix, {report.total_tokens:,} now"
        )
    _render_findings(console, report)


def _render_findings(console: Console, report: claude_md.Report) -> None:
    """The counts first, then a row per finding: level, where, rule, what and the fix."""
    from rich.table import Table
    from rich.text import Text

    from ccstate.cli import tables

    if not report.findings:
        console.print("[green]no findings[/]")
        return
    counts = ", ".join(f"{report.count(level)} {level}(s)" for level in claude_md.LEVELS)
    title = Text(f"Findings: {counts}", style="bold red" if report.count("error") else "bold")
    table = Table(title=title)
    table.add_column("level", no_wrap=True)
    table.add_column("where", overflow="fold")
    table.add_column("finding", overflow="fold")
    style = {"error": "bold red", "warning": "yellow", "info": "cyan"}
    for f in report.findings:
        where = f"{f.path}:{f.line}" if f.line else f.path
        body = f.message + (f"\nuse: {f.suggestion}" if f.suggestion else "")
        table.add_row(Text(f.level, style=style[f.level]), Text(f"{where}\n({f.rule})"), Text(body))
    tables.print_table(console, table)
