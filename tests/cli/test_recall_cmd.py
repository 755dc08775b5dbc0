"""`ccstate recall`: hits as one line each with their confidence, --json, show REF,
--reindex, bad input (empty, only stop words, very long, an older index), errors."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.cli.recall_cmd import parse_since
from ccstate.errors import CcstateError
from ccstate.recall import sources
from helpers import (
    make_static_model,
    prompt_record,
    text_record,
    tool_result_record,
    tool_use_record,
    write_jsonl,
)

SID = "3f2a9c1e-0000-4000-8000-000000000017"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def project(git_project: Path) -> Path:
    folder = sources.transcripts_folder(git_project, os.environ)
    write_jsonl(
        folder / f"{SID}.jsonl",
        [
            prompt_record("add a retry to the webhook client", SID),
            tool_use_record("t1", "Bash", {"command": "npm test -- webhook"}, SID),
            tool_result_record("t1", "Exit code 1\nError: ECONNRESET in webhook retry", True, SID),
            text_record("The webhook client now retries three times with backoff.", SID),
        ],
    )
    return git_project


def test_hits_are_one_line_each_with_ref_kind_date_and_confidence(project: Path) -> None:
    code, out, err = invoke("recall", "webhook", "retry", "-C", str(project))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("recall: 3 hit(s) for 'webhook retry' (3 strong, 0 weak)")
    assert lines[1].startswith("1. ")
    hit = next(ln for ln in lines if ln.split()[2:3] == ["command"])
    assert hit.split()[1] == f"{SID[:8]}:2"  # the REF: the call's line
    assert " 2026-03-01 strong [webhook, retry] " in hit
    assert "**webhook**" in hit  # the match, highlighted
    assert lines[-1].startswith("`ccstate recall show REF`")
    assert err == ""  # a quick update before the search says nothing


def test_weak_hits_are_shown_marked_after_the_strong_ones(project: Path) -> None:
    code, out, _ = invoke("recall", "webhook", "retry", "kubernetes", "ingress", "-C", str(project))
    assert code == 0 and "(0 strong, 3 weak)" in out.splitlines()[0]
    assert all(" weak [" in ln for ln in out.splitlines()[1:4])
    assert "No strong hit" in out  # ask again with other words


def test_json_carries_what_an_agent_needs(project: Path) -> None:
    _code, out, _ = invoke("recall", "ECONNRESET", "--json", "-C", str(project))
    data = json.loads(out)
    (hit,) = [h for h in data["hits"] if h["kind"] == "command"]
    assert (hit["session"], hit["line"], hit["end_line"]) == (SID, 2, 3)  # call to result
    assert hit["timestamp"] == "2026-03-01T10:00:03Z"
    assert {"text", "score", "file", "ref"} <= set(hit) and data["indexed"]["sessions"] == 1
    assert (hit["confidence"], hit["matched"]) == ("strong", ["ECONNRESET"])
    assert hit["reason"] == "matches ECONNRESET (100% of the question)"


def test_show_prints_the_moment_and_its_neighbours(project: Path) -> None:
    invoke("recall", "--reindex", "-C", str(project))
    code, out, err = invoke("recall", "show", f"{SID[:8]}:3", "-C", str(project))  # the result
    assert code == 0, err
    assert f">> command {SID[:8]}:2 session {SID}" in out
    assert "Error: ECONNRESET in webhook retry" in out
    assert "add a retry to the webhook client" in out  # the moment before it


def test_nothing_relevant_is_said_plainly(project: Path) -> None:
    code, out, _ = invoke("recall", "kubernetes", "ingress", "-C", str(project))
    assert code == 0 and out.startswith("Nothing relevant recalled for 'kubernetes ingress'")


def test_a_name_no_moment_mentions_is_named(project: Path) -> None:
    code, out, _ = invoke("recall", "did", "the", "Sentry", "webhook", "retry", "-C", str(project))
    assert code == 0 and out.strip() == (
        "Nothing recalled for 'did the Sentry webhook retry': no moment mentions 'Sentry'. "
        "Check the spelling, or ask without the name."
    )
    _code, out, _ = invoke("recall", "the", "Sentry", "webhook", "--json", "-C", str(project))
    data = json.loads(out)
    assert data["hits"] == [] and data["unmentioned"] == ["Sentry"]
    _code, out, _ = invoke("recall", "the", "webhook", "--json", "-C", str(project))
    assert "unmentioned" not in json.loads(out)


def test_bad_input_gets_one_clear_line(project: Path) -> None:
    """#38: an empty query exits 2, one of only stop words and a very long one exit 0; each
    says what it did in one line, and the index is left as it was."""
    invoke("recall", "--reindex", "-C", str(project))
    index_file = project / ".ccstate" / "recall" / "index.sqlite"
    before = _moments(index_file)
    for empty in ((), ("",), ("  ",)):
        code, out, err = invoke("recall", *empty, "--no-update", "-C", str(project))
        assert (code, out) == (2, "") and err.count("\n") == 1
        assert err.startswith("recall: the query is empty; give words, an identifier")
    code, out, err = invoke("recall", "what", "did", "we", "do", "--no-update", "-C", str(project))
    assert (code, err) == (0, "") and out == (  # one message, wrapped at 140 columns (#40)
        "Nothing to search for in 'what did we do': it has only common words. Name what you "
        "look for: an identifier, a file, a command, an error\n  message.\n"
    )
    long = "webhook retry " + " ".join(f"word{n}" for n in range(2000))
    assert len(long) > 10_000
    code, out, err = invoke("recall", long, "--no-update", "-C", str(project))
    assert code == 0 and err == "recall: the query has 2002 words; searched for its first 32\n"
    assert out.startswith("recall: 3 hit(s) for 'webhook retry word0 word1") and "…'" in out
    assert _moments(index_file) == before and len(before) == 3


def _moments(index_file: Path) -> list[tuple[object, ...]]:
    con = sqlite3.connect(index_file)
    rows = con.execute("SELECT * FROM docs ORDER BY id").fetchall()
    con.close()
    return rows


def test_an_index_from_an_older_version_is_rebuilt_losing_nothing(project: Path) -> None:
    invoke("recall", "--reindex", "-C", str(project))
    index_file = project / ".ccstate" / "recall" / "index.sqlite"
    con = sqlite3.connect(index_file)  # an older ccstate's table: no porter stemmer
    con.executescript(
        "DROP TABLE fts; CREATE VIRTUAL TABLE fts USING fts5(title, body, parts, "
        "content='docs', content_rowid='id', tokenize='unicode61');"
        "INSERT INTO fts(fts) VALUES ('rebuild');"
    )
    (moments,) = con.execute("SELECT count(*) FROM docs").fetchone()
    con.close()
    code, out, err = invoke("recall", "retries", "--no-update", "-C", str(project))
    assert code == 0 and err == (
        "recall: the index was made by an older ccstate (tokenizer 'unicode61'); its search "
        f"table was rebuilt from its {moments} moments with the porter stemmer (nothing lost)\n"
    )
    assert "**retries**" in out or "**retry**" in out  # `retries` finds `retry` again
    code, _out, err = invoke("recall", "retries", "--no-update", "-C", str(project))
    assert code == 0 and err == ""  # once


def test_errors_name_the_fix(project: Path) -> None:
    code, _, err = invoke("recall", "x", "--no-update", "-C", str(project))
    assert code == 1 and "run 'ccstate recall --reindex'" in err
    code, _, err = invoke("recall", "x", "--since", "lately", "-C", str(project))
    assert code == 1 and "--since 'lately': give a date (2026-03-01)" in err
    invoke("recall", "--reindex", "-C", str(project))
    code, _, err = invoke("recall", "show", "nope:9", "-C", str(project))
    assert code == 1 and "No moment 'nope:9' in the recall index" in err


def test_reindex_reports_what_it_read(project: Path) -> None:
    code, out, err = invoke("recall", "--reindex", "-C", str(project))
    assert code == 0 and "Indexed 3 moments from 1 sessions." in out and "read 1 file(s)" in err


def test_since_accepts_dates_and_spans() -> None:
    today = dt.date(2026, 3, 10)
    assert parse_since("2026-03-01", today) == "2026-03-01"
    assert parse_since("7d", today) == "2026-03-03" and parse_since("2w", today) == "2026-02-24"
    assert parse_since(None) == ""
    with pytest.raises(CcstateError):
        parse_since("soon")


def test_a_configured_embedding_model_finds_what_shares_no_word(project: Path) -> None:
    pytest.importorskip("numpy")
    model = make_static_model(project / "model")
    (project / ".ccstate.yaml").write_text(f"recall:\n  embedding_model: {model.name}\n")
    folder = sources.transcripts_folder(project, os.environ)
    write_jsonl(folder / "other.jsonl", [text_record("Added exponential backoff " + "x " * 80)])
    code, out, err = invoke("recall", "retry", "--json", "-C", str(project))
    assert code == 0, err
    texts = [h["text"] for h in json.loads(out)["hits"]]
    assert any("exponential backoff" in t for t in texts)  # no word in common with "retry"


def test_a_model_that_cannot_rank_leaves_bm25_answering_with_one_line(
    project: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """#27: a missing model folder, numpy absent, vectors not yet made: one line on stderr,
    the BM25 hits on stdout, exit 0."""
    off = "recall: semantic ranking is off, BM25 alone answers: "
    (project / ".ccstate.yaml").write_text("recall:\n  embedding_model: nowhere\n")
    code, out, err = invoke("recall", "webhook", "retry", "-C", str(project))
    assert code == 0 and out.startswith("recall: 3 hit(s) for 'webhook retry'"), err
    (line,) = err.splitlines()
    assert line.startswith(off + "recall.embedding_model: ") and "not found" in line
    if has_numpy():
        model = make_static_model(project / "model")
        (project / ".ccstate.yaml").write_text(f"recall:\n  embedding_model: {model.name}\n")
        code, out, err = invoke("recall", "webhook", "--no-update", "-C", str(project))
        assert code == 0 and "hit(s) for 'webhook'" in out
        assert err.strip() == off + (
            "the index holds no vectors of recall.embedding_model yet; run `ccstate recall` "
            "without --no-update once"
        )
        code, out, err = invoke("recall", "webhook", "-C", str(project))
        assert code == 0 and err == ""  # the update made them
    monkeypatch.setitem(sys.modules, "numpy", None)
    code, out, err = invoke("recall", "webhook", "retry", "-C", str(project))
    assert code == 0 and out.startswith("recall: 3 hit(s) for 'webhook retry'"), err
    assert err.strip().startswith(off + "recall.embedding_model needs numpy")


def has_numpy() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True
