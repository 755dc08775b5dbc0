"""The code index: SQLite under the state dir, one row per file, chunks in FTS5.

Layout: `<state>/repo/index.sqlite` (0600 in a 0700 folder, WAL; recall's conventions).
Tables: `files` (path, size, mtime, language, why skipped, the names it uses), `chunks`
(one definition or window each, `AUTOINCREMENT` so a freed id is never reused), `fts`
(FTS5 over the chunks: name, path, doc, body, identifier parts), `defs` (every definition,
for the map), `meta` (schema, generation). Writers hold `<state>/repo/index.lock`
(`store.file_lock`): one writer at a time, a hook that finds it held skips.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ccstate import store
from ccstate.errors import CcstateError
from ccstate.recall.index import used_bytes
from ccstate.recall.text import TOKENIZER, parts
from ccstate.repo.chunks import Parsed
from ccstate.repo.files import Entry

SCHEMA_VERSION = 1
FOLDER = "repo"
INDEX_NAME = "index.sqlite"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL DEFAULT -1,
    mtime_ns INTEGER NOT NULL DEFAULT -1,
    lang TEXT NOT NULL DEFAULT '',
    skip TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    refs TEXT NOT NULL DEFAULT '',
    churn INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    file INTEGER NOT NULL,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    sig TEXT NOT NULL,
    path TEXT NOT NULL,
    doc TEXT NOT NULL,
    body TEXT NOT NULL,
    parts TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file, start);
CREATE TABLE IF NOT EXISTS defs(
    file INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    line INTEGER NOT NULL,
    end INTEGER NOT NULL,
    sig TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS defs_file ON defs(file);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    name, path, doc, body, parts, content='chunks', content_rowid='id', tokenize="{TOKENIZER}"
);
"""


def folder(state: Path) -> Path:
    return state / FOLDER


def index_path(state: Path) -> Path:
    return folder(state) / INDEX_NAME


def lock(state: Path, timeout: float) -> store.file_lock:
    """The one writer's lock, beside the index (`index.lock`)."""
    store.ensure_state_dir(state)
    store.ensure_private_dir(folder(state))
    return store.file_lock(folder(state) / "index", timeout=timeout)


def connect(state: Path, *, create: bool = True, timeout: float = 10.0) -> sqlite3.Connection:
    """The index, created private (0700 folder, 0600 file) when absent and `create`."""
    path = index_path(state)
    if not path.exists():
        if not create:
            raise CcstateError(f"No code index in {folder(state)}; run 'ccstate find --reindex'")
        store.ensure_state_dir(state)
        store.ensure_private_dir(path.parent)
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
    con = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        if con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            con.execute("PRAGMA auto_vacuum=INCREMENTAL")
            con.execute("VACUUM")
        con.executescript(_SCHEMA)
        con.execute(
            "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
    except sqlite3.DatabaseError as exc:
        con.close()
        raise CcstateError(
            f"{path} is not a usable index ({exc}); delete it or run 'ccstate find --reindex'"
        ) from exc
    return con


def stamps(con: sqlite3.Connection) -> dict[str, tuple[int, int, str]]:
    """{path: (size, mtime_ns, skip)} of every file the index knows."""
    rows = con.execute("SELECT path, size, mtime_ns, skip FROM files").fetchall()
    return {p: (int(s), int(m), str(k)) for p, s, m, k in rows}


def put(con: sqlite3.Connection, entry: Entry, parsed: Parsed | None, skip: str = "") -> None:
    """Replace what the index holds for `entry` with `parsed` (or, when skipped, nothing but
    the reason). Inside the caller's transaction; chunks reach FTS at `flush`."""
    file_id = _file_id(con, entry.path)
    _delete_content(con, file_id)
    note = parsed.note if parsed is not None else ""
    lang = parsed.lang if parsed is not None else ""
    refs = _refs_text(parsed.refs) if parsed is not None else ""
    con.execute(
        "UPDATE files SET size=?, mtime_ns=?, lang=?, skip=?, note=?, refs=? WHERE id=?",
        (entry.size, entry.mtime_ns, lang, skip or entry.skip, note, refs, file_id),
    )
    if parsed is None:
        return
    path_words = entry.path + " " + parts(entry.path.replace("/", " "))
    con.executemany(
        "INSERT INTO chunks(file, start, end, kind, name, sig, path, doc, body, parts) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                file_id,
                c.start,
                c.end,
                c.kind,
                c.name,
                c.sig,
                path_words,
                c.doc,
                c.body,
                parts(f"{c.name} {c.doc} {c.body}"),
            )
            for c in parsed.chunks
        ],
    )
    con.executemany(
        "INSERT INTO defs(file, name, kind, line, end, sig) VALUES (?, ?, ?, ?, ?, ?)",
        [(file_id, d.name, d.kind, d.line, d.end, d.sig) for d in parsed.defs],
    )


def _refs_text(refs: Counter[str]) -> str:
    return " ".join(f"{name}*{n}" for name, n in sorted(refs.items()))


def parse_refs(text: str) -> dict[str, int]:
    out = {}
    for item in text.split():
        name, _, n = item.rpartition("*")
        if name and n.isdigit():
            out[name] = int(n)
    return out


def _file_id(con: sqlite3.Connection, path: str) -> int:
    row = con.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
    if row is not None:
        return int(row[0])
    cur = con.execute("INSERT INTO files(path) VALUES (?)", (path,))
    return int(cur.lastrowid or 0)


def _delete_content(con: sqlite3.Connection, file_id: int) -> None:
    con.execute(
        "INSERT INTO fts(fts, rowid, name, path, doc, body, parts) "
        "SELECT 'delete', id, name, path, doc, body, parts FROM chunks "
        "WHERE file = ? AND id <= ?",
        (file_id, _fts_high(con)),
    )
    if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'vecs'").fetchone():
        con.execute(
            "DELETE FROM vecs WHERE id IN (SELECT id FROM chunks WHERE file = ?)", (file_id,)
        )
    con.execute("DELETE FROM chunks WHERE file = ?", (file_id,))
    con.execute("DELETE FROM defs WHERE file = ?", (file_id,))


def set_churn(con: sqlite3.Connection, counts: dict[str, int], head: str) -> None:
    """How many of the last commits touched each file (`files.churn`), as of `head`."""
    con.execute("UPDATE files SET churn = 0 WHERE churn != 0")
    con.executemany(
        "UPDATE files SET churn = ? WHERE path = ?", [(n, p) for p, n in sorted(counts.items())]
    )
    set_meta(con, "churn_head", head)


def remove(con: sqlite3.Connection, path: str) -> None:
    """Forget a file that is gone (deleted, renamed, no longer listed by git)."""
    row = con.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
    if row is None:
        return
    _delete_content(con, int(row[0]))
    con.execute("DELETE FROM files WHERE id = ?", (row[0],))


def _fts_high(con: sqlite3.Connection) -> int:
    """The highest chunk id already in FTS (chunks above it wait for `flush`)."""
    row = con.execute("SELECT value FROM meta WHERE key = 'fts_high'").fetchone()
    return int(row[0]) if row else 0


def flush(con: sqlite3.Connection) -> None:
    """Put the chunks stored since the last flush into FTS: one statement for all of them
    (FTS5 makes a segment per statement). Chunk ids only grow (AUTOINCREMENT)."""
    high = _fts_high(con)
    top = con.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0]
    if top > high:
        con.execute(
            "INSERT INTO fts(rowid, name, path, doc, body, parts) "
            "SELECT id, name, path, doc, body, parts FROM chunks WHERE id > ?",
            (high,),
        )
    con.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('fts_high', ?)", (str(top),))


def bump_generation(con: sqlite3.Connection) -> None:
    """Say the code changed: the cached map is keyed by this."""
    con.execute(
        "INSERT INTO meta(key, value) VALUES ('generation', '1') ON CONFLICT(key) "
        "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
    )


def meta(con: sqlite3.Connection, key: str, default: str = "") -> str:
    row = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else default


def set_meta(con: sqlite3.Connection, key: str, value: str) -> None:
    con.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))


@dataclass(frozen=True)
class Stats:
    files: int
    chunks: int
    skipped: dict[str, list[str]]  # reason -> paths (sorted)
    notes: dict[str, list[str]]  # a grammar's failure -> paths indexed in windows instead
    bytes: int


def stats(con: sqlite3.Connection) -> Stats:
    files = con.execute("SELECT count(*) FROM files WHERE skip = ''").fetchone()[0]
    chunks = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    skipped: dict[str, list[str]] = {}
    for path, why in con.execute("SELECT path, skip FROM files WHERE skip != '' ORDER BY path"):
        skipped.setdefault(_reason_key(why), []).append(path)
    notes: dict[str, list[str]] = {}
    for path, why in con.execute("SELECT path, note FROM files WHERE note != '' ORDER BY path"):
        notes.setdefault(why, []).append(path)
    return Stats(int(files), int(chunks), skipped, notes, used_bytes(con))


def _reason_key(why: str) -> str:
    """Reasons that carry a figure (`1.4 MB, over the 1 MB cap`, `not UTF-8 (byte 12)`) are
    grouped by their words."""
    if "over the 1 MB cap" in why:
        return "over the 1 MB cap"
    if why.startswith("not UTF-8"):
        return "not UTF-8"
    return why


@contextlib.contextmanager
def transaction(con: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    con.execute("BEGIN IMMEDIATE")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
