"""Rank moments for a question: BM25 with field weights, a score floor, recency for ties.

1. The question's content words (`text.query_terms`) are OR-ed as FTS5 phrases, so a
   question in plain words finds moments that share only some of them.
2. FTS5 ranks the matches by BM25 over three columns: title (a path, a command, a
   decision's title) weighs `TITLE_WEIGHT`, the body 1, identifier parts `PARTS_WEIGHT`.
3. A question that names something (`Sentry`, `GraphQL`: a capitalised word past a
   sentence's start) that no moment mentions has no answer here: nothing comes back.
4. Each of the best candidates gets a score in [0, 1]: the share of the question's
   information (IDF-weighted terms) it matches. Below `FLOOR` a hit is dropped, so a
   question about something the project never did gets nothing rather than noise.
5. Hits are ordered by BM25; a near-tie (same score to 2 places relative to the best)
   goes to the newer moment. An optional embedding model adds a second ranking, fused by
   reciprocal rank fusion (`embed.py`).
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ccstate.recall import shapes
from ccstate.recall.text import fts_phrase, names, query_terms

if TYPE_CHECKING:
    from ccstate.recall.embed import Embedder

TITLE_WEIGHT = 2.0
BODY_WEIGHT = 1.0
PARTS_WEIGHT = 0.5
FLOOR = 0.4  # the least share of the question's information a hit must match
CANDIDATES = 100  # ranked by BM25 before scoring
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009)
# With an embedding model, BM25's best PINNED candidates that match at least PIN_COVERAGE of
# the question keep their places ahead of the fused ranking (bench/recall_eval.py).
PINNED = 3
PIN_COVERAGE = 0.8
DF_CAP = 5000  # a term in more documents than this counts as this common (bounded cost)
COMMON = 0.02  # a term in more than this share of the moments does not pick candidates
COMMON_MIN = 2000  # below this the whole question is scored directly (cheap enough)
COVERED = 25  # candidates, best first, whose share of the question is checked (the floor)
SNIPPET_TOKENS = 24
# A question about past work is best answered by what someone wrote about it (the
# assistant's explanation, a fix, a decision, a prompt) before raw output (a command, an
# edit): a mild prior on BM25, measured with bench/recall_eval.py (docs/RECALL.md).
PRIOR = {"answer": 1.3, "fix": 1.2, "decision": 1.3, "handoff": 1.1, "prompt": 1.1}
# A question that asks for a size, a duration, a version or an address lifts the candidates
# whose text holds one (`shapes.py`), measured with bench/recall_eval.py (docs/RECALL.md).
SHAPE_BOOST = 1.3
MARK = ("**", "**")


@dataclass(frozen=True)
class Query:
    text: str
    limit: int = 5
    since: str = ""  # ISO date or time: moments at or after it
    session: str = ""  # a session id or its prefix
    kinds: tuple[str, ...] = ()
    floor: float = FLOOR


@dataclass(frozen=True)
class Hit:
    id: int
    kind: str
    session: str
    agent: str
    path: str
    line: int
    end_line: int
    ts: str
    branch: str
    title: str
    body: str
    score: float  # share of the question matched, in [0, 1]
    snippet: str = ""
    matched: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "ref": ref(self),
            "kind": self.kind,
            "session": self.session,
            "agent": self.agent or None,
            "file": self.path,
            "line": self.line,
            "end_line": self.end_line or None,
            "timestamp": self.ts or None,
            "branch": self.branch or None,
            "title": self.title,
            "text": self.body,
            "snippet": self.snippet,
            "score": round(self.score, 3),
            "matched": list(self.matched),
        }


def ref(hit: Hit) -> str:
    """A short, stable name for a hit (`ccstate recall show REF`): `3f2a9c1e:812` (a
    session's transcript), `agent-a12:40` (a subagent's), `3f2a9c1e.md:9` (a handoff),
    `DECISIONS.md:14`."""
    name = hit.path.rsplit("/", 1)[-1]
    stem, _dot, ext = name.rpartition(".")
    if ext == "jsonl":
        return f"{stem if stem.startswith('agent-') else stem[:8]}:{hit.line}"
    if hit.kind == "handoff" and hit.session and stem.startswith(hit.session[:8]):
        return f"{stem[:8]}.{ext}:{hit.line}"
    return f"{name}:{hit.line}"


_SELECT = (
    "SELECT d.id, d.kind, d.session, s.agent, s.path, d.line, d.end_line, d.ts, d.branch,"
    " d.title, d.body FROM docs d JOIN sources s ON s.id = d.source"
)


def search(con: sqlite3.Connection, query: Query, embedder: Embedder | None = None) -> list[Hit]:
    """The best hits for `query`, at most `query.limit`, none below its floor."""
    terms = query_terms(query.text)
    if not terms:
        return []
    where, params = _filters(query)
    total, found = _doc_counts(con, terms)
    if _unmentioned(con, query.text, found):
        return []  # the question names a thing no moment mentions: nothing here answers it
    weights = {t: _idf(total, found[t]) for t in terms}
    expr = _match_expr(terms, _probe(terms, found, total))
    shaped = shapes.asked(query.text)
    bm25, holding = _candidates(con, expr, where, params, shaped)
    whole = sum(weights.values()) or 1.0
    checked = set(list(bm25)[:COVERED])
    matched: dict[int, list[str]] = {}
    coverage: dict[int, float] = {}

    def cover(i: int) -> float:
        if i in checked and i not in coverage:
            matched[i] = _terms_in(con, terms, i)
            # a moment holding a figure of an asked shape counts as holding its asking words
            asking = shapes.asking(terms, holding.get(i, ()))
            matched[i] += [t for t in asking if t not in matched[i]]
            coverage[i] = sum(weights[t] for t in matched[i]) / whole
        return coverage.get(i, 0.0)

    order = list(bm25)
    semantic: dict[int, float] = {}
    if embedder is not None:
        semantic = embedder.rank(con, query.text, where, params, CANDIDATES)
        # what BM25 ranks near the top and matches nearly all of the question stays first:
        # the fusion only orders what words alone leave uncertain
        pinned = [i for i in order[:PINNED] if cover(i) >= PIN_COVERAGE]
        order = pinned + [i for i in fuse([order, list(semantic)]) if i not in pinned]
    keep: list[int] = []
    for i in order:  # the floor, checked in rank order until enough hits pass it
        if len(keep) >= query.limit * 3:
            break
        if cover(i) >= query.floor or semantic.get(i, 0.0) >= embedder_floor(embedder):
            keep.append(i)
    hits = _load(con, keep, coverage, semantic, matched)
    hits = _tie_break(hits, bm25 if embedder is None else _rrf_scores(order))
    marked = " OR ".join(fts_phrase(t) for t in terms)
    return [_with_snippet(con, h, marked) for h in hits[: query.limit]]


def unmentioned(con: sqlite3.Connection, text: str) -> list[str]:
    """The names the question uses (`text.names`) that no moment mentions: why it has no
    answer here (`ccstate recall` says so)."""
    return _unmentioned(con, text, {})


def _unmentioned(con: sqlite3.Connection, text: str, found: dict[str, int]) -> list[str]:
    named = names(text)
    missing = [n for n in named if n not in found]
    counts = {**found, **(_doc_counts(con, missing)[1] if missing else {})}
    return [name for name in named if counts[name] == 0]


def embedder_floor(embedder: Embedder | None) -> float:
    return embedder.floor if embedder is not None else math.inf


def _filters(query: Query) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if query.kinds:
        clauses.append(f"d.kind IN ({', '.join('?' for _ in query.kinds)})")
        params.extend(query.kinds)
    if query.since:
        clauses.append("d.ts >= ?")
        params.append(query.since)
    if query.session:
        clauses.append("d.session LIKE ? ESCAPE '\\'")
        params.append(query.session.replace("\\", "\\\\").replace("%", "\\%") + "%")
    return "".join(f" AND {c}" for c in clauses), params


def _doc_counts(con: sqlite3.Connection, terms: list[str]) -> tuple[int, dict[str, int]]:
    """How many moments there are, and how many hold each term (counted up to DF_CAP)."""
    total = con.execute("SELECT max(id) FROM docs").fetchone()[0] or 1  # ~count(*), no scan
    found = {
        term: con.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT {DF_CAP})",
            (fts_phrase(term),),
        ).fetchone()[0]
        for term in terms
    }
    return int(total), found


def _idf(total: int, found: int) -> float:
    """BM25's IDF (as FTS5 computes it, floored so a word in every moment still counts)."""
    return max(0.05, math.log((total - found + 0.5) / (found + 0.5) + 1.0))


def _probe(terms: list[str], found: dict[str, int], total: int) -> list[str]:
    """The terms that pick the candidates: not the common ones (in more than COMMON of the
    moments), which would make FTS5 score most of the index for little information; the two
    rarest when all are common. Every term still counts in each candidate's score."""
    common = max(COMMON_MIN, int(total * COMMON))
    rare = [t for t in terms if found[t] <= common]
    return rare or sorted(terms, key=lambda t: found[t])[:2]


def _match_expr(terms: list[str], probe: list[str]) -> str:
    """`(rare OR ...) AND (every term OR ...)`: only moments holding a probe term are scored,
    on every term (the probe terms count twice: the rare words weigh most anyway)."""
    everything = " OR ".join(fts_phrase(t) for t in terms)
    if len(probe) == len(terms):
        return everything
    return f"({' OR '.join(fts_phrase(t) for t in probe)}) AND ({everything})"


def _candidates(
    con: sqlite3.Connection,
    expr: str,
    where: str,
    params: list[Any],
    shaped: tuple[str, ...] = (),
) -> tuple[dict[int, float], dict[int, tuple[str, ...]]]:
    """{moment id: BM25 x kind prior (x SHAPE_BOOST when its text has a shape in
    `shaped`)}, best first, one per transcript line; and {id: the shapes its text has}."""
    rank = f"bm25(fts, {TITLE_WEIGHT}, {BODY_WEIGHT}, {PARTS_WEIGHT})"
    if where:  # filtered: join the moments (their kind, time, session)
        rows = con.execute(
            f"SELECT fts.rowid, {rank} AS s FROM fts JOIN docs d ON d.id = fts.rowid"
            f" WHERE fts MATCH ? {where} ORDER BY s LIMIT {CANDIDATES}",
            (expr, *params),
        ).fetchall()
    else:  # the index alone is about twice as fast
        rows = con.execute(
            f"SELECT rowid, {rank} AS s FROM fts WHERE fts MATCH ? ORDER BY s LIMIT {CANDIDATES}",
            (expr,),
        ).fetchall()
    if not rows:
        return {}, {}
    marks = ", ".join("?" for _ in rows)
    text = ", title || ' ' || body" if shaped else ", ''"
    info = {
        r[0]: r[1:]
        for r in con.execute(
            f"SELECT id, kind, source, line, end_line{text} FROM docs WHERE id IN ({marks})",
            [r[0] for r in rows],
        )
    }
    strength: dict[int, float] = {}
    holding: dict[int, tuple[str, ...]] = {}
    seen: set[tuple[int, int]] = set()
    for rowid, score in rows:
        kind, source, line, end, said = info.get(rowid, ("", 0, 0, 0, ""))
        held = {(source, n) for n in (line, end) if n}
        if not held & seen:  # a failed command and its fix share a line: show one
            seen |= held
            boost = 1.0
            has = shapes.held(said, shaped) if shaped else ()
            if has:
                boost = SHAPE_BOOST
                holding[int(rowid)] = has
            strength[int(rowid)] = -float(score) * PRIOR.get(kind, 1.0) * boost
    return dict(sorted(strength.items(), key=lambda kv: -kv[1])), holding


def _terms_in(con: sqlite3.Connection, terms: list[str], rowid: int) -> list[str]:
    """Which of `terms` a moment holds (one lookup each: FTS5 seeks the rowid)."""
    return [
        term
        for term in terms
        if con.execute(
            "SELECT 1 FROM fts WHERE fts MATCH ? AND rowid = ?", (fts_phrase(term), rowid)
        ).fetchone()
        is not None
    ]


def fuse(rankings: list[list[int]], k: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion: ids ordered by the sum of 1/(k + rank) over the rankings."""
    return list(_rrf(rankings, k))


def _rrf(rankings: list[list[int]], k: int = RRF_K) -> dict[int, float]:
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return dict(sorted(scores.items(), key=lambda kv: -kv[1]))


def _rrf_scores(order: list[int]) -> dict[int, float]:
    return {item: 1.0 / (RRF_K + rank) for rank, item in enumerate(order, start=1)}


def _load(
    con: sqlite3.Connection,
    ids: list[int],
    coverage: dict[int, float],
    semantic: dict[int, float],
    matched: dict[int, list[str]],
) -> list[Hit]:
    if not ids:
        return []
    marks = ", ".join("?" for _ in ids)
    rows = {r[0]: r for r in con.execute(f"{_SELECT} WHERE d.id IN ({marks})", ids)}
    hits = []
    for i in ids:
        r = rows.get(i)
        if r is None:
            continue
        score = max(coverage.get(i, 0.0), semantic.get(i, 0.0))
        hits.append(_hit(r, score, tuple(matched.get(i, ()))))
    return hits


def _hit(r: Any, score: float = 0.0, matched: tuple[str, ...] = ()) -> Hit:
    """A Hit from a `_SELECT` row."""
    return Hit(
        id=int(r[0]),
        kind=r[1],
        session=r[2],
        agent=r[3],
        path=r[4],
        line=int(r[5]),
        end_line=int(r[6]),
        ts=r[7],
        branch=r[8],
        title=r[9],
        body=r[10],
        score=score,
        matched=matched,
    )


def _tie_break(hits: list[Hit], strength: dict[int, float]) -> list[Hit]:
    """By strength; within 1 % of each other (same text in several sessions), newest first."""
    best = max((strength.get(h.id, 0.0) for h in hits), default=0.0) or 1.0

    def key(h: Hit) -> tuple[float, str]:
        return (-round(strength.get(h.id, 0.0) / best, 2), _neg(h.ts))

    return sorted(hits, key=key)


def _neg(ts: str) -> str:
    """A sort key putting later ISO times first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in ts) if ts else "\U0010ffff"


def _with_snippet(con: sqlite3.Connection, hit: Hit, expr: str) -> Hit:
    row = con.execute(
        f"SELECT snippet(fts, -1, ?, ?, '…', {SNIPPET_TOKENS}) FROM fts "
        "WHERE fts MATCH ? AND rowid = ?",
        (*MARK, expr, hit.id),
    ).fetchone()
    snippet = row[0] if row and row[0] else hit.body[:200]
    return Hit(**{**_fields(hit), "snippet": " ".join(snippet.split())})


def _fields(hit: Hit) -> dict[str, Any]:
    return {name: getattr(hit, name) for name in hit.__dataclass_fields__}


def neighbours(con: sqlite3.Connection, hit_id: int, around: int = 2) -> list[Hit]:
    """The moments just before and after one, in the same file (`recall show`)."""
    row = con.execute("SELECT source, line FROM docs WHERE id = ?", (hit_id,)).fetchone()
    if row is None:
        return []
    source, line = row
    before = con.execute(
        f"{_SELECT} WHERE d.source = ? AND (d.line < ? OR (d.line = ? AND d.id < ?)) "
        "ORDER BY d.line DESC, d.id DESC LIMIT ?",
        (source, line, line, hit_id, around),
    ).fetchall()
    after = con.execute(
        f"{_SELECT} WHERE d.source = ? AND (d.line > ? OR (d.line = ? AND d.id >= ?)) "
        "ORDER BY d.line, d.id LIMIT ?",
        (source, line, line, hit_id, around + 1),
    ).fetchall()
    return [_hit(r) for r in [*reversed(before), *after]]


def find_ref(con: sqlite3.Connection, text: str) -> list[int]:
    """The moments a `ref` names (see `ref`); a session's first characters are enough, and a
    moment that spans lines (a call to its result, a failure to its fix) is named by either."""
    name, _, line = text.strip().rpartition(":")
    if not name or not line.isdigit():
        return []
    head, dot, ext = name.partition(".")
    like = head.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%/{like}%.{ext}" if dot else f"%/{like}%.jsonl"
    rows = con.execute(
        "SELECT d.id FROM docs d JOIN sources s ON s.id = d.source "
        "WHERE ? IN (d.line, d.end_line) AND s.path LIKE ? ESCAPE '\\' "
        "ORDER BY d.line != ?, d.id",  # a moment that starts there first
        (int(line), pattern, int(line)),
    ).fetchall()
    return [int(r[0]) for r in rows]
