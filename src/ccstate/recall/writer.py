"""One update of the recall index: its only writer.

Each source is planned by its stamp (size, mtime, the head of its first bytes, the extractor
that read it): unchanged, skipped; grown, read on from its offset; rewritten or read by an
older extractor, read again. The moments of the planned sources are extracted, in forked
workers when there are several (`fanout`; this process only writes), and stored as they
come in one transaction, entering the full-text table a batch at a time (`FTS_BATCH`); past
`recall.max_mb` the oldest sessions are dropped (`_bound`). The database itself: index.py.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ccstate import store
from ccstate.recall.extract import Extracted, Job, extract
from ccstate.recall.extract import load as load_extractor
from ccstate.recall.index import delete_docs, used_bytes
from ccstate.recall.sources import Source
from ccstate.secrets import redact

# What `moments` makes of a source: each source's stamp (`head`) carries it, and a source
# stamped by an earlier extractor (1: none; 2: tool outputs, attachment and system records,
# #27) is read again from its start, whichever update meets it first (a hook's update of one
# session does not mark the others done).
EXTRACTOR_VERSION = "2"
BULK_SOURCES = 50  # files read in one update from which it skips the fsyncs (a first build)
FTS_BATCH = 2000  # new moments indexed by one statement (a trigger per row: six times slower)
HEAD_BYTES = 512  # a transcript whose first bytes changed was rewritten: read it again


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


def _handoff_sessions(sources: Sequence[Source]) -> frozenset[str]:
    """Sessions whose handoff is indexed: their progress-log entries would repeat it."""
    return frozenset(s.session for s in sources if s.kind == "handoff" and s.session)


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
