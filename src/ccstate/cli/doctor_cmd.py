"""`ccstate doctor`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ccstate.cli import cli, handle_errors, project_option, resolve_project
from ccstate.install import doctor


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
    from ccstate import paths
    from ccstate.install import wiring
    from ccstate.recall import embed
    from ccstate.scaffold import footprint

    state = paths.state_dir(root, os.environ)
    plugin = bool(wiring.plugin_enabled(root, os.environ))
    checks = doctor.run_checks(
        root,
        os.environ,
        semantic=embed.semantic_status,
        footprint=lambda: footprint.summary(root, state, os.environ, plugin),
    )
    checks[-1:-1] = _code_index(root)  # before the heartbeats, after recall
    _render_checks(root, checks)
    sys.exit(doctor.exit_code(checks))


def _code_index(root: Path) -> list[doctor.Check]:
    """The code index (#41): size against find.max_mb, how far it got, what it skipped."""
    from ccstate import config, paths
    from ccstate.errors import CcstateError
    from ccstate.repo import status

    try:
        cfg = config.load_config(root)
    except CcstateError:
        cfg = config.Config()  # the config check reports the file
    lines = status.doctor_lines(root, paths.state_dir(root), cfg)
    return [doctor.Check(name, level, message) for name, level, message in lines]  # type: ignore[arg-type]


def _render_checks(root: Path, checks: list[doctor.Check]) -> None:
    from rich.table import Table
    from rich.text import Text

    from ccstate.cli import tables

    style = {"ok": "green", "info": "cyan", "warn": "yellow", "fail": "bold red"}
    table = Table(title=Text(f"ccstate doctor: {root}"), show_lines=False)
    table.add_column("check")
    table.add_column("status")
    table.add_column("details", overflow="fold")
    for check in checks:
        level = Text(check.level, style=style[check.level])
        table.add_row(check.name, level, Text(check.message))  # a message can hold "[...]"
    console = tables.make_console()
    tables.print_table(console, table)
    failed = sum(check.level == "fail" for check in checks)
    console.print(
        f"[bold red]{failed} check(s) failed[/]" if failed else "[green]all checks passed[/]"
    )
