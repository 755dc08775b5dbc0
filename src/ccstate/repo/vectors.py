"""The optional second ranking: chunks' static vectors from the model recall loads
(`recall.embedding_model`, `recall/embed.py`), stored beside the chunks (`vecs`), stamped with
the model, so vectors of another model are never compared (embedded again instead)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ccstate.recall import embed


def update_vectors(
    con: sqlite3.Connection, model: embed.Model, deadline: float | None = None
) -> int:
    """Embed the chunks that have no vector yet (all when the model changed), a batch at a
    time until `deadline`; how many were embedded."""
    con.execute("CREATE TABLE IF NOT EXISTS vecs(id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
    con.execute("BEGIN IMMEDIATE")
    try:
        embed.restamp(con, model)
        todo = con.execute(
            "SELECT id, name, doc, body FROM chunks "
            "WHERE id NOT IN (SELECT id FROM vecs) ORDER BY id"
        ).fetchall()
        rows = [(i, f"{n}\n{d}\n{b}") for i, n, d, b in todo]
        done = embed.embed_rows(con, model, rows, deadline)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return done


class ChunkRanker:
    """The chunks nearest a query by cosine, for `search.search` to fuse with BM25."""

    def __init__(self, model: embed.Model, floor: float = embed.FLOOR) -> None:
        self.model = model
        self.floor = floor

    def rank(self, con: sqlite3.Connection, text: str, limit: int) -> list[tuple[int, int, float]]:
        """(chunk id, file id, cosine) of the `limit` nearest chunks at or above the floor."""
        import numpy as np

        row = con.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
        if row is None or row[0] != embed.stamp(self.model):
            return []
        query = self.model.encode([text])[0]
        if not query.any():
            return []
        rows = con.execute(
            "SELECT v.id, c.file, v.v FROM vecs v JOIN chunks c ON c.id = v.id"
        ).fetchall()
        if not rows:
            return []
        scores = embed.dequantised_scores([r[2] for r in rows], query, np)
        best = np.argsort(-scores, kind="stable")[:limit]
        return [
            (int(rows[i][0]), int(rows[i][1]), float(scores[i]))
            for i in best
            if scores[i] >= self.floor
        ]


def ranker_for(name: str, project: Path) -> ChunkRanker | None:
    """The configured model's ranker, or None when `recall.embedding_model` is empty;
    CcstateError (from `embed.load_model`) when the model cannot be loaded."""
    if not name:
        return None
    return ChunkRanker(embed.load_model(name, project))
