"""`ccstate doctor`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ccstate.cli import cli, handle_errors, project_option, resolve_project
from ccstate.install import doctor

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rich.text import Text


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
    """The verdict first (which checks failed), then a row per check."""
    from rich.table import Table
    from rich.text import Text

    from ccstate.cli import tables

    style = {"ok": "green", "info": "cyan", "warn": "yellow", "fail": "bold red"}
    console = tables.make_console()
    tables.print_wrapped(console, _verdict(checks))
    table = Table(title=Text(f"checks in {root}"), show_lines=False)
    table.add_column("check")
    table.add_column("status")
    table.add_column("details", overflow="fold")
    for check in checks:
        level = Text(check.level, style=style[check.level])
        table.add_row(check.name, level, Text(check.message))  # a message can hold "[...]"
    tables.print_table(console, table)


def _verdict(checks: list[doctor.Check]) -> Text:
    """`ccstate doctor: 1 check(s) failed: hooks; 1 warning(s): claude`."""
    from rich.text import Text

    failed = [check.name for check in checks if check.level == "fail"]
    warned = [check.name for check in checks if check.level == "warn"]
    head = f"{len(failed)} check(s) failed: {', '.join(failed)}" if failed else "all checks passed"
    tail = f"; {len(warned)} warning(s): {', '.join(warned)}" if warned else ""
    style = "bold red" if failed else "bold yellow" if warned else "bold green"
    return Text(f"ccstate doctor: {head}{tail}", style=style)
