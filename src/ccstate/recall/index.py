"""The recall index: SQLite FTS5 under the state dir, updated incrementally, size-bounded.

Layout: `<state>/recall/index.sqlite` (0600, in a 0700 folder; WAL, so a query reads while
a hook writes). Tables: `sources` (one row per file read, with its stamp: size, mtime,
the offset and line reading reached, the extractor's state), `docs` (the moments, redacted)
and `fts` (FTS5 over `docs`: title, body, parts). A transcript whose size and mtime are
unchanged is never read again; one that grew is read from where the last run stopped.
Moments of a transcript Claude Code has since deleted stay (that is when recall helps
most); past `recall.max_mb` the oldest sessions are dropped.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccstate import store
from ccstate.errors import CcstateError
from ccstate.recall.extract import Extracted, Job, extract
from ccstate.recall.extract import load as load_extractor
from ccstate.recall.sources import Source
from ccstate.recall.text import TOKENIZER
from ccstate.secrets import redact

SCHEMA_VERSION = 1
# What `moments` makes of a source: each source's stamp (`head`) carries it, and a source
# stamped by an earlier extractor (1: none; 2: tool outputs, attachment and system records,
# #27) is read again from its start, whichever update meets it first (a hook's update of one
# session does not mark the others done).
EXTRACTOR_VERSION = "2"
INDEX_DIR = "recall"
INDEX_NAME = "index.sqlite"
SUMMARY_NAME = "summary.json"
BULK_SOURCES = 50  # files read in one update from which it skips the fsyncs (a first build)
FTS_BATCH = 2000  # new moments indexed by one statement (a trigger per row: six times slower)
HEAD_BYTES = 512  # a transcript whose first bytes changed was rewritten: read it again
NO_FTS5 = (
    "recall needs SQLite's FTS5 extension, which this Python's sqlite3 module (SQLite {version}) "
    "lacks; run ccstate with a Python whose SQLite has FTS5 (python.org, Homebrew and most "
    "Linux distributions build it in)"
)
# The full-text table (`migrate.py` makes it again for an index of another tokenizer)
FTS_TABLE = f"""CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    title, body, parts, content='docs', content_rowid='id', tokenize="{TOKENIZER}"
);"""
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    session TEXT NOT NULL DEFAULT '',
    agent TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL DEFAULT -1,
    mtime_ns INTEGER NOT NULL DEFAULT -1,
    head TEXT NOT NULL DEFAULT '',
    offset INTEGER NOT NULL DEFAULT 0,
    line INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL DEFAULT '',
    pruned INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS docs(
    id INTEGER PRIMARY KEY,
    source INTEGER NOT NULL,
    kind TEXT NOT NULL,
    session TEXT NOT NULL,
    line INTEGER NOT NULL,
    end_line INTEGER NOT NULL DEFAULT 0,
    ts TEXT NOT NULL DEFAULT '',
    branch TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL DEFAULT '',
    parts TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS docs_source ON docs(source, line);
CREATE INDEX IF NOT EXISTS docs_session ON docs(session, ts);
CREATE INDEX IF NOT EXISTS docs_kind ON docs(kind, session);
{FTS_TABLE}
"""


def folder(state: Path) -> Path:
    return state / INDEX_DIR


def index_path(state: Path) -> Path:
    return folder(state) / INDEX_NAME


def summary_path(state: Path) -> Path:
    return folder(state) / SUMMARY_NAME


def check_fts5() -> None:
    """Raise CcstateError (what to do) when this Python's SQLite has no FTS5."""
    try:
        con = sqlite3.connect(":memory:")
        try:
            con.execute("CREATE VIRTUAL TABLE t USING fts5(a)")
        finally:
            con.close()
    except sqlite3.OperationalError as exc:
        raise CcstateError(NO_FTS5.format(version=sqlite3.sqlite_version)) from exc


def connect(
    state: Path, *, timeout: float = 10.0, create: bool = True, replace_unusable: bool = False
) -> sqlite3.Connection:
    """The index, created (private: 0700 folder, 0600 file) when absent and `create`.

    `replace_unusable` (a rebuild): a file that is not a usable database (an OS crash while a
    rebuild wrote without fsync, see `update`) is deleted and the index built afresh."""
    try:
        return _connect(state, timeout, create)
    except _Unusable as exc:
        if not replace_unusable:
            raise CcstateError(str(exc)) from exc
    path = index_path(state)
    for extra in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{extra}")
    try:
        return _connect(state, timeout, create)
    except _Unusable as exc:
        raise CcstateError(str(exc)) from exc


class _Unusable(Exception):
    """The index file is not a database SQLite can use."""


def _connect(state: Path, timeout: float, create: bool) -> sqlite3.Connection:
    path = index_path(state)
    if not path.exists():
        if not create:
            raise CcstateError(
                f"No recall index in {folder(state)}; run 'ccstate recall --reindex'"
            )
        check_fts5()
        store.ensure_state_dir(state)
        store.ensure_private_dir(path.parent)
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
    os.chmod(path.parent, 0o700)
    con = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        con.execute("PRAGMA cache_size=-32768")  # 32 MiB: FTS5 merges touch many pages
        if con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            con.execute("PRAGMA auto_vacuum=INCREMENTAL")  # so pruning gives space back
            con.execute("VACUUM")
        fresh = con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'fts'").fetchone()[0]
        con.executescript(_SCHEMA)
        if not fresh:  # merge segments less often while indexing (queries barely notice)
            con.execute("INSERT INTO fts(fts, rank) VALUES ('automerge', 8)")
        con.execute(
            "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
    except sqlite3.OperationalError as exc:
        con.close()
        if "fts5" in str(exc):
            raise CcstateError(NO_FTS5.format(version=sqlite3.sqlite_version)) from exc
        raise CcstateError(f"{path}: {exc}") from exc
    except sqlite3.DatabaseError as exc:
        con.close()
        raise _Unusable(
            f"{path} is not a usable index ({exc}); run 'ccstate recall --reindex'"
        ) from exc
    return con


# --------------------------------------------------------------------------- updating


@dataclass
class Report:
    """What one update did."""

    sources: int = 0  # files looked at
    read: int = 0  # files read (new, grown or changed)
    unchanged: int = 0
    moments: int = 0  # added
    bytes_read: int = 0
    stopped: list[str] = field(default_factory=list)  # sources left unfinished, and why
    pruned_sessions: int = 0
    seconds: float = 0.0


def update(
    con: sqlite3.Connection,
    sources: Sequence[Source],
    *,
    redactor: redact.Redactor,
    max_bytes: int,
    deadline: float | None = None,
    jobs: int = 1,
    full: bool = False,
) -> Report:
    """Bring the index up to date with `sources`; `full` reads every one of them again."""
    started = time.monotonic()
    report = Report(sources=len(sources))
    planned = [j for s in sources if (j := _plan(con, s, full)) is not None]
    report.unchanged = len(sources) - len(planned)
    skip = _handoff_sessions(sources)
    func = functools.partial(extract, redactor=redactor, deadline=deadline, skip_sessions=skip)
    writer = _Writer(con, planned, report)
    bulk = full or len(planned) >= BULK_SOURCES
    if bulk:  # a rebuild: no fsync per commit (the index is rebuilt from its sources)
        con.execute("PRAGMA synchronous=OFF")
    try:
        if jobs > 1 and len(planned) > 1:
            from ccstate import fanout

            redact.prepare()  # compiled once, before the fork, for every worker
            load_extractor()  # imported once, too
            fanout.fan_out(  # `jobs` readers; this process writes what they deliver
                func, planned, jobs, writer.put, writer.begin, parent_works=False
            )
        else:
            for number, job in enumerate(planned):
                if deadline is not None and time.monotonic() > deadline:
                    report.stopped.append(f"{job.source.path.name}: not read (time budget)")
                    continue
                writer.put(number, func(job))
        writer.begin()
        writer.flush()
        report.pruned_sessions = _bound(con, max_bytes)
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise
    finally:
        if bulk:
            con.execute("PRAGMA synchronous=NORMAL")
    if report.pruned_sessions:  # give the freed pages back to the disk
        con.executescript("PRAGMA incremental_vacuum;")  # execute() would free one page
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    report.seconds = time.monotonic() - started
    return report


class _Writer:
    """Stores each source's moments as soon as they come: with workers, this process writes
    while the others read, and takes fewer files to read itself. One transaction.

    The full-text index takes new moments a batch at a time (`flush`, at least FTS_BATCH of
    them, and at the end): FTS5 writes what one statement added as a segment of its own, so
    a statement per source made a segment per source, and merging them cost a quarter more
    than indexing in batches."""

    def __init__(self, con: sqlite3.Connection, planned: list[Job], report: Report) -> None:
        self.con, self.planned, self.report = con, planned, report
        self.unindexed_after: int | None = None  # moments past this id await `flush`
        self.unindexed = 0

    def begin(self) -> None:
        if not self.con.in_transaction:
            self.con.execute("BEGIN IMMEDIATE")

    def put(self, number: int, got: Extracted) -> None:
        self.begin()
        job = self.planned[number]
        before = _store(self.con, job, got)
        if self.unindexed_after is None:
            self.unindexed_after = before
        self.unindexed += len(got.rows)
        if self.unindexed >= FTS_BATCH:
            self.flush()
        self.report.read += 1
        self.report.moments += len(got.rows)
        self.report.bytes_read += max(0, got.offset - job.offset)
        if got.stopped:
            self.report.stopped.append(f"{job.source.path.name}: {got.stopped}")

    def flush(self) -> None:
        """Index the moments stored since the last flush. Their ids are past every id the
        index held before (new rows take the highest id plus one) and no later source of the
        update deletes them (each source is read once), so `id > unindexed_after` is them."""
        if self.unindexed_after is not None:
            self.con.execute(
                "INSERT INTO fts(rowid, title, body, parts) "
                "SELECT id, title, body, parts FROM docs WHERE id > ?",
                (self.unindexed_after,),
            )
        self.unindexed_after, self.unindexed = None, 0


def _plan(con: sqlite3.Connection, src: Source, full: bool) -> Job | None:
    """The job for a source, or None when its stamp says nothing changed."""
    try:
        st = src.path.stat()
    except OSError:
        return None  # gone: its moments stay
    if not stat.S_ISREG(st.st_mode):
        return None  # a FIFO or a device named like a source is never read (#37)
    row = con.execute(
        "SELECT size, mtime_ns, head, offset, line, state FROM sources WHERE path = ?",
        (str(src.path),),
    ).fetchone()
    stale = row is not None and not str(row[2]).startswith(_EXTRACTED)  # an older extractor's
    if row is not None and not (full or stale) and (row[0], row[1]) == (st.st_size, st.st_mtime_ns):
        return None
    if src.kind != "transcript" or row is None or full or stale:
        return Job(src, 0, 0, "")
    _old_size, _mtime, head, offset, line, state = row
    if st.st_size >= offset and _head(src.path) == head and offset > 0:
        return Job(src, offset, line, state)
    return Job(src, 0, 0, "")


_EXTRACTED = f"{EXTRACTOR_VERSION}:"


def _head(path: Path) -> str:
    """The source's stamp beside its size and time: the extractor's version and a digest of
    its first bytes (a transcript whose first bytes changed was rewritten)."""
    try:
        with os.fdopen(store.open_regular(path), "rb") as fh:  # a FIFO never blocks (#37)
            return _EXTRACTED + store.sha256_hex(fh.read(HEAD_BYTES))[:16]
    except OSError:
        return ""


def _store(con: sqlite3.Connection, job: Job, got: Extracted) -> int:
    """Write a source's moments (not yet in the full-text index: `_Writer.flush`) and stamp;
    the highest moment id before them."""
    src = job.source
    try:
        st = src.path.stat()
        size, mtime = st.st_size, st.st_mtime_ns
    except OSError:
        size, mtime = -1, -1
    if got.stopped:  # unfinished: the next run must read on from the offset
        size, mtime = -1, -1
    key = str(src.path)
    found = con.execute("SELECT id FROM sources WHERE path = ?", (key,)).fetchone()
    if found is None:
        source_id = con.execute(
            "INSERT INTO sources(path, kind, session, agent) VALUES (?, ?, ?, ?)",
            (key, src.kind, src.session, src.agent),
        ).lastrowid
    else:
        source_id = found[0]
    if job.offset == 0:
        delete_docs(con, "source = ?", (source_id,))
    con.execute(
        "UPDATE sources SET size=?, mtime_ns=?, head=?, offset=?, line=?, state=?, pruned=0 "
        "WHERE id=?",
        (size, mtime, _head(src.path), got.offset, got.line, got.state, source_id),
    )
    last_id = con.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()[0]
    con.executemany(
        "INSERT INTO docs(source, kind, session, line, end_line, ts, branch, title, body, parts)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(source_id, *row) for row in got.rows],
    )
    return int(last_id)


def delete_docs(con: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> None:
    """Delete moments from `docs`, their entries from `fts` (external content: by hand) and
    their vectors: the next moments may take the freed ids (SQLite reuses the highest), and
    must not inherit a vector of another text."""
    con.execute(
        "INSERT INTO fts(fts, rowid, title, body, parts) "
        f"SELECT 'delete', id, title, body, parts FROM docs WHERE {where}",
        params,
    )
    if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'vecs'").fetchone():
        con.execute(f"DELETE FROM vecs WHERE id IN (SELECT id FROM docs WHERE {where})", params)
    con.execute(f"DELETE FROM docs WHERE {where}", params)


def _handoff_sessions(sources: Sequence[Source]) -> frozenset[str]:
    """Sessions whose handoff is indexed: their progress-log entries would repeat it."""
    return frozenset(s.session for s in sources if s.kind == "handoff" and s.session)


def used_bytes(con: sqlite3.Connection) -> int:
    pages = con.execute("PRAGMA page_count").fetchone()[0]
    free = con.execute("PRAGMA freelist_count").fetchone()[0]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    return int((pages - free) * size)


def _bound(con: sqlite3.Connection, max_bytes: int) -> int:
    """Drop the oldest sessions' moments until the index fits `max_bytes`; how many went.

    Each session's share of the space is estimated from its text; FTS5 gives deleted
    entries' space back when its index is merged (`optimize`), which runs only here.
    """
    dropped = 0
    for _round in range(3):
        used = used_bytes(con)
        if used <= max_bytes:
            break
        sizes = con.execute(
            "SELECT session, sum(length(title) + length(body) + length(parts)) FROM docs "
            "WHERE session != '' GROUP BY session ORDER BY max(ts), session"
        ).fetchall()
        total = sum(int(n) for _s, n in sizes) or 1
        excess = used - int(max_bytes * 0.9)
        doomed: list[str] = []
        for session, size in sizes[:-1]:  # the newest session always stays
            if excess <= 0:
                break
            doomed.append(session)
            excess -= used * int(size) // total
        for session in doomed:
            delete_docs(con, "session = ?", (session,))
            con.execute("UPDATE sources SET pruned = 1 WHERE session = ?", (session,))
        if not doomed:
            break
        con.execute("INSERT INTO fts(fts) VALUES ('optimize')")
        dropped += len(doomed)
    return dropped


def forget_stamps(con: sqlite3.Connection) -> None:
    """Make every source look changed (a `--reindex`); moments of vanished files stay."""
    con.execute("UPDATE sources SET size = -1, mtime_ns = -1")


# --------------------------------------------------------------------------- summary


@dataclass(frozen=True)
class Stats:
    sessions: int
    moments: int
    bytes: int
    file_bytes: int
    kinds: dict[str, int]


def stats(con: sqlite3.Connection) -> Stats:
    """Counts for `doctor`, the CLI and the capsule. `sessions` counts sessions with work in
    them (an edit, a command, an error, or more than one prompt), like the handoff's rule: a
    quick question does not change the capsule."""
    sessions = con.execute(  # from the (kind, session) index alone: no moment is read
        "SELECT count(*) FROM ("
        "SELECT session FROM docs WHERE kind IN ('edit', 'command', 'error', 'fix') "
        "UNION SELECT session FROM docs WHERE kind = 'prompt' GROUP BY session "
        "HAVING count(*) > 1)"
    ).fetchone()[0]
    kinds = dict(con.execute("SELECT kind, count(*) FROM docs GROUP BY kind").fetchall())
    pages = con.execute("PRAGMA page_count").fetchone()[0]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    return Stats(int(sessions), sum(kinds.values()), used_bytes(con), pages * size, kinds)


def read_summary(state: Path) -> dict[str, int]:
    """What the last update counted ({} when there is none): cheap, for headers."""
    try:
        data = json.loads(summary_path(state).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int)} if isinstance(data, dict) else {}


def write_summary(state: Path, summary: Stats) -> None:
    """What SessionStart says about recall, without opening the database."""
    data = {"schema_version": 1, "sessions": summary.sessions, "moments": summary.moments}
    store.atomic_write_json(summary_path(state), data, durable=False)
