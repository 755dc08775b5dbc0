#!/usr/bin/env python3
"""Recall quality on three question sets, asked as a person and as an agent asks (#38).

Makes recall's quality figures README.md and docs/RECALL.md quote.

    python bench/recall_eval.py                   # every set, every method
    python bench/recall_eval.py --set dev -v      # one set, each question's outcome
    python bench/recall_eval.py --set dev,old --ablate   # each piece of the ranking off/on
    python bench/recall_eval.py --model DIR       # fused: BM25 and a local model2vec model
    python bench/recall_eval.py --sentence-transformer DIR   # fused with a transformer, for
                                                       # comparison (sentence-transformers)
    python bench/recall_eval.py --set dev --diagnose   # why each miss missed, what each
                                                       # confidence threshold lets by (not on blind)

| set | questions | corpus | used for |
|---|---|---|---|
| old (`recall_questions.json`) | 35 + 8, by the developers of #17 | public | tuning (>= 0.85) |
| dev (`recall_dev.json`) | 95 + 42, written blind by helpers of #27 | modern | tuning |
| blind (`recall_blind.json`) | 136 + 17, written blind by another helper | modern | figure only |

(public and modern: ../shared/transcripts/public and ../shared/transcripts/modern;
CCSTATE_SHARED names the shared folder elsewhere, as for the tests.) The
blind set's questions and per-question outcomes are not read by whoever tunes recall; it is
run to report a figure, never to choose anything.

A corpus's transcripts are laid out as one project's sessions
(`<home>/.claude/projects/<slug>/<session>.jsonl`) and indexed the way
`ccstate recall --reindex` does (and its moment vectors computed, as `ccstate recall` does
after an update, when `--model` names a model). A question names the session and the
transcript lines that answer it; it scores at rank r when the r-th hit is of that session and
holds one of the lines (the line of its record, or where a fix passed).

Per set and method: hit@1, hit@3, hit@5 and MRR (top 10) of the natural question; `keywords
hit@3`: the union of the top 3 of the two keyword queries per question that a writer who saw
only the question texts typed as an agent would (`recall_keyword_queries.json`, beside the
sets), hitting; the no-answer questions whose first hit is `strong` (and those with any hit);
the tokens (cl100k) of the text `ccstate recall QUESTION` prints for the 5 hits, mean and
largest over the set's questions.

Methods, side by side on the same questions:
- `fts5-records`: plain SQLite FTS5 (`unicode61`, `bm25()`, no floor) over every transcript
  record's text, one document per line: what an FTS5 query over the raw transcripts gives;
- `fts5-moments`: the same plain `bm25()` over recall's moments (title and body);
- `bm25`: `ccstate recall` without an embedding model (what it serves by default);
- `fused`: `ccstate recall` with the model (`--model`, default `recall.embedding_model`'s
  default) fused with BM25 by reciprocal rank fusion; not run when there is no model.
All four get the same words (`text.query_terms`). `--ablate` adds a `bm25` row per piece of
the ranking (`search.ALL_PIECES`), that piece turned off (or on, for one that is off). The
exit status is 1 when the old set falls below #17's floor (hit@3 of what recall serves >=
0.80, most no-answer questions without a strong first hit).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ccstate import tokens  # noqa: E402
from ccstate.config import defaults  # noqa: E402
from ccstate.recall import confidence, embed, index, render, search, sources, writer  # noqa: E402
from ccstate.recall.text import fts_phrase, query_terms  # noqa: E402
from ccstate.secrets import redact  # noqa: E402

SHARED = (
    Path(os.environ["CCSTATE_SHARED"])
    if os.environ.get("CCSTATE_SHARED")
    else next(  # ../shared beside the repo, or beside the folder of a worktree
        (p for p in (REPO.parent / "shared", REPO.parent.parent / "shared") if p.is_dir()),
        REPO.parent / "shared",
    )
) / "transcripts"
BENCH = Path(__file__).parent
SETS = {
    "old": (BENCH / "recall_questions.json", SHARED / "public"),
    "dev": (BENCH / "recall_dev.json", SHARED / "modern"),
    "blind": (BENCH / "recall_blind.json", SHARED / "modern"),
}
KEYWORDS = BENCH / "recall_keyword_queries.json"
METHODS = ("fts5-records", "fts5-moments", "bm25", "fused")
TOP = 3
DEPTH = 10  # hits looked at for MRR
SHOWN = 5  # hits `ccstate recall` prints by default (the tokens per call)
THRESHOLDS = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)  # --diagnose: strong at each


@dataclass
class Question:
    text: str
    wanted: list[tuple[str, int]]  # (session or its prefix, line)
    keywords: list[str] = field(default_factory=list)  # an agent's two keyword queries


@dataclass
class QuestionSet:
    name: str
    questions: list[Question]
    none: list[str]


def load_set(name: str, path: Path) -> QuestionSet:
    """Both formats: #17's (`session` a prefix or a list, `none` strings) and the blind
    writers' (`file`, `session`, `lines`, ...; `none` objects with `q`)."""
    spec = json.loads(path.read_text(encoding="utf-8"))
    questions = []
    for item in spec["questions"]:
        sessions = item["session"]
        if isinstance(sessions, list):
            wanted = list(zip(sessions, item["lines"], strict=True))
        else:
            wanted = [(sessions, int(line)) for line in item["lines"]]
        questions.append(Question(item["q"], wanted))
    none = [n["q"] if isinstance(n, dict) else str(n) for n in spec["none"]]
    for n, queries in keyword_queries(name).items():
        if n < len(questions):
            questions[n].keywords = queries
    return QuestionSet(name, questions, none)


def keyword_queries(name: str, path: Path = KEYWORDS) -> dict[int, list[str]]:
    """{question index: its keyword queries} for set `name` (none when the file is absent)."""
    if not path.is_file():
        return {}
    entries = json.loads(path.read_text(encoding="utf-8"))["queries"]
    return {
        int(e["index"]): list(e["queries"])
        for e in entries
        if e["set"] == name and e["part"] == "questions"
    }


def lay_out(corpus: Path, projects: Path) -> list[Path]:
    """`Owner__repo__<session>.jsonl` -> `projects/-corpus/<session>.jsonl` (one project)."""
    folder = projects / "-corpus"
    folder.mkdir(parents=True)
    out = []
    for source in sorted(corpus.glob("*.jsonl")):
        target = folder / (source.stem.split("__")[-1] + ".jsonl")
        shutil.copyfile(source, target)
        out.append(target)
    return out


# ----------------------------------------------------------------------- rankers


class Found(NamedTuple):
    session: str
    lines: frozenset[int]
    strong: bool | None = None  # recall's confidence; None for plain FTS5


Ranked = list[Found]  # best first


def _hit_lines(hit: search.Hit) -> frozenset[int]:
    lines = {hit.line, hit.end_line}
    return frozenset(x for x in lines if x)


def found(hits: list[search.Hit]) -> Ranked:
    return [Found(h.session, _hit_lines(h), h.confidence == "strong") for h in hits]


def recall_ranker(
    con: sqlite3.Connection, embedder: Any, pieces: frozenset[str] = search.PIECES
) -> Callable[[str], Ranked]:
    def rank(text: str) -> Ranked:
        query = search.Query(text, limit=DEPTH, pieces=pieces)
        return found(search.search(con, query, embedder))

    return rank


def printed_tokens(con: sqlite3.Connection, embedder: Any) -> Callable[[str], int]:
    """The tokens (cl100k) of what `ccstate recall QUESTION` prints: its 5 hits, or the line
    saying why there are none."""

    def count(text: str) -> int:
        hits = search.search(con, search.Query(text, limit=SHOWN), embedder)
        if hits:
            out = render.hits_text(text, hits)
        else:
            out = render.nothing_text(text, *search.searchable(con, text), filtered=False)
        return tokens.count_tokens(out)[0]

    return count


def plain_fts(docs: list[tuple[str, frozenset[int], str]]) -> Callable[[str], Ranked]:
    """Plain FTS5 (`unicode61`, `bm25()`, every match ranked, no floor) over (session, lines,
    text) documents, queried with the same words as recall."""
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    con.executemany(
        "INSERT INTO t(rowid, body) VALUES (?, ?)", [(n, d[2]) for n, d in enumerate(docs)]
    )

    def rank(text: str) -> Ranked:
        terms = query_terms(text)
        if not terms:
            return []
        expr = " OR ".join(fts_phrase(t) for t in terms)
        rows = con.execute(
            f"SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT {DEPTH}", (expr,)
        ).fetchall()
        return [Found(docs[r[0]][0], docs[r[0]][1]) for r in rows]

    return rank


def record_docs(files: list[Path]) -> list[tuple[str, frozenset[int], str]]:
    """Every transcript line's text (messages, tool calls and results, attachments, notices)."""
    docs = []
    for path in files:
        with path.open(encoding="utf-8", errors="replace") as fh:
            for number, raw in enumerate(fh, start=1):
                try:
                    record = json.loads(raw)
                except ValueError:
                    continue
                text = " ".join(_strings(record.get("message") or record.get("attachment") or {}))
                text += " " + " ".join(
                    str(record[k])
                    for k in ("content", "summary", "aiTitle", "customTitle")
                    if isinstance(record.get(k), str)
                )
                if text.strip():
                    docs.append((path.stem, frozenset({number}), text))
    return docs


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in ("id", "tool_use_id", "signature", "type", "role", "model", "usage"):
                yield from _strings(v)


def moment_docs(con: sqlite3.Connection) -> list[tuple[str, frozenset[int], str]]:
    """Recall's moments as documents, each holding its lines as recall's hits do (a tool's
    call and result, a fix's failure and success)."""
    return [
        (session, frozenset(n for n in (line, end) if n), f"{title}\n{body}")
        for session, line, end, title, body in con.execute(
            "SELECT session, line, end_line, title, body FROM docs ORDER BY id"
        )
    ]


# ----------------------------------------------------------------------- scoring


@dataclass
class Score:
    hit1: int = 0
    hit3: int = 0
    hit5: int = 0
    rr: float = 0.0
    questions: int = 0
    keywords: int = 0  # questions whose keyword queries' top 3s hold an answer
    asked: int = 0  # questions with keyword queries
    nones: int = 0
    noisy: int = 0  # no-answer questions with a hit in the top 3
    strong: int = 0  # no-answer questions whose first hit is strong
    judged: bool = False  # the method says strong or weak (recall does, plain FTS5 not)
    tokens: list[int] = field(default_factory=list)  # per call, when counted

    def row(self, method: str) -> str:
        n = self.questions or 1
        kw = f"{self.keywords / (self.asked or 1):.2f}" if self.asked else "-"
        strong = f"{self.strong}/{self.nones}" if self.judged else "n/a"
        out = (
            f"  {method:18} hit@1 {self.hit1 / n:.2f}  hit@3 {self.hit3 / n:.2f} "
            f"({self.hit3}/{self.questions})  hit@5 {self.hit5 / n:.2f}  MRR {self.rr / n:.2f}"
            f"  keywords hit@3 {kw}  no-answer: strong first {strong}, "
            f"with a hit {self.noisy}/{self.nones}"
        )
        if self.tokens:
            mean = sum(self.tokens) / len(self.tokens)
            out += f"  tokens/call {mean:.0f} (max {max(self.tokens)})"
        return out

    def figures(self) -> dict[str, Any]:
        n = self.questions or 1
        return {
            "hit_at_1": round(self.hit1 / n, 3),
            "hit_at_3": round(self.hit3 / n, 3),
            "hit_at_5": round(self.hit5 / n, 3),
            "mrr": round(self.rr / n, 3),
            "questions": self.questions,
            "keywords_hit_at_3": round(self.keywords / self.asked, 3) if self.asked else None,
            "none_with_hit": self.noisy,
            "none_strong_first": self.strong if self.judged else None,
            "none": self.nones,
            "tokens_per_call": round(sum(self.tokens) / len(self.tokens)) if self.tokens else None,
            "tokens_max": max(self.tokens) if self.tokens else None,
        }


def rank_of(
    ranked: Ranked | list[tuple[str, frozenset[int]]], wanted: list[tuple[str, int]]
) -> int:
    """1-based rank of the first hit holding an answering line; 0 when none does."""
    for rank, hit in enumerate(ranked, start=1):
        session, lines = hit[0], hit[1]
        if any(session.startswith(s) and line in lines for s, line in wanted):
            return rank
    return 0


def score(
    qs: QuestionSet,
    rank: Callable[[str], Ranked],
    log: list[str] | None,
    count: Callable[[str], int] | None = None,
) -> Score:
    out = Score(questions=len(qs.questions), nones=len(qs.none))
    for q in qs.questions:
        r = rank_of(rank(q.text), q.wanted)
        out.hit1 += r == 1
        out.hit3 += 0 < r <= TOP
        out.hit5 += 0 < r <= 5
        out.rr += 1.0 / r if r else 0.0
        if q.keywords:
            union = [hit for words in q.keywords for hit in rank(words)[:TOP]]
            out.asked += 1
            out.keywords += rank_of(union, q.wanted) > 0
        if count is not None:
            out.tokens.append(count(q.text))
        if log is not None:
            log.append(f"    {'hit ' if 0 < r <= TOP else 'MISS'} r={r or '-':<2} {q.text}")
    for text in qs.none:
        got = rank(text)[:TOP]
        out.noisy += bool(got)
        out.judged = out.judged or any(h[2] is not None for h in got if len(h) > 2)
        out.strong += bool(got) and len(got[0]) > 2 and bool(got[0][2])
        if count is not None:
            out.tokens.append(count(text))
        if log is not None:
            state = (
                "STRONG" if got and len(got[0]) > 2 and got[0][2] else "weak  " if got else "none  "
            )
            log.append(f"    {state} {text}")
    return out


# ----------------------------------------------------------------------- diagnosis


def diagnose(
    qs: QuestionSet, con: sqlite3.Connection, embedder: Any, log: list[str]
) -> dict[str, int]:
    """Each miss of what recall serves, as (a) not indexed: no moment holds an answering line,
    (b) ranked below 3: a moment holds one, and ranks lower (its rank among 100, or none)."""
    classes = {"a-not-indexed": 0, "b-ranked-below-3": 0}
    for q in qs.questions:
        hits = search.search(con, search.Query(q.text, limit=DEPTH), embedder)
        if 0 < rank_of(found(hits), q.wanted) <= TOP:
            continue
        held = any(
            con.execute(
                "SELECT 1 FROM docs WHERE session LIKE ? AND ? IN (line, end_line)",
                (session + "%", line),
            ).fetchone()
            for session, line in q.wanted
        )
        deep = search.search(con, search.Query(q.text, limit=100), embedder)
        r = rank_of(found(deep), q.wanted)
        why = "b-ranked-below-3" if held else "a-not-indexed"
        classes[why] += 1
        log.append(f"    {why:18} r(of 100)={r or '-':<3} {q.text}")
    return classes


def confidence_table(
    qs: QuestionSet, con: sqlite3.Connection, embedder: Any, thresholds: tuple[float, ...]
) -> list[str]:
    """What each threshold for `strong` would make of the set: no-answer questions whose first
    hit is strong, and answered questions whose first hit is strong and answers (or is
    strong and wrong)."""
    out = ["  confidence: at each threshold, first hits that are strong"]
    kept = confidence.STRONG
    try:
        for t in thresholds:
            confidence.STRONG = t
            right = wrong = noisy = 0
            for q in qs.questions:
                hits = search.search(con, search.Query(q.text, limit=DEPTH), embedder)
                if hits and hits[0].confidence == "strong":
                    answers = rank_of(found(hits[:1]), q.wanted) == 1
                    right += answers
                    wrong += not answers
            for text in qs.none:
                hits = search.search(con, search.Query(text, limit=DEPTH), embedder)
                noisy += bool(hits) and hits[0].confidence == "strong"
            out.append(
                f"    at {t:.2f}: answering {right}/{len(qs.questions)}, wrong {wrong}, "
                f"no-answer {noisy}/{len(qs.none)} ({noisy / (len(qs.none) or 1):.0%})"
                + ("  <- STRONG" if abs(t - kept) < 1e-9 else "")
            )
    finally:
        confidence.STRONG = kept
    return out


# ----------------------------------------------------------------------- main


class Transformer:
    """A sentence-transformers model where recall takes a static one (`embed.Model`'s
    `encode`): the comparison `--sentence-transformer` makes, what a real transformer adds
    over a static model at many times the indexing cost. Not something recall can load."""

    def __init__(self, folder: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise SystemExit(
                "--sentence-transformer needs sentence-transformers: pip install "
                "sentence-transformers (and a model folder on disk: nothing is downloaded)"
            ) from None
        self.folder = Path(folder)
        self.fingerprint = f"sentence-transformers:{self.folder.resolve()}"
        self._model = SentenceTransformer(str(self.folder), device="cpu", local_files_only=True)

    def encode(self, texts: list[str]) -> Any:
        import numpy as np

        vectors = self._model.encode(texts, batch_size=64, normalize_embeddings=True)
        return np.asarray(vectors, dtype=np.float32)


def load(model: str) -> Any:
    """`--model DIR` as recall loads it, or `st:DIR` (`--sentence-transformer`)."""
    if model.startswith("st:"):
        return Transformer(model[3:])
    return embed.load_model(model, REPO)


def build(corpus: Path, work: Path, model: str) -> tuple[sqlite3.Connection, list[Path], Any]:
    """The corpus indexed as `ccstate recall --reindex` does; the model's vectors when named."""
    files = lay_out(corpus, work / "projects")
    con = index.connect(work / "state")
    started = time.monotonic()
    report = writer.update(
        con,
        [sources.transcript_source(f) for f in files],
        redactor=redact.Redactor(),
        max_bytes=1 << 30,
        jobs=min(2, os.cpu_count() or 1),
    )
    embedder = None
    without = index.used_bytes(con)
    if model:  # as recall.update does after an update, and the CLI before a query
        loaded = load(model)
        embed.update_vectors(con, loaded)
        embedder = embed.Embedder(loaded)
    size = f"index {without / 1e6:.1f} MB"
    if model:  # #27.4: the vectors add at most 50 % to the index
        grown = index.used_bytes(con) - without
        size += f" + vectors {grown / 1e6:.1f} MB ({grown / max(without, 1):.0%})"
    print(
        f"  {report.moments} moments from {len(files)} transcripts of {corpus}, "
        f"indexed in {time.monotonic() - started:.1f}s; {size}; "
        f"model {model or 'none (BM25 alone)'}"
    )
    return con, files, embedder


def rankers(
    con: sqlite3.Connection, files: list[Path], embedder: Any, ablate: bool = False
) -> dict[str, Callable[[str], Ranked]]:
    out = {
        "fts5-records": plain_fts(record_docs(files)),
        "fts5-moments": plain_fts(moment_docs(con)),
        "bm25": recall_ranker(con, None),
    }
    if embedder is not None:
        out["fused"] = recall_ranker(con, embedder)
    if ablate:
        for piece in sorted(search.ALL_PIECES):
            on = piece in search.PIECES
            pieces = search.PIECES - {piece} if on else search.PIECES | {piece}
            out[f"bm25 {'-' if on else '+'}{piece}"] = recall_ranker(con, None, pieces)
        out["bm25 (no piece)"] = recall_ranker(con, None, frozenset())
    return out


def holds_floor(old: dict[str, Score]) -> bool:
    """#17's floor on the old set, for what recall serves (fused with a model, else BM25)."""
    served = old.get("fused") or old["bm25"]
    return served.hit3 >= 0.8 * served.questions and served.strong * 2 < served.nones


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="old,dev,blind", help="old, dev, blind, comma-separated")
    parser.add_argument(
        "--model", default=None, help='recall.embedding_model (default: its default); "" for none'
    )
    parser.add_argument(
        "--sentence-transformer",
        metavar="DIR",
        help="fuse a sentence-transformers model folder instead of --model (a comparison)",
    )
    parser.add_argument("--ablate", action="store_true", help="a bm25 row per piece toggled")
    parser.add_argument("-v", "--verbose", action="store_true", help="each question's outcome")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="why each miss missed, what each confidence threshold does (old and dev only)",
    )
    args = parser.parse_args(argv)
    names = [s.strip() for s in args.set.split(",") if s.strip()]
    if unknown := [n for n in names if n not in SETS]:
        parser.error(f"--set: no set {', '.join(unknown)} (old, dev, blind)")
    model = str(defaults()["recall.embedding_model"]) if args.model is None else args.model
    if args.sentence_transformer:
        model = f"st:{args.sentence_transformer}"
    figures: dict[str, Any] = {"model": model}
    corpora: dict[Path, tuple[sqlite3.Connection, list[Path], Any]] = {}
    ok = True
    with tempfile.TemporaryDirectory(prefix="ccstate-recall-eval-") as tmp:
        for name in names:
            path, corpus = SETS[name]
            if not path.is_file() or not corpus.is_dir():
                print(f"{name}: skipped ({path.name} or {corpus} absent)")
                continue
            qs = load_set(name, path)
            print(f"{name}: {len(qs.questions)} questions + {len(qs.none)} no-answer ({path.name})")
            if corpus not in corpora:
                corpora[corpus] = build(corpus, Path(tmp) / corpus.name, model)
            con, files, embedder = corpora[corpus]
            results = evaluate(qs, con, files, embedder, args.ablate, args.verbose)
            figures[name] = {method: result.figures() for method, result in results.items()}
            ok = ok and (name != "old" or holds_floor(results))
            if args.diagnose and name == "blind":  # the blind set is never looked into
                print("  --diagnose: not on the blind set (figure only)")
            elif args.diagnose:
                lines: list[str] = []
                print(f"  misses: {diagnose(qs, con, embedder, lines)}")
                print("\n".join(confidence_table(qs, con, embedder, THRESHOLDS)))
                if args.verbose:
                    print("\n".join(lines))
        for con, _files, _embedder in corpora.values():
            con.close()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0 if ok else 1


def evaluate(
    qs: QuestionSet,
    con: sqlite3.Connection,
    files: list[Path],
    embedder: Any,
    ablate: bool,
    verbose: bool,
) -> dict[str, Score]:
    """Every method's score on one set, each printed as a row (tokens for what recall serves)."""
    results: dict[str, Score] = {}
    served = "fused" if embedder is not None else "bm25"
    for method, rank in rankers(con, files, embedder, ablate).items():
        log: list[str] | None = [] if verbose else None
        count = printed_tokens(con, embedder) if method == served else None
        results[method] = score(qs, rank, log, count)
        print(results[method].row(method))
        if log:
            print("\n".join(log))
    if embedder is None:
        print("  fused              not run: no embedding model (bm25 is what recall serves)")
    return results


if __name__ == "__main__":
    sys.exit(main())
