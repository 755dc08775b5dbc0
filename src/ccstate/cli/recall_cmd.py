"""`ccstate recall QUERY`, `recall show REF`, `recall --reindex`: search past sessions (#17)."""

from __future__ import annotations

import datetime as dt
import os
import re
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ccstate import config, paths
from ccstate.cli import (
    cli,
    echo_json,
    handle_errors,
    output_width,
    project_option,
    resolve_project,
)
from ccstate.errors import CcstateError
from ccstate.recall import KINDS, hits, index, migrate, render, search, update
from ccstate.recall.text import clip, one_line, query_terms

if TYPE_CHECKING:
    from ccstate.recall.embed import Embedder

EMPTY = (
    "recall: the query is empty; give words, an identifier, a path or an error message "
    "(ccstate recall -h)"
)
LONG = "recall: the query has {n} words; searched for its first {kept}"
EXIT_USAGE = 2  # click's status for a usage error
SEMANTIC_OFF = "recall: semantic ranking is off, BM25 alone answers"
STALE_VECTORS = (
    "the index holds no vectors of recall.embedding_model yet; run `ccstate recall` without "
    "--no-update once"
)
_RELATIVE = re.compile(r"^(\d+)([dwm])$")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)  # a match may wrap to the next line
_HIT = re.compile(r"\d+\. ")


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
    their fixes, decisions and handoffs, each hit with its REF, kind, date and confidence.

    A question in plain words or keywords both work. Each hit is `strong` (it holds most of
    the question's rarer words) or `weak` (some of them), strong ones first; with no strong
    hit, ask once more with other words. Hits are pointers: `ccstate recall show REF` prints
    one moment with its neighbours (`recall show` is the subcommand when its one argument is
    a REF, `3f2a9c1e:812`). An empty query exits 2; a query of only common words, or one no
    moment answers, says so in one line and exits 0.

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
    text = " ".join(query).strip()
    if not text and not reindex:  # one line, not click's usage block (#38)
        click.echo(EMPTY, err=True)
        raise SystemExit(EXIT_USAGE)
    con = _open(root, state, cfg, no_update and not reindex, reindex)
    with con:
        counts = index.read_summary(state)
        indexed = {"sessions": counts.get("sessions", 0), "moments": counts.get("moments", 0)}
        if not text:
            click.echo(f"Indexed {indexed['moments']} moments from {indexed['sessions']} sessions.")
            return
        _answer(con, cfg, root, text, indexed, as_json, limit, since, session, kinds)


def _open(
    root: Path, state: Path, cfg: config.Config, as_is: bool, reindex: bool
) -> sqlite3.Connection:
    """The index, updated unless `as_is`, in this ccstate's format (one line on stderr when
    an older one's was brought up to date)."""
    if as_is:
        con = index.connect(state, create=False)
    else:
        con, report = update.refresh(root, state, cfg, full=reindex)
        if reindex or report.seconds > 2:  # a first build on a big project: say what it did
            click.echo(
                f"recall: read {report.read} file(s), {report.moments} new moment(s) "
                f"in {report.seconds:.1f}s",
                err=True,
            )
    try:
        done = migrate.upgrade(con, str(index.index_path(state)))
    except CcstateError:
        con.close()
        raise
    if done:
        click.echo(done, err=True)
    return con


def _answer(
    con: sqlite3.Connection,
    cfg: config.Config,
    root: Path,
    text: str,
    indexed: dict[str, int],
    as_json: bool,
    limit: int,
    since: str | None,
    session: str | None,
    kinds: tuple[str, ...],
) -> None:
    """Search and print: the hits, or one line saying why there are none."""
    words = query_terms(text)
    if len(words) > search.MAX_TERMS:
        click.echo(LONG.format(n=len(words), kept=search.MAX_TERMS), err=True)
    q = search.Query(
        text, limit=limit, since=parse_since(since), session=session or "", kinds=kinds
    )
    found = search.search(con, q, _embedder(cfg, root, con)) if words else []
    unmentioned = search.unmentioned(con, text) if words and not found else []
    if as_json:
        data: dict[str, Any] = {"query": text, "hits": [h.to_json() for h in found]}
        data["indexed"] = indexed
        echo_json({**data, "unmentioned": unmentioned} if unmentioned else data)
    elif not words:
        click.echo(fit(render.ONLY_STOPWORDS.format(query=render.quoted(text))))
    elif unmentioned:
        names = ", ".join(map(repr, unmentioned[: render.WORDS]))
        names += ", …" if len(unmentioned) > render.WORDS else ""
        click.echo(fit(render.UNMENTIONED.format(query=render.quoted(text), names=names)))
    elif not found:
        absent, common = search.searchable(con, text)
        filtered = bool(since or session or kinds)
        click.echo(fit(render.nothing_text(text, absent, common, filtered)))
    else:
        click.echo(_highlight(fit(render.hits_text(text, found))))


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


def fit(text: str, width: int | None = None) -> str:
    """Each line within the output width (#40): a longer one wrapped at spaces, the rest
    indented under its text (a hit's under its REF, past `N. `), so a hit still starts its
    own line; a word longer than the width (a path, a hash) stays whole, never split."""
    import textwrap

    width = width or output_width()
    out: list[str] = []
    for line in text.splitlines():
        if len(line) <= width:
            out.append(line)
            continue
        hit = _HIT.match(line)
        lead = len(line) - len(line.lstrip(" "))
        hang = " " * (hit.end() if hit else lead + 2)
        wrapped = textwrap.wrap(
            line, width, subsequent_indent=hang, break_long_words=False, break_on_hyphens=False
        )
        out += wrapped or [line]  # only spaces: as it is
    return "\n".join(out)


def _highlight(line: str) -> str:
    if sys.stdout.isatty() and not os.environ.get("NO_COLOR"):
        return _BOLD.sub(lambda m: click.style(m.group(1), bold=True), line)
    return line


def _show(state: Path, ref: str, as_json: bool) -> None:
    con = index.connect(state, create=False)
    with con:
        ids = hits.find_ref(con, ref)
        if not ids:
            raise CcstateError(
                f"No moment {ref!r} in the recall index; use a REF printed by 'ccstate recall'"
            )
        around = hits.neighbours(con, ids[0])
    if as_json:
        moments = [h.to_json(ranked=False) for h in around]
        echo_json({"ref": ref, "moments": moments, "hit": ids})
        return
    for hit in around:
        mark = ">>" if hit.id in ids else "  "
        date = hit.ts[:19].replace("T", " ") or "-"
        where = f"{_home(hit.path)}:{hit.line}"
        branch = f" on {hit.branch}" if hit.branch else ""
        lines = [f"{mark} {hit.kind} {hits.ref(hit)} session {hit.session} {date}{branch}"]
        lines.append(f"   at {where}")
        if hit.id in ids:
            lines += [f"   {hit.title}"] if hit.title else []
            lines += [f"   {line}" for line in hit.body.splitlines()]
        else:
            lines.append(f"   {clip(one_line(hit.title + ' ' + hit.body), 160)}")
        click.echo(fit("\n".join(lines)))
        click.echo()


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "/" and path.startswith(home + "/") else path
