"""The recall index: SQLite FTS5 under the state dir, updated incrementally, size-bounded.

Layout: `<state>/recall/index.sqlite` (0600, in a 0700 folder; WAL, so a query reads while
a hook writes). Tables: `sources` (one row per file read, with its stamp: size, mtime,
the offset and line reading reached, the extractor's state), `docs` (the moments, redacted)
and `fts` (FTS5 over `docs`: title, body, parts). A transcript whose size and mtime are
unchanged is never read again; one that grew is read from where the last run stopped.
Moments of a transcript Claude Code has since deleted stay (that is when recall helps
most); past `recall.max_mb` the oldest sessions are dropped. Here: the database (layout,
schema, connection, deletions, counts, the summary the capsule reads); the update that
fills it: writer.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccstate import store
from ccstate.errors import CcstateError
from ccstate.recall.text import TOKENIZER

SCHEMA_VERSION = 1
INDEX_DIR = "recall"
INDEX_NAME = "index.sqlite"
SUMMARY_NAME = "summary.json"
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


def used_bytes(con: sqlite3.Connection) -> int:
    """Bytes the database's pages hold, free pages left out (recall's index and find's)."""
    pages = con.execute("PRAGMA page_count").fetchone()[0]
    free = con.execute("PRAGMA freelist_count").fetchone()[0]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    return int((pages - free) * size)


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
