"""`ccstate map`: the repository's most-referenced definitions, grouped by file (#41)."""

from __future__ import annotations

from pathlib import Path

import click

from ccstate import config, paths
from ccstate.cli import cli, handle_errors, project_option, resolve_project
from ccstate.cli.find_cmd import DISABLED, foreground_refresh
from ccstate.errors import CcstateError


@cli.command(name="map")
@click.option(
    "--tokens",
    type=click.IntRange(64, 16384),
    default=None,
    help="Token budget (default: capsule.repo_map_tokens when above 0, else 1024).",
)
@click.option("--no-update", is_flag=True, help="Map the index as it is, re-reading nothing.")
@project_option
@handle_errors
def map_cmd(tokens: int | None, no_update: bool, project: Path | None) -> None:
    """Print the repo map: the definitions the rest of the code uses most (PageRank over
    the reference graph), grouped by file, `line: first line`, within a token budget.

    The same code gives the same bytes (the capsule carries it when
    capsule.repo_map_tokens is above 0).

    \b
    Example:
        ccstate map
        ccstate map --tokens 2048
    """
    root = resolve_project(project)
    state = paths.state_dir(root)
    cfg = config.load_config(root)
    if not cfg.get("find.enabled"):
        raise CcstateError(DISABLED.format(path=paths.config_path(root)))
    from ccstate.repo import index
    from ccstate.repo import map as repo_map

    if not no_update:
        progress = foreground_refresh(root, state, cfg)
        if progress.error and not progress.locked:
            raise CcstateError(progress.error)
        if progress.locked:
            click.echo(f"{progress.line()}; the map is of the index as it is", err=True)
    capsule = int(cfg.get("capsule.repo_map_tokens"))
    budget = tokens or capsule or repo_map.DEFAULT_TOKENS
    con = index.connect(state, create=False)
    try:  # the cache holds one budget: the capsule's, when it carries a map
        keep = budget == capsule or not capsule
        text = repo_map.cached(state, con, budget) if keep else repo_map.build(con, budget)
    finally:
        con.close()
    click.echo(text or "map: no definitions indexed")
