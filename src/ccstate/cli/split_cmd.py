"""`ccstate split FILE`: move long sections of a CLAUDE.md into topic files."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ccstate import config
from ccstate.cli import cli, handle_errors, resolve_project
from ccstate.instructions import split


@cli.command(name="split")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@handle_errors
def split_cmd(file: Path, dry_run: bool) -> None:
    """Move the long sections of FILE into topic files; leave one pointer line each.

    Prints the plan first, then applies it. A section longer than lint.split_min_lines
    goes to <lint.topic_dir>/<title>.md with its text unchanged; FILE keeps the heading
    and a pointer with a one-line gist. No line of text is lost, and a second run
    finds nothing to move.

    \b
    Example:
        ccstate split CLAUDE.md --dry-run
        ccstate split CLAUDE.md
    """
    path = file.resolve()
    root = resolve_project(path.parent)
    settings = config.load_config(root)
    min_lines = int(settings.get("lint.split_min_lines"))
    changes = split.plan_split(str(path), str(root), str(settings.get("lint.topic_dir")), min_lines)
    rel = os.path.relpath(path, root)
    if not changes:
        click.echo(f"nothing to split: no section of {rel} is longer than {min_lines} lines")
        return
    click.echo(f"plan for {rel}:")
    for change in changes:
        for note in change.notes:
            click.echo(f"  {note}")
    if dry_run:
        return
    for change in split.apply_changes(changes):
        verb = "created" if change.before is None else "updated"
        click.echo(f"{verb:>8}  {os.path.relpath(change.path, root)}")
