"""`ccstate init` and `ccstate init --remove`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ccstate import scaffold, wiring
from ccstate.cli import cli, handle_errors, project_option, resolve_project


@cli.command(name="init")
@project_option
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@click.option("--force", is_flag=True, help="Replace ccstate's own files with the templates.")
@click.option(
    "--remove", is_flag=True, help="Unwire: remove ccstate's hooks and untouched scaffolding."
)
@handle_errors
def init_cmd(project: Path | None, dry_run: bool, force: bool, remove: bool) -> None:
    """Wire this project: hooks in .claude/settings.json, .ccstate.yaml, the state dir.

    Merges into an existing settings file without losing any key or other hook. The
    hooks run `ccstate-hook` from PATH, so the file holds no machine path and can be
    committed for the whole team. Skips the hooks when the ccstate plugin is enabled
    (they would run twice). A second run changes nothing.

    --remove takes out exactly ccstate's hooks (every other key and hook stays) and
    deletes the files init created while they still hold what init wrote; the state
    dir (.ccstate/, ignored by git) is kept. A second run changes nothing.

    \b
    Example:
        ccstate init --dry-run
        ccstate init
        ccstate init --remove
    """
    root = resolve_project(project)
    if remove:
        steps = scaffold.plan_remove(root, os.environ)
    else:
        steps = scaffold.plan_init(root, os.environ, force=force)
    if not dry_run:
        scaffold.apply_plan(steps, root)
    verb = {"create": "would create", "update": "would update", "delete": "would delete"}
    for step in steps:
        rel = os.path.relpath(step.path, root)
        action = verb.get(step.action, step.action) if dry_run else step.action
        click.echo(f"{action:>12}  {rel}  ({step.reason})")
    if not remove and not dry_run and not wiring.plugin_enabled(root, os.environ):
        _check_path()


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
