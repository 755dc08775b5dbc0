"""recall.migrate: an index of another tokenizer rebuilt from its moments, a newer one refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ccstate.errors import CcstateError
from ccstate.recall import index, migrate, search, sources, writer
from ccstate.recall.text import TOKENIZER
from ccstate.secrets import redact
from helpers import prompt_record, write_jsonl


def built(tmp_path: Path) -> sqlite3.Connection:
    con = index.connect(tmp_path / "state")
    records = [prompt_record("we kept pulling the release branch"), prompt_record("ship it")]
    source = sources.transcript_source(write_jsonl(tmp_path / "s1.jsonl", records))
    writer.update(con, [source], redactor=redact.Redactor(), max_bytes=1 << 30)
    return con


def test_an_index_of_this_version_is_left_alone(tmp_path: Path) -> None:
    con = built(tmp_path)
    assert migrate.tokenizer(con) == TOKENIZER
    assert migrate.upgrade(con) == ""
    con.close()


@pytest.mark.parametrize(
    ("declared", "name"),
    [("tokenize='unicode61'", "unicode61"), ('tokenize = "trigram"', "trigram"), ("", "unicode61")],
)
def test_an_older_tokenizer_is_rebuilt_from_the_moments(
    tmp_path: Path, declared: str, name: str
) -> None:
    con = built(tmp_path)
    con.execute("DROP TABLE fts")
    extra = f", {declared}" if declared else ""
    con.execute(
        f"CREATE VIRTUAL TABLE fts USING fts5(title, body, parts, content='docs', "
        f"content_rowid='id'{extra})"
    )
    con.execute("INSERT INTO fts(fts) VALUES ('rebuild')")
    assert migrate.tokenizer(con) == name
    if name == "unicode61":  # no stemmer: `pulls` does not find `pulling`
        assert search.search(con, search.Query("pulls")) == []
    done = migrate.upgrade(con)
    assert done == migrate.REBUILT.format(old=repr(name), moments=2)
    assert migrate.tokenizer(con) == TOKENIZER
    (hit,) = search.search(con, search.Query("pulls"))
    assert "pulling" in hit.body
    assert con.execute("SELECT count(*) FROM docs").fetchone()[0] == 2  # nothing lost
    con.close()


def test_an_index_of_a_newer_schema_is_refused_and_untouched(tmp_path: Path) -> None:
    con = built(tmp_path)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(CcstateError, match=r"newer ccstate \(schema 99, this one reads 1\)"):
        migrate.upgrade(con, "x/index.sqlite")
    assert con.execute("SELECT count(*) FROM docs").fetchone()[0] == 2
    con.close()
