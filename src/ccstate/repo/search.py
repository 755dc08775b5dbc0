"""Rank code locations for a task: BM25 over chunks, summed per file, optionally fused with
static vectors.

1. The query's content words (`recall.text.query_terms`) and the pieces of its compound
   identifiers (`parseDate` -> `parse`, `date`) are OR-ed as FTS5 phrases.
2. FTS5 ranks chunks by BM25 over five columns: the definition's name, the file's path,
   its doc comment, its body and the identifier parts (`WEIGHTS`).
3. A file's score is its best chunk's plus a share of its next ones' (`SECOND`): a file
   that matches the task in several definitions is likelier the one to change than one
   that matches once.
4. With a model (`recall.embedding_model`), the chunks' vectors give a second ranking,
   fused with BM25 by reciprocal rank fusion before the per-file sum (`vectors.py`).
5. Each file is answered by its best chunk: `path:start-end`, the definition's name and
   first line, and the chunk's lines that hold the query's words.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ccstate.recall.text import STOPWORDS, fts_phrase, parts, query_terms

if TYPE_CHECKING:
    from ccstate.repo.vectors import ChunkRanker

# BM25 column weights: name, path, doc, body, parts (bench/find_eval.py, tuned on the
# commit set's tuning half; docs/FIND.md)
WEIGHTS = (3.0, 2.0, 1.0, 1.0, 0.5)
CANDIDATES = 600  # chunks ranked by BM25 before the per-file sum
SECOND = (0.5, 0.25)  # the share of a file's 2nd and 3rd best chunks added to its score
MAX_TERMS = 48
RRF_K = 60
SNIPPET_LINES = 3
SNIPPET_CHARS = 110
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Hit:
    path: str
    start: int
    end: int
    kind: str
    name: str
    sig: str
    score: float
    snippet: list[tuple[int, str]] = field(default_factory=list)
    also: list[str] = field(default_factory=list)  # other matching definitions in the file

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start}-{self.end}"

    def to_json(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "path": self.path,
            "start": self.start,
            "end": self.end,
            "kind": self.kind or None,
            "name": self.name or None,
            "signature": self.sig,
            "snippet": [{"line": n, "text": t} for n, t in self.snippet],
            "also": self.also,
            "score": round(self.score, 3),
        }


def match_expression(query: str) -> tuple[str, list[str]]:
    """The FTS5 MATCH text for `query` and the words a snippet looks for."""
    terms = query_terms(query)[:MAX_TERMS]
    pieces = [p for p in parts(" ".join(terms)).split() if p not in STOPWORDS]
    words = list(dict.fromkeys([*terms, *pieces]))
    if not words:
        return "", []
    return " OR ".join(fts_phrase(w) for w in words), words


def search(
    con: sqlite3.Connection, query: str, limit: int = 5, ranker: ChunkRanker | None = None
) -> list[Hit]:
    """The `limit` best files for `query`, each with its best chunk."""
    expression, words = match_expression(query)
    if not expression:
        return []
    ranked = _bm25(con, expression)
    if ranker is not None:
        ranked = _fuse(ranked, ranker.rank(con, query, CANDIDATES))
    by_file = _per_file(ranked)
    best = sorted(by_file.items(), key=lambda kv: (-kv[1][0], kv[0]))[:limit]
    return [_hit(con, file_id, score, ids, words) for file_id, (score, ids) in best]


def _bm25(con: sqlite3.Connection, expression: str) -> list[tuple[int, int, float]]:
    """(chunk id, file id, score: higher is better), best first."""
    weights = ", ".join(str(w) for w in WEIGHTS)
    try:
        rows = con.execute(
            f"SELECT c.id, c.file, -bm25(fts, {weights}) AS s FROM fts "
            "JOIN chunks c ON c.id = fts.rowid WHERE fts MATCH ? ORDER BY bm25(fts, "
            f"{weights}), c.id LIMIT ?",
            (expression, CANDIDATES),
        ).fetchall()
    except sqlite3.OperationalError:  # a query FTS5 cannot parse: nothing matches it
        return []
    return [(int(i), int(f), float(s)) for i, f, s in rows]


def _fuse(
    bm25: list[tuple[int, int, float]], semantic: list[tuple[int, int, float]]
) -> list[tuple[int, int, float]]:
    """Reciprocal rank fusion of the two rankings, scaled to BM25's best score so the
    per-file sum treats both alike."""
    top = bm25[0][2] if bm25 else 1.0
    fused: dict[int, float] = {}
    files: dict[int, int] = {}
    for ranking in (bm25, semantic):
        for rank, (cid, fid, _s) in enumerate(ranking):
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + rank + 1)
            files[cid] = fid
    scale = top * (RRF_K + 1) / 2
    out = [(cid, files[cid], s * scale) for cid, s in fused.items()]
    return sorted(out, key=lambda r: (-r[2], r[0]))


def _per_file(ranked: list[tuple[int, int, float]]) -> dict[int, tuple[float, list[int]]]:
    """{file id: (score, its chunk ids best first)}."""
    chunks: dict[int, list[tuple[float, int]]] = {}
    for cid, fid, score in ranked:
        chunks.setdefault(fid, []).append((score, cid))
    out = {}
    for fid, found in chunks.items():
        found.sort(key=lambda sc: (-sc[0], sc[1]))
        score = found[0][0] + sum(w * s for w, (s, _c) in zip(SECOND, found[1:], strict=False))
        out[fid] = (score, [c for _s, c in found])
    return out


def _hit(
    con: sqlite3.Connection, file_id: int, score: float, ids: list[int], words: list[str]
) -> Hit:
    row = con.execute(
        "SELECT f.path, c.start, c.end, c.kind, c.name, c.sig, c.body FROM chunks c "
        "JOIN files f ON f.id = c.file WHERE c.id = ?",
        (ids[0],),
    ).fetchone()
    path, start, end, kind, name, sig, body = row
    also = []
    for cid in ids[1:4]:
        other = con.execute("SELECT name, start FROM chunks WHERE id = ?", (cid,)).fetchone()
        if other is not None and other[0] and other[0] != name:
            also.append(f"{other[0]}:{other[1]}")
    return Hit(path, start, end, kind, name, sig.strip(), score, snippet(body, start, words), also)


def snippet(body: str, start: int, words: list[str]) -> list[tuple[int, str]]:
    """Up to SNIPPET_LINES lines of the chunk holding the most query words (each cut to
    SNIPPET_CHARS), in line order, with their line numbers."""
    wanted = {w.lower() for w in words for w in _WORD.findall(w)}
    scored = []
    for offset, line in enumerate(body.splitlines()):
        found = {w.lower() for w in _WORD.findall(line)} & wanted
        found |= {p for p in parts(line).split() if p in wanted}
        if found and offset > 0:  # the first line is the signature, shown apart
            scored.append((-len(found), offset, line))
    scored.sort()
    chosen = sorted(scored[:SNIPPET_LINES], key=lambda item: item[1])
    return [(start + off, _cut(line.strip())) for _n, off, line in chosen]


def _cut(line: str) -> str:
    return line if len(line) <= SNIPPET_CHARS else line[: SNIPPET_CHARS - 1] + "…"
