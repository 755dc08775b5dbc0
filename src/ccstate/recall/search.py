"""Rank moments for a question: BM25 over its words, each moment in its turn, a confidence on
every hit, recency for ties (docs/RECALL.md "Ranking").

1. The question's content words (`text.query_terms`: stop words dropped; quoted phrases,
   identifiers and paths kept whole; FTS5's porter stemmer reads `pulls` as `pull`) are
   OR-ed as FTS5 phrases. A question that names something (`Sentry`: a capitalised word past
   a sentence's start) no moment mentions, or none of whose words any moment holds (or only
   words common to most of the index), has nothing relevant here: nothing comes back.
2. FTS5 ranks the moments holding a rare word by BM25 over three columns: title (a path, a
   command, a decision's title) weighs `TITLE_WEIGHT`, the body 1, identifier parts
   `PARTS_WEIGHT`; a mild prior by kind and the answer shape the question asks for
   (`shapes.py`) multiply it.
3. The pieces in `Query.pieces` (`PIECES` by default; `bench/recall_eval.py --ablate` turns
   each off): `turn` counts the question's words the rest of a moment's turn holds
   (`context.py`); `failure` lifts the moments recording a failure for a question about
   one (`shapes.py`); `prf` (off) searches the words the best first hits share with the
   question's and fuses that ranking with its own (`feedback.py`); the sub-queries
   (`subqueries.py`, off) rank keyword queries made of the question and fuse the rankings;
   `strong-first` puts the strong hits among the first ten ahead of the weak ones
   (`confidence.py`).
4. Every hit is returned with its confidence (`strong` / `weak`) and the words it matches;
   no floor drops one. Hits in a row within 1 % of each other's strength go newest first.
   An optional embedding model adds a ranking fused by RRF (`embed.py`).
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ccstate.recall import confidence, context, feedback, hits, shapes, subqueries
from ccstate.recall.hits import Hit
from ccstate.recall.text import fts_phrase, names, query_terms

if TYPE_CHECKING:
    from ccstate.recall.embed import Embedder

TITLE_WEIGHT = 2.0
BODY_WEIGHT = 1.0
PARTS_WEIGHT = 0.5
CANDIDATES = 100  # ranked by BM25 for each (sub-)query
MAX_TERMS = 32  # a longer question is searched for its first this many words
# With an embedding model, BM25's best PINNED candidates that match at least PIN_COVERAGE of
# the question keep their places ahead of the fused ranking (bench/recall_eval.py).
PINNED = 3
PIN_COVERAGE = 0.8
DF_CAP = 5000  # a term in more documents than this counts as this common (bounded cost)
SNIPPET_TOKENS = 16
# A question about past work is best answered by what someone wrote about it (the
# assistant's explanation, a fix, a decision, a prompt) before raw output (a command, an
# edit): a mild prior on BM25, measured with bench/recall_eval.py (docs/RECALL.md).
PRIOR = {"answer": 1.3, "fix": 1.2, "decision": 1.3, "handoff": 1.1, "prompt": 1.1}
# A question that asks for a size, a duration, a version or an address lifts the candidates
# whose text holds one (`shapes.py`), measured with bench/recall_eval.py (docs/RECALL.md).
SHAPE_BOOST = 1.3
MARK = ("**", "**")
# The ranking's pieces (#38), each measured on its own (docs/RECALL.md); the sub-queries
# `subqueries.KINDS` did not earn a place and are off; pseudo-relevance feedback (`prf`) met
# the rule on dev and old but gained nothing on the blind set for 10-15 ms a query: off.
PIECES = frozenset({"turn", "strong-first", "failure"})
ALL_PIECES = frozenset({*PIECES, *subqueries.KINDS, feedback.KIND})


@dataclass(frozen=True)
class Query:
    text: str
    limit: int = 5
    since: str = ""  # ISO date or time: moments at or after it
    session: str = ""  # a session id or its prefix
    kinds: tuple[str, ...] = ()
    pieces: frozenset[str] = PIECES


@dataclass
class _Ranked:
    """One question's candidates as they are ranked: words, weights, what each holds."""

    terms: list[str]
    weight: dict[str, float]
    order: list[int]
    strength: dict[int, float]
    held: dict[int, list[str]]


def search(con: sqlite3.Connection, query: Query, embedder: Embedder | None = None) -> list[Hit]:
    """The best hits for `query`, at most `query.limit`, each with its confidence."""
    ranked = _rank(con, query)
    if ranked is None or not (ranked.order or embedder):
        return []
    order, semantic = ranked.order, dict[int, float]()
    if embedder is not None:
        order, semantic = _fused(con, query, ranked, embedder)
        ranked.strength = {i: 1.0 / (subqueries.RRF_K + r) for r, i in enumerate(order, 1)}
    order = order[: max(query.limit, confidence.WINDOW)]
    _hold(con, ranked, order)
    share = {i: confidence.share(ranked.held[i], ranked.weight) for i in order}
    strong_first = "strong-first" in query.pieces
    if strong_first:
        order = confidence.strong_first(order, share)
    found = [
        h.but(
            score=max(share[h.id], semantic.get(h.id, 0.0)),
            matched=confidence.rarest_first(ranked.held[h.id], ranked.weight),
            confidence=confidence.label(share[h.id]),
        )
        for h in hits.load(con, order)
    ]
    found = _tie_break(found, ranked.strength, strong_first)[: query.limit]
    marked = " OR ".join(fts_phrase(t) for t in ranked.terms)
    return [_with_snippet(con, h, marked) for h in found]


def _rank(con: sqlite3.Connection, query: Query) -> _Ranked | None:
    """The question's candidates ranked by BM25 (with the turn, feedback and the sub-queries
    fused): none when no moment shares a rare word with it; None when it has no words or
    names what no moment mentions."""
    terms = query_terms(query.text)[:MAX_TERMS]
    if not terms:
        return None
    where, params = _filters(query)
    total, found = _doc_counts(con, terms)
    if _unmentioned(con, query.text, found):
        return None  # a name no moment mentions: the project never did this
    weight = confidence.weights(terms, found, total)
    rare = confidence.rare(terms, found, total)  # none: only common words, or none held
    shaped = tuple(  # `failure`: the shape #38 added, a piece to measure like the others
        s for s in shapes.asked(query.text) if s != "failure" or "failure" in query.pieces
    )
    expr = _match_expr(terms, rare)
    strength, holding = _candidates(con, expr, where, params, shaped) if rare else ({}, {})
    ranked = _Ranked(terms, weight, list(strength), strength, {})
    if not strength:
        return ranked
    _hold(con, ranked, ranked.order, holding)
    if "turn" in query.pieces:  # the moments holding each rare word (few: cheap to read)
        posted = {t: confidence.postings(con, t) for t in rare if found[t] < DF_CAP}
        turn = context.turn_words(con, ranked.order, posted)
        strength = context.weigh(strength, ranked.held, turn, weight)
    rankings: list[dict[int, float]] = [strength]
    weights = [1.0]  # the question's ranking, then the feedback's and sub-queries' (fused)
    if feedback.KIND in query.pieces:
        fusion = (rankings, weights)
        strength = _feedback(con, query, (terms, rare), total, strength, fusion, shaped)
    for expr in subqueries.build(terms, found, query.pieces):
        rankings.append(_candidates(con, expr, where, params, shaped)[0])
        weights.append(subqueries.SUB_WEIGHT)
    if len(rankings) > 1:
        strength = subqueries.fuse(rankings, weights)
    ranked.order, ranked.strength = list(strength), dict(strength)
    return ranked


def _feedback(
    con: sqlite3.Connection,
    query: Query,
    asked: tuple[list[str], list[str]],
    total: int,
    strength: dict[int, float],
    fused: tuple[list[dict[int, float]], list[float]],
    shaped: tuple[str, ...],
) -> dict[int, float]:
    """`prf` (`feedback.py`): the words characteristic of the best `feedback.DOCS` moments
    searched with the question's (`asked`: its words, its rare ones), that ranking added to
    `fused`'s rankings at `feedback.WEIGHT` (or, `feedback.MODE` "add", BM25 over them added
    to `strength`). The question's words, and so every hit's confidence, stay as they were."""
    terms, rare = asked
    words = feedback.terms(con, list(strength)[: feedback.DOCS], terms, total)
    if not words:
        return strength
    where, params = _filters(query)
    rankings, weights = fused
    if feedback.MODE == "add":
        expanded = _candidates(con, feedback.expression(words), where, params, shaped)[0]
        strength = feedback.add(strength, expanded)
        rankings[0] = strength
        return strength
    expr = _match_expr([*terms, *words], [*rare, *words])
    rankings.append(_candidates(con, expr, where, params, shaped)[0])
    weights.append(feedback.WEIGHT)
    return strength


def _hold(
    con: sqlite3.Connection,
    ranked: _Ranked,
    ids: list[int],
    holding: dict[int, tuple[str, ...]] | None = None,
) -> None:
    """Note which of the question's words each of `ids` holds (a moment holding a figure of
    an asked shape holds its asking words: `412 kB` answers "how big")."""
    todo = [i for i in ids if i not in ranked.held]
    for i, words in confidence.matched(con, ranked.terms, todo).items():
        asking = shapes.asking(ranked.terms, (holding or {}).get(i, ()))
        ranked.held[i] = words + [t for t in asking if t not in words]


def _fused(
    con: sqlite3.Connection, query: Query, ranked: _Ranked, embedder: Embedder
) -> tuple[list[int], dict[int, float]]:
    """BM25's order fused with the model's (RRF); BM25's best `PINNED` that match at least
    `PIN_COVERAGE` of the question keep their places; a moment only the model found needs
    its cosine to reach the model's floor."""
    where, params = _filters(query)
    semantic = embedder.rank(con, query.text, where, params, CANDIDATES)
    head = ranked.order[:PINNED]
    _hold(con, ranked, head)
    pinned = [i for i in head if confidence.share(ranked.held[i], ranked.weight) >= PIN_COVERAGE]
    fused = subqueries.fuse([ranked.order, list(semantic)])
    lexical = set(ranked.order)
    order = pinned + [
        i
        for i in fused
        if i not in pinned and (i in lexical or semantic.get(i, 0.0) >= embedder.floor)
    ]
    return order, semantic


def unmentioned(con: sqlite3.Connection, text: str) -> list[str]:
    """The names the question uses (`text.names`) that no moment mentions: why it has no
    answer here (`ccstate recall` says so)."""
    return _unmentioned(con, text, {})


def _unmentioned(con: sqlite3.Connection, text: str, found: dict[str, int]) -> list[str]:
    named = names(text)[:MAX_TERMS]
    missing = [n for n in named if n not in found]
    counts = {**found, **(_doc_counts(con, missing)[1] if missing else {})}
    return [name for name in named if counts[name] == 0]


def searchable(con: sqlite3.Connection, text: str) -> tuple[list[str], list[str]]:
    """(the question's words no moment holds, those only common ones): why a question with
    words gets nothing (`ccstate recall` says which)."""
    terms = query_terms(text)[:MAX_TERMS]
    total, found = _doc_counts(con, terms)
    absent = [t for t in terms if found[t] == 0]
    return absent, [t for t in terms if found[t] and t not in confidence.rare(terms, found, total)]


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


def _match_expr(terms: list[str], rare: list[str]) -> str:
    """`(rare OR ...) AND (every term OR ...)`: only moments holding a rare word are scored
    (a common one would make FTS5 score most of the index for little information), on
    every term (the rare ones count twice: they weigh most anyway)."""
    everything = " OR ".join(fts_phrase(t) for t in terms)
    if len(rare) == len(terms):
        return everything
    return f"({' OR '.join(fts_phrase(t) for t in rare)}) AND ({everything})"


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


def _tie_break(found: list[Hit], strength: dict[int, float], strong_first: bool) -> list[Hit]:
    """`found` in its order (ranked, the strong ones first when `strong_first` put them
    there), but hits in a row within 1 % of the strength of the run's first (the same text
    in several sessions) newest first."""
    out: list[Hit] = []
    run: list[Hit] = []
    run_group = False
    for n, hit in enumerate(found):
        group = strong_first and hit.confidence == "strong" and n < confidence.WINDOW
        if run and (group != run_group or not _near(strength, run[0].id, hit.id)):
            out += sorted(run, key=lambda h: _neg(h.ts))
            run = []
        if not run:
            run_group = group
        run.append(hit)
    return out + sorted(run, key=lambda h: _neg(h.ts))


def _near(strength: dict[int, float], first: int, other: int) -> bool:
    a, b = strength.get(first, 0.0), strength.get(other, 0.0)
    return abs(a - b) <= subqueries.TIE * max(abs(a), abs(b))


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
    return hit.but(snippet=" ".join(snippet.split()))


def embedder_floor(embedder: Embedder | None) -> float:
    return embedder.floor if embedder is not None else math.inf
