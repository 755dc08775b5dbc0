"""`ccstate recall QUERY`, `recall show REF`, `recall --reindex`: search past sessions (#17)."""

from __future__ import annotations

import datetime as dt
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ccstate import config, paths
from ccstate.cli import cli, echo_json, handle_errors, project_option, resolve_project
from ccstate.errors import CcstateError
from ccstate.recall import KINDS, index, search, update
from ccstate.recall.text import clip, one_line

if TYPE_CHECKING:
    import sqlite3

    from ccstate.recall.embed import Embedder

NOTHING = (
    "Nothing relevant recalled for {query!r}: no moment matches enough of it "
    "(score floor {floor}). Try other words, fewer filters, or --reindex."
)
UNMENTIONED = (
    "Nothing recalled for {query!r}: no moment mentions {names}. Check the spelling, or ask "
    "without the name."
)
SEMANTIC_OFF = "recall: semantic ranking is off, BM25 alone answers"
STALE_VECTORS = (
    "the index holds no vectors of recall.embedding_model yet; run `ccstate recall` without "
    "--no-update once"
)
_RELATIVE = re.compile(r"^(\d+)([dwm])$")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


@cli.command(name="recall")
@click.argument("query", nargs=-1)
@click.option("--limit", "-n", type=click.IntRange(1, 100), default=5, show_default=True)
@click.option(
    "--since", default=None, help="Only moments on or after a date: 2026-03-01, 7d, 2w, 3m."
)
@click.option("--session", default=None, help="Only this session (an id or its first characters).")
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(KINDS),
    help="Only these kinds of moment (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
@click.option(
    "--reindex", is_flag=True, help="Read every source again (moments of deleted transcripts stay)."
)
@click.option(
    "--no-update",
    is_flag=True,
    help="Search the index as it is, without reading new sessions first.",
)
@project_option
@handle_errors
def recall_cmd(
    query: tuple[str, ...],
    limit: int,
    since: str | None,
    session: str | None,
    kinds: tuple[str, ...],
    as_json: bool,
    reindex: bool,
    no_update: bool,
    project: Path | None,
) -> None:
    """Search every past session of this project: prompts, edits, commands, errors and
    their fixes, decisions and handoffs, each hit with its session, file and line.

    Hits are pointers: `ccstate recall show REF` prints one moment with its neighbours.
    `recall show` is the subcommand when its one argument is a REF (`3f2a9c1e:812`).

    \b
    Example:
        ccstate recall "where did we add the retry for the webhook client"
        ccstate recall parse_date --kind edit --since 2w
        ccstate recall show 3f2a9c1e:812
        ccstate recall --reindex
    """
    root = resolve_project(project)
    state = paths.state_dir(root)
    cfg = config.load_config(root)
    if len(query) == 2 and query[0] == "show":
        _show(state, query[1], as_json)
        return
    if not query and not reindex:
        raise click.UsageError("give a QUERY (words, an identifier, a path), or --reindex")
    if no_update and not reindex:
        con = index.connect(state, create=False)
    else:
        con, report = update.refresh(root, state, cfg, full=reindex)
        if reindex or report.seconds > 2:  # a first build on a big project: say what it did
            click.echo(
                f"recall: read {report.read} file(s), {report.moments} new moment(s) "
                f"in {report.seconds:.1f}s",
                err=True,
            )
    with con:
        counts = index.read_summary(state)
        if not query:
            click.echo(
                f"Indexed {counts.get('moments', 0)} moments from "
                f"{counts.get('sessions', 0)} sessions."
            )
            return
        embedder = _embedder(cfg, root, con)
        text = " ".join(query)
        q = search.Query(
            text, limit=limit, since=parse_since(since), session=session or "", kinds=kinds
        )
        hits = search.search(con, q, embedder)
        unmentioned = [] if hits else search.unmentioned(con, text)
    indexed = {"sessions": counts.get("sessions", 0), "moments": counts.get("moments", 0)}
    if as_json:
        found = {"query": text, "hits": [h.to_json() for h in hits], "indexed": indexed}
        echo_json({**found, "unmentioned": unmentioned} if unmentioned else found)
        return
    if unmentioned:
        click.echo(UNMENTIONED.format(query=text, names=", ".join(map(repr, unmentioned))))
        return
    _print_hits(text, hits, indexed, q.floor)


def _embedder(cfg: config.Config, root: Path, con: sqlite3.Connection) -> Embedder | None:
    """The configured model's ranking; None, with one line on stderr saying why, when it
    cannot rank: BM25 alone answers then (#27)."""
    name = str(cfg.get("recall.embedding_model"))
    if not name:
        return None
    from ccstate.recall import embed

    try:
        embedder = embed.embedder_for(name, root)
    except CcstateError as exc:
        click.echo(f"{SEMANTIC_OFF}: {exc}", err=True)
        return None
    if embedder is not None and not embed.vectors_current(con, embedder.model):
        click.echo(f"{SEMANTIC_OFF}: {STALE_VECTORS}", err=True)
        return None
    return embedder


def parse_since(text: str | None, today: dt.date | None = None) -> str:
    """`2026-03-01` as it is; `7d`, `2w`, `3m` counted back from today; '' for none."""
    if not text:
        return ""
    match = _RELATIVE.match(text.strip())
    if match:
        days = int(match.group(1)) * {"d": 1, "w": 7, "m": 30}[match.group(2)]
        return ((today or dt.date.today()) - dt.timedelta(days=days)).isoformat()
    try:
        return dt.date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        raise CcstateError(
            f"--since {text!r}: give a date (2026-03-01) or a span back from today (7d, 2w, 3m)"
        ) from None


def _print_hits(text: str, hits: list[search.Hit], indexed: dict[str, int], floor: float) -> None:
    if not hits:
        click.echo(NOTHING.format(query=text, floor=floor))
        return
    click.echo(
        f"recall: {len(hits)} hit(s) for {text!r} "
        f"({indexed['moments']} moments from {indexed['sessions']} sessions indexed)"
    )
    for number, hit in enumerate(hits, start=1):
        click.echo(_highlight(hit_line(number, hit)))
    click.echo("`ccstate recall show REF` prints a moment with what happened around it.")


def hit_line(number: int, hit: search.Hit) -> str:
    """One hit: number, kind, session, date, title, the match, then where it is."""
    date = hit.ts[:10] or "----------"
    title = clip(one_line(hit.title), 70)
    snippet = clip(one_line(hit.snippet), 200)
    where, short = f"{Path(hit.path).name}:{hit.line}", search.ref(hit)
    place = where if short == where else f"{short} = {where}"
    branch = f", {hit.branch}" if hit.branch else ""
    head = f"{number}. {hit.kind:<8} {hit.session[:8]:<8} {date}"
    body = f"{title}: {snippet}" if title else snippet
    return f"{head}  {body}  [{place}{branch}, score {hit.score:.2f}]"


def _highlight(line: str) -> str:
    if sys.stdout.isatty() and not os.environ.get("NO_COLOR"):
        return _BOLD.sub(lambda m: click.style(m.group(1), bold=True), line)
    return line


def _show(state: Path, ref: str, as_json: bool) -> None:
    con = index.connect(state, create=False)
    with con:
        ids = search.find_ref(con, ref)
        if not ids:
            raise CcstateError(
                f"No moment {ref!r} in the recall index; use a REF printed by 'ccstate recall'"
            )
        around = search.neighbours(con, ids[0])
    if as_json:
        echo_json({"ref": ref, "moments": [h.to_json() for h in around], "hit": ids})
        return
    for hit in around:
        mark = ">>" if hit.id in ids else "  "
        date = hit.ts[:19].replace("T", " ") or "-"
        where = f"{_home(hit.path)}:{hit.line}"
        branch = f" on {hit.branch}" if hit.branch else ""
        click.echo(f"{mark} {hit.kind} {search.ref(hit)} session {hit.session} {date}{branch}")
        click.echo(f"   at {where}")
        if hit.id in ids:
            if hit.title:
                click.echo(f"   {hit.title}")
            for line in hit.body.splitlines():
                click.echo(f"   {line}")
        else:
            click.echo(f"   {clip(one_line(hit.title + ' ' + hit.body), 160)}")
        click.echo()


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "/" and path.startswith(home + "/") else path
