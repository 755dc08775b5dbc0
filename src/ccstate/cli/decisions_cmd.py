"""`ccstate decide` and `ccstate decisions` (index, show, supersede, revert, lint)."""

from __future__ import annotations

import datetime
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ccstate import paths
from ccstate.cli import (
    InputError,
    cli,
    echo_json,
    handle_errors,
    project_option,
    resolve_project,
)
from ccstate.decisions import edit as decisions_edit
from ccstate.decisions import lint as decisions_lint
from ccstate.decisions import log as decisions
from ccstate.errors import CcstateError

F = TypeVar("F", bound=Callable[..., Any])


def _to_id(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Callback: `D7`, `d7` or `7` -> 7 (a tuple of them for a repeatable option)."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(_to_id(ctx, param, v) for v in value)
    number = decisions.parse_id(str(value))
    if number is None:
        raise click.BadParameter(f"{value!r} is not a decision ID; use D<n>, e.g. D3")
    return number


def _json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(func)


def _root(project: Path | None) -> Path:
    """-C given to the subcommand, else to `ccstate decisions`, else the cwd's project."""
    parent = click.get_current_context().parent
    inherited = parent.params.get("project") if parent is not None else None
    return resolve_project(project or inherited)


def _date(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
    """Callback: --date as YYYY-MM-DD (default: today); a bad one names the option."""
    if value is None:
        return datetime.date.today().isoformat()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return datetime.date.fromisoformat(value).isoformat()
    except ValueError:
        pass
    raise InputError(f"--date: {value!r} is not a date; use YYYY-MM-DD, e.g. 2026-03-01")


@cli.command(name="decide")
@click.argument("title")
@click.option("--decision", "text", required=True, help="What was decided: a sentence or two.")
@click.option("--context", default="", help="Why it came up: constraints, options weighed.")
@click.option("--consequences", default="", help="What follows from it: costs, follow-ups.")
@click.option(
    "--supersedes",
    multiple=True,
    metavar="Dn",
    callback=_to_id,
    help="An active decision this one replaces (repeatable).",
)
@click.option("--date", default=None, callback=_date, help="YYYY-MM-DD (default: today).")
@project_option
@handle_errors
def decide_cmd(
    title: str,
    text: str,
    context: str,
    consequences: str,
    supersedes: tuple[int, ...],
    date: str,
    project: Path | None,
) -> None:
    """Record a decision in DECISIONS.md (created when absent); print its ID, title and file.

    IDs are never reused, also with several writers at once. --supersedes marks the
    replaced decision 'superseded by' the new one.

    \b
    Example:
        ccstate decide "Use SQLite for the local cache" \\
            --decision "One file under .ccstate/; no server." \\
            --context "The cache is per machine." --supersedes D3
    """
    root = resolve_project(project)
    made = decisions_edit.record(
        root,
        paths.state_dir(root),
        title,
        text,
        date=date,
        context=context,
        consequences=consequences,
        supersedes=supersedes,
    )
    click.echo(f"Recorded {made.id} ({_shown(paths.decisions_path(root))}): {made.title}")
    for old in made.supersedes:
        click.echo(f"D{old} is now superseded by {made.id}")


def _shown(path: Path) -> str:
    """`path` relative to the working directory when inside it, else absolute."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@cli.group(name="decisions", invoke_without_command=True)
@click.option("--all", "show_all", is_flag=True, help="Include superseded and reverted ones.")
@_json_option
@project_option
@click.pass_context
@handle_errors
def decisions_cmd(ctx: click.Context, show_all: bool, as_json: bool, project: Path | None) -> None:
    """List the active decisions in DECISIONS.md, newest first.

    Subcommands show one entry, supersede or revert one, and lint the file.

    \b
    Example:
        ccstate decisions
        ccstate decisions --all --json
        ccstate decisions show D3
        ccstate decisions supersede D3 --by D7
        ccstate decisions revert D7
        ccstate decisions lint --fix
    """
    if ctx.invoked_subcommand is not None:
        return
    root = resolve_project(project)
    log = _read(root)
    found = [] if log is None else log.decisions()
    shown = sorted((d for d in found if show_all or d.status == "active"), key=lambda d: -d.number)
    if as_json:
        echo_json([d.to_json() for d in shown])
    elif not shown:
        what = "decisions" if show_all or not found else "active decisions"
        click.echo(f'No {what} yet; record one with: ccstate decide "Title" --decision "..."')
    else:
        for line in _index(shown, show_all):
            click.echo(line)


def _read(root: Path) -> decisions.Log | None:
    """The parsed file; its first error, if any, goes to stderr as a warning."""
    log = decisions.read_log(root)
    errors = [p for p in log.problems if p.level == "error"] if log else []
    if errors:
        path = paths.decisions_path(root)
        click.echo(
            f"warning: {path}:{errors[0].line}: {errors[0].message} "
            f"({len(errors)} problem(s); run 'ccstate decisions lint')",
            err=True,
        )
    return log


def _index(shown: list[decisions.Decision], show_all: bool) -> list[str]:
    id_width = max(len(d.id) for d in shown)
    status_width = max(len(d.status_text) for d in shown)
    lines = []
    for d in shown:
        status = f"{d.status_text:<{status_width}}  " if show_all else ""
        lines.append(f"{d.id:<{id_width}}  {d.date or '-':<10}  {status}{d.title}")
    return lines


@decisions_cmd.command(name="show")
@click.argument("decision_id", metavar="Dn", callback=_to_id)
@_json_option
@project_option
@handle_errors
def show_cmd(decision_id: int, as_json: bool, project: Path | None) -> None:
    """Print one decision as it stands in DECISIONS.md.

    \b
    Example:
        ccstate decisions show D3
        ccstate decisions show D3 --json
    """
    root = _root(project)
    path = paths.decisions_path(root)
    log = _read(root)
    if log is None:
        raise CcstateError(f"{path}: not found; record a decision with 'ccstate decide'")
    entry = decisions.unique_entry(log, decision_id, path)
    if as_json:
        echo_json(entry.decision.to_json())
    else:
        click.echo("\n".join(log.lines[entry.start : entry.end]))


@decisions_cmd.command(name="supersede")
@click.argument("old", metavar="Dn", callback=_to_id)
@click.option("--by", "new", metavar="Dn", callback=_to_id, required=True, help="The newer one.")
@project_option
@handle_errors
def supersede_cmd(old: int, new: int, project: Path | None) -> None:
    """Mark a decision superseded by a newer, already recorded one.

    To record the replacement and supersede in one step, use
    'ccstate decide ... --supersedes Dn' instead.

    \b
    Example:
        ccstate decisions supersede D3 --by D7
    """
    root = _root(project)
    decisions_edit.supersede(root, paths.state_dir(root), old, new)
    click.echo(f"D{old} is now superseded by D{new}")


@decisions_cmd.command(name="revert")
@click.argument("number", metavar="Dn", callback=_to_id)
@project_option
@handle_errors
def revert_cmd(number: int, project: Path | None) -> None:
    """Mark an active decision reverted; what it superseded becomes active again.

    The entry and its ID stay in the file.

    \b
    Example:
        ccstate decisions revert D7
    """
    root = _root(project)
    revived = decisions_edit.revert(root, paths.state_dir(root), number)
    click.echo(f"D{number} reverted")
    for old in revived:
        click.echo(f"D{old} is active again (D{number} had superseded it)")


@decisions_cmd.command(name="lint")
@click.option("--fix", is_flag=True, help="Repair a merge: conflicts, clashing IDs, the marker.")
@project_option
@handle_errors
def lint_cmd(fix: bool, project: Path | None) -> None:
    """Check DECISIONS.md: IDs, references, statuses, the next-id marker. Exit 1 on errors.

    --fix repairs what merging two branches leaves: it keeps both sides of a
    conflict, renumbers the later branch's entries from its first clashing ID on
    (and the references to them), numbers unnumbered entries and resets the
    marker. It never drops an entry.

    \b
    Example:
        ccstate decisions lint
        ccstate decisions lint --fix
    """
    root = _root(project)
    path = paths.decisions_path(root)
    if not path.exists():
        click.echo(f"{path}: not found; nothing to check")
        return
    if fix:
        changes = decisions_lint.fix_file(root, paths.state_dir(root))
        for change in changes:
            click.echo(f"fixed: {change}")
    log = decisions.read_log(root)
    problems = decisions_lint.lint_log(log) if log is not None else []
    for problem in problems:
        click.echo(f"{path}:{problem.line}: {problem.level}: {problem.message}")
    errors = sum(p.level == "error" for p in problems)
    warnings = len(problems) - errors
    if problems:
        click.echo(f"{errors} error(s), {warnings} warning(s)")
    else:
        click.echo(f"{path}: no problems")
    if errors:
        sys.exit(1)
