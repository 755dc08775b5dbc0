"""recall.embed: a tiny static-embedding model built here, fused with BM25 by RRF."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from ccstate.errors import CcstateError
from ccstate.recall import embed, index, search, sources, writer
from ccstate.secrets import redact
from helpers import indexed, make_static_model, prompt_record, text_record, write_jsonl

np = pytest.importorskip("numpy")


def test_semantic_ranking_finds_what_shares_no_word(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # the built-in WordPiece reader
    model = embed.load_model(str(make_static_model(tmp_path / "m")))
    assert model.tokenize("Retry parsers!") == [1, 6, 7]
    files = [
        write_jsonl(
            tmp_path / "s.jsonl",
            [
                text_record("Added exponential backoff to the webhook client " + "x " * 100),
                text_record("The date parser now reads ISO weeks " + "y " * 100),
            ],
        )
    ]
    con = indexed(tmp_path / "state", files)
    assert embed.update_vectors(con, model) == 2
    assert embed.update_vectors(con, model) == 0  # only new moments get vectors
    assert search.search(con, search.Query("retry")) == []  # BM25 alone: no shared word
    (hit,) = search.search(con, search.Query("retry"), embed.Embedder(model))
    assert "backoff" in hit.body and hit.score >= embed.FLOOR
    con.close()


def test_a_missing_model_or_numpy_says_what_to_do(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CcstateError, match=r"model\.safetensors not found"):
        embed.load_model(str(tmp_path / "nowhere"))
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(CcstateError, match=r"needs numpy: pip install 'ccstate\[semantic\]'"):
        embed.load_model(str(tmp_path))


def test_a_corrupt_model_folder_is_one_clear_error(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    folder = make_static_model(tmp_path / "m")
    good = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(b"not a model")
    with pytest.raises(CcstateError, match=r"model\.safetensors: not a safetensors file"):
        embed.load_model(str(folder))
    (folder / "model.safetensors").write_bytes(good)
    (folder / "tokenizer.json").write_text("{truncated", encoding="utf-8")
    with pytest.raises(CcstateError, match=r"tokenizer\.json: not a tokenizer\.json"):
        embed.load_model(str(folder))


def test_vectors_of_another_model_are_never_compared(tmp_path: Path) -> None:
    first = embed.load_model(str(make_static_model(tmp_path / "a")))
    other = embed.load_model(str(make_static_model(tmp_path / "b")))  # another fingerprint
    files = [write_jsonl(tmp_path / "s.jsonl", [text_record("Added exponential backoff " * 9)])]
    con = indexed(tmp_path / "state", files)
    assert not embed.vectors_current(con, first)  # no vectors table yet
    assert embed.update_vectors(con, first) == 1
    assert embed.vectors_current(con, first) and not embed.vectors_current(con, other)
    assert embed.Embedder(other).rank(con, "retry", "", [], 10) == {}
    assert embed.Embedder(first).rank(con, "retry", "", [], 10) != {}
    # a question of words the model does not know adds no (arbitrary) second ranking
    assert embed.Embedder(first).rank(con, "howdy partner", "", [], 10) == {}
    assert embed.update_vectors(con, other) == 1  # the other model's own, all again
    assert embed.vectors_current(con, other)
    con.close()


def test_stored_vectors_keep_their_cosines_in_a_quarter_of_float32() -> None:
    rng = np.random.default_rng(27)
    vectors = rng.normal(size=(50, 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[3] = 0.0  # an empty text's vector
    blobs = embed.quantise(vectors, np)
    assert {len(b) for b in blobs} == {64 + 4}
    query = vectors[7]
    scores = embed.dequantised_scores(blobs, query, np)
    assert np.abs(scores - vectors @ query).max() < 0.02
    assert scores[3] == 0.0 and int(np.argmax(scores)) == 7


def test_vectors_stored_the_earlier_way_are_embedded_again_once(tmp_path: Path) -> None:
    """An index from before int8 storage (float16 rows, the bare model stamp) is another
    model's: no ranking from it, then one re-embedding."""
    model = embed.load_model(str(make_static_model(tmp_path / "m")))
    files = [write_jsonl(tmp_path / "s.jsonl", [text_record("Added exponential backoff " * 9)])]
    con = indexed(tmp_path / "state", files)
    con.execute("CREATE TABLE vecs(id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
    old = model.encode(["Added exponential backoff"]).astype(np.float16)[0].tobytes()
    con.execute("INSERT INTO vecs SELECT id, ? FROM docs", (old,))
    con.execute("INSERT INTO meta(key, value) VALUES ('embedding_model', ?)", (model.fingerprint,))
    con.commit()
    assert not embed.vectors_current(con, model)
    assert embed.Embedder(model).rank(con, "retry", "", [], 10) == {}
    assert embed.update_vectors(con, model) == 1
    assert embed.update_vectors(con, model) == 0
    assert embed.Embedder(model).rank(con, "retry", "", [], 10) != {}
    con.close()


def test_nothing_to_embed_takes_no_write_lock(tmp_path: Path) -> None:
    """A query's update with the model named runs `update_vectors` every time: with every
    moment embedded it must not wait on a hook that is writing the index."""
    model = embed.load_model(str(make_static_model(tmp_path / "m")))
    files = [write_jsonl(tmp_path / "s.jsonl", [text_record("Added exponential backoff " * 9)])]
    con = indexed(tmp_path / "state", files)
    assert embed.update_vectors(con, model) == 1
    writer = sqlite3.connect(index.index_path(tmp_path / "state"), timeout=0.1)
    writer.execute("BEGIN IMMEDIATE")  # a hook indexing meanwhile
    con.execute("PRAGMA busy_timeout = 100")
    try:
        assert embed.update_vectors(con, model) == 0
    finally:
        writer.rollback()
        writer.close()
    con.execute("DELETE FROM vecs")  # a moment without its vector: embedded again
    con.commit()
    assert embed.update_vectors(con, model) == 1
    con.close()


def test_past_its_deadline_a_hook_keeps_what_it_embedded_and_the_next_update_goes_on(  # type: ignore[no-untyped-def]
    tmp_path: Path, monkeypatch
) -> None:
    """A model named over a big index: a hook embeds what its budget leaves time for, a
    batch at a time, and commits it; the next update embeds the rest."""
    model = embed.load_model(str(make_static_model(tmp_path / "m")))
    texts = [f"Added exponential backoff step {n} " + "x " * 60 for n in range(5)]
    records = [prompt_record(t, "s1", f"2026-03-01T10:0{n}:00Z") for n, t in enumerate(texts)]
    con = indexed(tmp_path / "state", [write_jsonl(tmp_path / "s1.jsonl", records)])
    assert con.execute("SELECT count(*) FROM docs").fetchone()[0] == 5
    monkeypatch.setattr(embed, "BATCH", 2)
    clock = iter([0.0, 2.0, 3.0])  # the deadline (1.0) passes before the second batch
    monkeypatch.setattr("time.monotonic", lambda: next(clock))
    assert embed.update_vectors(con, model, deadline=1.0) == 2
    assert con.execute("SELECT count(*) FROM vecs").fetchone()[0] == 2
    monkeypatch.undo()
    assert embed.vectors_current(con, model)  # what is there ranks
    assert embed.update_vectors(con, model) == 3  # no deadline: the rest
    assert embed.update_vectors(con, model) == 0
    con.close()


def test_a_transcript_read_again_from_its_start_gets_its_new_moments_embedded(
    tmp_path: Path,
) -> None:
    """A rewritten transcript is read again from its start: its moments are deleted and the
    new ones take the freed ids (SQLite reuses the highest). Their vectors must be of the new
    text, never the old moment's that had the same id."""
    model = embed.load_model(str(make_static_model(tmp_path / "m")))
    path = tmp_path / "s1.jsonl"
    write_jsonl(path, [prompt_record("retry the webhook client " + "x " * 40, "s1")])
    con = indexed(tmp_path / "state", [path])
    assert embed.update_vectors(con, model) == 1
    (first,) = con.execute("SELECT id FROM docs").fetchone()
    write_jsonl(path, [prompt_record("parse ISO weeks in dates " + "y " * 40, "s1")])
    writer.update(
        con, [sources.transcript_source(path)], redactor=redact.Redactor(), max_bytes=1 << 30
    )
    (again, text) = con.execute("SELECT id, title || char(10) || body FROM docs").fetchone()
    assert again == first  # the freed id, taken again
    embed.update_vectors(con, model)
    (blob,) = con.execute("SELECT v FROM vecs WHERE id = ?", (again,)).fetchone()
    want = model.encode([text])[0]
    got = embed.dequantised_scores([blob], want, np)[0]
    assert got > 0.99  # the vector is the new text's (its cosine with itself)
    con.close()
