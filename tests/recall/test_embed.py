"""recall.embed: a tiny static-embedding model built here, fused with BM25 by RRF."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from ccstate import redact
from ccstate.errors import CcstateError
from ccstate.recall import embed, index, search, sources
from helpers import make_static_model, text_record, write_jsonl

np = pytest.importorskip("numpy")


def indexed(tmp_path: Path, files: list[Path]) -> sqlite3.Connection:
    con = index.connect(tmp_path / "state")
    sources_ = [sources.transcript_source(f) for f in files]
    index.update(con, sources_, redactor=redact.Redactor(), max_bytes=1 << 30)
    return con


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
    con = indexed(tmp_path, files)
    assert embed.update_vectors(con, model) == 2
    assert embed.update_vectors(con, model) == 0  # only new moments get vectors
    assert search.search(con, search.Query("retry")) == []  # BM25 alone: no shared word
    (hit,) = search.search(con, search.Query("retry"), embed.Embedder(model))
    assert "backoff" in hit.body and hit.score >= embed.FLOOR
    con.close()


def test_fusion_orders_by_reciprocal_rank() -> None:
    assert search.fuse([[1, 2, 3], [3, 1]]) == [1, 3, 2]


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
    con = indexed(tmp_path, files)
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
