"""repo.vectors: chunk vectors from recall's static model, stamped, fused by RRF."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ccstate.recall import embed
from ccstate.repo import index, search, update, vectors
from helpers import make_static_model

pytest.importorskip("numpy")


def test_vectors_rank_what_shares_no_word_and_a_new_model_embeds_again(
    code_project: Path, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    state = code_project.parent / "state"
    update.refresh(code_project, state, max_bytes=1 << 30)
    con = index.connect(state)
    model = embed.load_model(str(make_static_model(tmp_path / "m")))
    chunks = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert vectors.update_vectors(con, model) == chunks
    assert vectors.update_vectors(con, model) == 0  # only new chunks
    ranker = vectors.ChunkRanker(model)
    near = ranker.rank(con, "retry", 5)
    paths = {
        con.execute("SELECT path FROM files WHERE id = ?", (f,)).fetchone()[0] for _c, f, _s in near
    }
    assert "src/webhook.py" in paths  # "backoff" sits next to "retry" in the model
    assert search.search(con, "retry", ranker=ranker)[0].path == "src/webhook.py"
    model.fingerprint = "another model"
    assert ranker.rank(con, "retry", 5) == []  # another model's vectors: never compared
    assert vectors.update_vectors(con, model) == chunks  # embedded again, once
    con.close()


def test_past_the_deadline_no_batch_starts(code_project: Path, tmp_path: Path) -> None:
    state = code_project.parent / "state"
    update.refresh(code_project, state, max_bytes=1 << 30)
    con = index.connect(state)
    model = embed.load_model(str(make_static_model(tmp_path / "m")))
    assert vectors.update_vectors(con, model, deadline=0.0) == 0
    con.close()


def test_no_model_named_no_ranker(tmp_path: Path) -> None:
    assert vectors.ranker_for("", tmp_path) is None
