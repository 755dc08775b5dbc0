"""`ccstate init` and `ccstate init --remove`."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click

from ccstate.cli import InputError, cli, handle_errors, project_option, resolve_project
from ccstate.install import wiring
from ccstate.scaffold import plan as scaffold


@cli.command(name="init")
@project_option
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@click.option("--force", is_flag=True, help="Replace ccstate's own files with the templates.")
@click.option(
    "--remove", is_flag=True, help="Unwire: remove ccstate's hooks and untouched scaffolding."
)
@click.option(
    "--statusline",
    is_flag=True,
    help="Only the status line: set ccstate's statusLine where none is set (with --remove: "
    "take it out again).",
)
@click.option(
    "--user", is_flag=True, help="With --statusline: the user's settings, not the project's."
)
@click.option(
    "--refresh",
    type=click.IntRange(1, 3600),
    default=wiring.STATUSLINE_REFRESH_S,
    show_default=True,
    help="With --statusline: seconds between re-runs while idle (refreshInterval), so the "
    "cache countdown keeps moving.",
)
@handle_errors
def init_cmd(
    project: Path | None,
    dry_run: bool,
    force: bool,
    remove: bool,
    statusline: bool,
    user: bool,
    refresh: int,
) -> None:
    """Wire this project: hooks in .claude/settings.json, .ccstate.yaml, the state dir.

    Merges into an existing settings file without losing any key or other hook. The
    hooks run `ccstate-hook` from PATH, so the file holds no machine path and can be
    committed for the whole team. Skips the hooks when the ccstate plugin is enabled
    (they would run twice). A second run changes nothing.

    --remove takes out exactly ccstate's hooks and status line (every other key and
    hook stays) and deletes the files init created while they still hold what init
    wrote; the state dir (.ccstate/, ignored by git) is kept. A second run changes
    nothing.

    --statusline sets only the status line (`ccstate-statusline`, docs/MOMENTS.md), in
    .claude/settings.json or with --user in ~/.claude/settings.json, and only where no
    status line is set: otherwise it changes nothing and prints what to add to yours.

    \b
    Example:
        ccstate init --dry-run
        ccstate init
        ccstate init --statusline --user
        ccstate init --remove
    """
    root = resolve_project(project)
    if user and not statusline:
        raise InputError("--user: only with --statusline (the hooks are the project's)")
    if statusline:
        _statusline(root, dry_run=dry_run, remove=remove, user=user, refresh=refresh)
        return
    if remove:
        steps = scaffold.plan_remove(root, os.environ)
    else:
        steps = scaffold.plan_init(root, os.environ, force=force)
    if not dry_run:
        scaffold.apply_plan(steps, root)
    _print_steps(steps, root, dry_run)
    if not remove and not dry_run and not wiring.plugin_enabled(root, os.environ):
        _check_path()


def _statusline(root: Path, *, dry_run: bool, remove: bool, user: bool, refresh: int) -> None:
    lines: list[str] = []
    if remove:
        steps = scaffold.plan_remove_statusline(root, os.environ, user=user)
    else:
        steps, lines = scaffold.plan_statusline(root, os.environ, user=user, refresh=refresh)
    if not dry_run:
        scaffold.apply_plan(steps, root)
    _print_steps(steps, root, dry_run)
    for text in lines:
        click.echo(text)
    if not remove and not lines and not dry_run and shutil.which(wiring.STATUSLINE_SCRIPT) is None:
        click.echo(
            f"note: `{wiring.STATUSLINE_SCRIPT}` is not on PATH, so the status line only says "
            "so; run install.sh",
            err=True,
        )


def _print_steps(steps: list[scaffold.Step], root: Path, dry_run: bool) -> None:
    verb = {"create": "would create", "update": "would update", "delete": "would delete"}
    for step in steps:
        inside = step.path == root or root in step.path.parents
        rel = os.path.relpath(step.path, root) if inside else str(step.path)
        action = verb.get(step.action, step.action) if dry_run else step.action
        click.echo(f"{action:>12}  {rel}  ({step.reason})")
        if dry_run and step.content and step.preview:
            click.echo(
                "".join(f"{'':>14}| {line}\n" for line in step.content.splitlines()), nl=False
            )


def _check_path() -> None:
    """Say where the hooks' `ccstate-hook` comes from, or why they will stay off."""
    found = wiring.hook_on_path(os.environ)
    beside = Path(sys.executable).with_name(wiring.HOOK_SCRIPT)
    if found is None:
        fix = f"add {beside.parent} to PATH" if beside.exists() else "run install.sh"
        click.echo(
            f"note: `{wiring.HOOK_SCRIPT}` is not on PATH, so the hooks only show a "
            f"'not installed' message; {fix}",
            err=True,
        )
    elif beside.exists() and Path(found).resolve() != beside.resolve():
        click.echo(f"note: the hooks will run {found} (first on PATH), not {beside}", err=True)
