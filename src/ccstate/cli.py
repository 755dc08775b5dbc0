"""The `ccstate` command line: a thin click skin over the concern modules."""

from __future__ import annotations

import contextlib
import enum
import functools
import json
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from ccstate import __version__, doctor, paths, scaffold
from ccstate.errors import CcstateError

F = TypeVar("F", bound=Callable[..., Any])


class ExitStatus(enum.IntEnum):
    OK = 0
    ERROR = 1  # a CcstateError: bad input the user can fix, or lint findings
    USAGE = 2  # click's own usage errors
    UNEXPECTED = 3  # a bug: traceback logged, one line printed


def handle_errors(func: F) -> F:
    """Turn CcstateError into click's one-line `Error: …` and exit 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CcstateError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def project_option(func: F) -> F:
    return click.option(
        "--project",
        "-C",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Project directory (default: nearest parent with .ccstate.yaml, .ccstate/ or .git).",
    )(func)


def resolve_project(project: Path | None) -> Path:
    return paths.find_project_root(project or Path.cwd())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ccstate")
def cli() -> None:
    """Keep a Claude Code project's working state outside the context window.

    \b
    Example:
        ccstate init      # wire this project's hooks and settings
        ccstate doctor    # check that everything is in place
    """


@cli.command(name="doctor")
@project_option
@handle_errors
def doctor_cmd(project: Path | None) -> None:
    """Check Python, dependencies, tokenizer, hook wiring, state dir and last hook runs.

    Exits 1 when any check fails.

    \b
    Example:
        ccstate doctor
    """
    root = resolve_project(project)
    checks = doctor.run_checks(root, os.environ)
    _render_checks(root, checks)
    sys.exit(doctor.exit_code(checks))


@cli.command(name="init")
@project_option
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@click.option("--force", is_flag=True, help="Replace ccstate's own files with the templates.")
@handle_errors
def init_cmd(project: Path | None, dry_run: bool, force: bool) -> None:
    """Wire this project: hooks in .claude/settings.json, .ccstate.yaml, the state dir.

    Merges into an existing settings file without losing any key or other hook.
    Skips the hooks when the ccstate plugin is enabled (they would run twice).
    A second run changes nothing.

    \b
    Example:
        ccstate init --dry-run
        ccstate init
    """
    root = resolve_project(project)
    steps = scaffold.plan_init(root, sys.executable, os.environ, force=force)
    if not dry_run:
        scaffold.apply_plan(steps)
    verb = {"create": "would create", "update": "would update"} if dry_run else {}
    for step in steps:
        rel = os.path.relpath(step.path, root)
        click.echo(f"{verb.get(step.action, step.action):>12}  {rel}  ({step.reason})")


def _render_checks(root: Path, checks: list[doctor.Check]) -> None:
    from rich.console import Console
    from rich.table import Table

    style = {"ok": "green", "info": "cyan", "warn": "yellow", "fail": "bold red"}
    table = Table(title=f"ccstate doctor: {root}", show_lines=False)
    table.add_column("check")
    table.add_column("status")
    table.add_column("details", overflow="fold")
    for check in checks:
        table.add_row(check.name, f"[{style[check.level]}]{check.level}[/]", check.message)
    console = Console()
    console.print(table)
    failed = sum(check.level == "fail" for check in checks)
    console.print(
        f"[bold red]{failed} check(s) failed[/]" if failed else "[green]all checks passed[/]"
    )


@contextlib.contextmanager
def error_handler() -> Iterator[None]:
    """Anything unexpected: one line on stderr, the traceback in the log, exit 3."""
    try:
        yield
    except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
        raise
    except Exception as exc:
        log = paths.state_dir(resolve_project(None)) / "logs" / "cli.log"
        with contextlib.suppress(OSError):
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("a", encoding="utf-8") as fh:
                fh.write(traceback.format_exc())
        click.echo(f"An unexpected error has occurred: {type(exc).__name__}: {exc}", err=True)
        click.echo(f"Check the log at {log}", err=True)
        sys.exit(ExitStatus.UNEXPECTED)


def main() -> None:
    with error_handler():
        cli(standalone_mode=True)


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True)
