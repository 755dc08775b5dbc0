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

import math
import re
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ccstate.recall.text import STOPWORDS, fts_phrase, parts, query_terms

if TYPE_CHECKING:
    from ccstate.repo.vectors import ChunkRanker

# BM25 column weights: name, path, doc, body, parts (bench/find_eval.py, tuned on the
# commit set's tuning half; docs/FIND.md)
WEIGHTS = (5.0, 2.0, 1.0, 1.0, 0.5)
CANDIDATES = 600  # chunks ranked by BM25 before the per-file sum
SECOND = (0.5, 0.25)  # the share of a file's 2nd and 3rd best chunks added to its score
MAX_TERMS = 48
RRF_K = 60
SNIPPET_LINES = 3
SNIPPET_CHARS = 110
_WORD = re.compile(r"\w+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
NAMED = 0.5  # a file whose whole name the query spells out gains this share of the best score
NAMED_MIN = 0.5  # ... and one whose name the query holds less of than this, nothing
CHURN = 0.5  # the churn prior's weight (`_churn`)
PROSE = 0.8  # chunks of files no grammar reads (docs, data, fixtures) weigh this much


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
    _add_named(con, by_file, words)
    _churn(con, by_file)
    best = sorted(by_file.items(), key=lambda kv: (-kv[1][0], kv[0]))[:limit]
    return [_hit(con, file_id, score, ids, words) for file_id, (score, ids) in best]


def _bm25(con: sqlite3.Connection, expression: str) -> list[tuple[int, int, float]]:
    """(chunk id, file id, score: higher is better), best first."""
    weights = ", ".join(str(w) for w in WEIGHTS)
    try:
        rows = con.execute(
            f"SELECT c.id, c.file, -bm25(fts, {weights}) AS s, f.lang FROM fts "
            "JOIN chunks c ON c.id = fts.rowid JOIN files f ON f.id = c.file "
            f"WHERE fts MATCH ? ORDER BY bm25(fts, {weights}), c.id LIMIT ?",
            (expression, CANDIDATES),
        ).fetchall()
    except sqlite3.OperationalError:  # a query FTS5 cannot parse: nothing matches it
        return []
    out = [(int(i), int(f), float(s) * (1.0 if lang else PROSE)) for i, f, s, lang in rows]
    return sorted(out, key=lambda r: (-r[2], r[0]))


def _add_named(
    con: sqlite3.Connection, by_file: dict[int, tuple[float, list[int]]], words: list[str]
) -> None:
    """Lift the files whose name the query spells out: a file gains NAMED times the best
    score, in proportion to the share of its name's words the query holds (`dist-manifest.yaml`
    in "reformat dist-manifest.yaml" names it whole; "model settings" names most of
    `model-settings.yml`)."""
    wanted = {w for word in words for w in _name_words(word)}
    top = max((s for s, _ids in by_file.values()), default=0.0) or 1.0
    for fid, path in con.execute("SELECT id, path FROM files WHERE skip = ''"):
        own = _name_words(path.rsplit("/", 1)[-1])
        share = len(own & wanted) / len(own) if own else 0.0
        if share < NAMED_MIN:
            continue
        score, ids = by_file.get(fid, (0.0, []))
        if not ids:
            first = con.execute("SELECT min(id) FROM chunks WHERE file = ?", (fid,)).fetchone()
            if first is None or first[0] is None:
                continue
            ids = [int(first[0])]
        by_file[fid] = (score + NAMED * top * share, ids)


def _churn(con: sqlite3.Connection, by_file: dict[int, tuple[float, list[int]]]) -> None:
    """Files the last commits changed often are likelier to change again (the churn prior):
    a file's score times 1 + CHURN x log(1 + its changes) / log(1 + the most changes)."""
    if not CHURN or not by_file:
        return
    most = con.execute("SELECT max(churn) FROM files").fetchone()[0] or 0
    if most <= 0:
        return
    scale = math.log1p(most)
    marks = ",".join("?" * len(by_file))
    for fid, changes in con.execute(
        f"SELECT id, churn FROM files WHERE id IN ({marks}) AND churn > 0", list(by_file)
    ):
        score, ids = by_file[fid]
        by_file[fid] = (score * (1 + CHURN * math.log1p(changes) / scale), ids)


def _name_words(text: str) -> set[str]:
    """The lower-case words of a name: `dist-manifest.yaml` -> dist, manifest, yaml;
    `webhookClient.ts` -> webhook, client, ts."""
    return {w.lower() for piece in _WORD.findall(text) for w in _CAMEL.findall(piece)}


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
