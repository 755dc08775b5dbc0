"""An index written by another ccstate: brought to this one's format, or refused, in one line.

The moments (`docs`) are the index's content; the full-text table (`fts`) is derived from
them. An index whose full-text table was made with another tokenizer (an older ccstate's,
without the porter stemmer that reads `pulls` as `pull`) still answers, with that
tokenizer's words: `ccstate recall` makes the table again with this one's and fills it from
the moments (FTS5's `rebuild`), which loses nothing, not even moments of transcripts
Claude Code has since deleted. An index of a newer schema than this ccstate knows is not
touched: the user is told to upgrade ccstate (or to delete the folder to start afresh).
Hooks never do this (it can take seconds on a big index); they index with the table as it
is, and the next `ccstate recall` brings it up to date.
"""

from __future__ import annotations

import sqlite3

from ccstate.errors import CcstateError
from ccstate.recall.index import FTS_TABLE, SCHEMA_VERSION
from ccstate.recall.text import TOKENIZER

REBUILT = (
    "recall: the index was made by an older ccstate (tokenizer {old}); its search table was "
    "rebuilt from its {moments} moments with the porter stemmer (nothing lost)"
)
NEWER = (
    "{path}: the recall index was written by a newer ccstate (schema {found}, this one reads "
    "{known}); upgrade ccstate, or delete that folder to build the index afresh"
)


def upgrade(con: sqlite3.Connection, path: str = "the recall index") -> str:
    """Bring the index to this ccstate's format: what was done, in one line, or '' when it
    already is. Raises CcstateError for an index of a newer schema."""
    row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    found = int(row[0]) if row and str(row[0]).isdigit() else SCHEMA_VERSION
    if found > SCHEMA_VERSION:
        raise CcstateError(NEWER.format(path=path, found=found, known=SCHEMA_VERSION))
    old = tokenizer(con)
    if old is None or old == TOKENIZER:
        return ""
    con.execute("BEGIN IMMEDIATE")
    try:
        con.execute("DROP TABLE fts")
        con.execute(FTS_TABLE)
        con.execute("INSERT INTO fts(fts) VALUES ('rebuild')")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    moments = con.execute("SELECT count(*) FROM docs").fetchone()[0]
    return REBUILT.format(old=repr(old), moments=moments)


def tokenizer(con: sqlite3.Connection) -> str | None:
    """The tokenizer the index's full-text table was made with ('unicode61' when it names
    none: FTS5's default); None without the table."""
    row = con.execute("SELECT sql FROM sqlite_master WHERE name = 'fts'").fetchone()
    if row is None:
        return None
    sql = str(row[0])
    start = sql.find("tokenize")
    if start < 0:
        return "unicode61"
    rest = sql[start + len("tokenize") :].lstrip(" =")
    quote = rest[:1]
    if quote in ("'", '"'):
        end = rest.find(quote, 1)
        while end > 0 and rest[end + 1 : end + 2] == quote:  # a doubled quote inside
            end = rest.find(quote, end + 2)
        return rest[1:end].replace(quote * 2, quote) if end > 0 else rest[1:]
    return rest.split(",")[0].split(")")[0].strip()
