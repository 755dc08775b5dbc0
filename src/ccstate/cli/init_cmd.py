"""`ccstate init`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ccstate import scaffold
from ccstate.cli import cli, handle_errors, project_option, resolve_project


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
