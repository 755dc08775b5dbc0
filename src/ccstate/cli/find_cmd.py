"""`ccstate find QUERY`: ranked code locations for a task, from the local code index (#41)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ccstate import config, paths
from ccstate.cli import cli, echo_json, handle_errors, project_option, resolve_project
from ccstate.errors import CcstateError

if TYPE_CHECKING:
    from ccstate.repo.update import Progress
    from ccstate.repo.vectors import ChunkRanker

FOREGROUND_SECONDS = 20.0  # what `find` indexes itself before the rest goes to the background
LOCK_SECONDS = 2.0  # how long `find` waits for another indexer before it answers without it
DISABLED = "find is disabled in {path} (find.enabled: false); set it to true to index the code"
SEMANTIC_OFF = "find: semantic ranking is off, BM25 alone answers"


@cli.command(name="find")
@click.argument("query", nargs=-1)
@click.option("--limit", "-n", type=click.IntRange(1, 50), default=5, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the locations as JSON.")
@click.option("--reindex", is_flag=True, help="Read every file again.")
@click.option("--no-update", is_flag=True, help="Search the index as it is, re-reading nothing.")
@project_option
@handle_errors
def find_cmd(
    query: tuple[str, ...],
    limit: int,
    as_json: bool,
    reindex: bool,
    no_update: bool,
    project: Path | None,
) -> None:
    """Find the code a task needs: ranked `path:start-end` locations, each with the
    enclosing definition's name, its first line and the lines holding the query's words.

    Searches a local index of the project's git-tracked files (definitions found by
    tree-sitter), brought up to date first: only files that changed are read again. The
    answer is a pointer: Read the lines before you edit them.

    \b
    Example:
        ccstate find "retry the webhook client on timeouts"
        ccstate find parse_date --limit 10 --json
        ccstate find --reindex
    """
    root = resolve_project(project)
    state = paths.state_dir(root)
    cfg = config.load_config(root)
    if not cfg.get("find.enabled"):
        raise CcstateError(DISABLED.format(path=paths.config_path(root)))
    if not query and not reindex:
        raise click.UsageError("give a QUERY (words, an identifier, a path), or --reindex")
    if not no_update:
        _update(root, state, cfg, reindex)
    from ccstate.repo import index, render, search

    con = index.connect(state, create=False)
    try:
        text = " ".join(query)
        hits = search.search(con, text, limit, _ranker(cfg, root)) if text else []
        files = index.stats(con).files
    finally:
        con.close()
    if as_json:
        echo_json({"query": text, "hits": [h.to_json() for h in hits], "files_indexed": files})
    elif text:
        click.echo(render.render_hits(text, hits, files))


def foreground_refresh(
    root: Path, state: Path, cfg: config.Config, *, full: bool = False
) -> Progress:
    """What `find` and `map` index themselves: what changed, for FOREGROUND_SECONDS at most,
    waiting LOCK_SECONDS for another indexer."""
    from ccstate.repo import update

    return update.refresh(
        root,
        state,
        max_bytes=int(cfg.get("find.max_mb")) << 20,
        deadline=time.monotonic() + FOREGROUND_SECONDS,
        jobs=update.cpus(),
        full=full,
        lock_timeout=LOCK_SECONDS,
    )


def _update(root: Path, state: Path, cfg: config.Config, full: bool) -> None:
    """Re-read what changed within FOREGROUND_SECONDS; hand the rest to the background."""
    from ccstate.repo import status

    progress = foreground_refresh(root, state, cfg, full=full)
    if progress.locked and not full:  # the background indexer: answer from what it has
        click.echo(f"{progress.line()}; this answer is from the index as it is", err=True)
        return
    if progress.error:
        raise CcstateError(progress.error)
    status.after_update(root, state, cfg, None)  # a configured model's vectors, the map
    if progress.pending:
        status.spawn(str(root), str(state))
        click.echo(
            f"{progress.line()}; indexing goes on in the background (`ccstate doctor` shows "
            "how far); this answer is from the files read so far",
            err=True,
        )
    elif full or progress.seconds > 2:
        click.echo(progress.line(), err=True)


def _ranker(cfg: config.Config, root: Path) -> ChunkRanker | None:
    """The configured model's chunk ranking; None (one line on stderr) when it cannot rank."""
    name = str(cfg.get("recall.embedding_model"))
    if not name:
        return None
    from ccstate.repo import vectors

    try:
        return vectors.ranker_for(name, root)
    except CcstateError as exc:
        click.echo(f"{SEMANTIC_OFF}: {exc}", err=True)
        return None
