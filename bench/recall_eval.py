#!/usr/bin/env python3
"""Recall quality on three question sets: hit@1, hit@3, MRR and honest "nothing relevant".

    python bench/recall_eval.py                   # every set, every method
    python bench/recall_eval.py --set dev -v      # one set, each question's outcome
    python bench/recall_eval.py --model DIR       # fused: BM25 and a local model2vec model
    python bench/recall_eval.py --sentence-transformer DIR   # fused with a transformer, for
                                                       # comparison (sentence-transformers)
    python bench/recall_eval.py --set dev --diagnose   # why each miss missed, what the floor
                                                       # sees (not on blind)

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
holds one of the lines (the line of its record, or where a fix passed). A no-answer question
should get nothing: it counts as noise when any hit comes back.

Methods, side by side on the same questions:
- `fts5-records`: plain SQLite FTS5 (`unicode61`, `bm25()`, no floor) over every transcript
  record's text, one document per line: what an FTS5 query over the raw transcripts gives;
- `fts5-moments`: the same plain `bm25()` over recall's moments (title and body);
- `bm25`: `ccstate recall` without an embedding model;
- `fused`: `ccstate recall` with the model (`--model`, default `recall.embedding_model`'s
  default) fused with BM25 by reciprocal rank fusion; not run when there is no model (the
  default is "": `bm25` is then what recall serves).
All four get the same words (`text.query_terms`). The exit status is 1 when the old set falls
below #17's floor (hit@3 of what recall serves >= 0.80, most no-answer questions quiet).
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ccstate import redact  # noqa: E402
from ccstate.config import defaults  # noqa: E402
from ccstate.recall import embed, index, search, sources  # noqa: E402
from ccstate.recall.text import fts_phrase, query_terms  # noqa: E402

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
METHODS = ("fts5-records", "fts5-moments", "bm25", "fused")
TOP = 3
DEPTH = 10  # hits looked at for MRR


@dataclass
class Question:
    text: str
    wanted: list[tuple[str, int]]  # (session or its prefix, line)


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
    return QuestionSet(name, questions, none)


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

Ranked = list[tuple[str, frozenset[int]]]  # (session, the lines a hit holds), best first


def _hit_lines(hit: search.Hit) -> frozenset[int]:
    lines = {hit.line, hit.end_line}
    return frozenset(x for x in lines if x)


def recall_ranker(
    con: sqlite3.Connection, embedder: Any, floor: float | None
) -> Callable[[str], Ranked]:
    def rank(text: str) -> Ranked:
        query = search.Query(text, limit=DEPTH)
        if floor is not None:
            query = search.Query(text, limit=DEPTH, floor=floor)
        return [(h.session, _hit_lines(h)) for h in search.search(con, query, embedder)]

    return rank


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
        return [(docs[r[0]][0], docs[r[0]][1]) for r in rows]

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
    rr: float = 0.0
    questions: int = 0
    noisy: int = 0  # no-answer questions with a hit in the top 3
    nones: int = 0

    def row(self, method: str) -> str:
        n = self.questions or 1
        return (
            f"  {method:13} hit@1 {self.hit1 / n:.2f}  hit@3 {self.hit3 / n:.2f} "
            f"({self.hit3}/{self.questions})  MRR {self.rr / n:.2f}  "
            f"no-answer with a hit {self.noisy}/{self.nones}"
        )

    def figures(self) -> dict[str, float]:
        n = self.questions or 1
        return {
            "hit_at_1": round(self.hit1 / n, 3),
            "hit_at_3": round(self.hit3 / n, 3),
            "mrr": round(self.rr / n, 3),
            "questions": self.questions,
            "none_with_hit": self.noisy,
            "none": self.nones,
        }


def rank_of(ranked: Ranked, wanted: list[tuple[str, int]]) -> int:
    """1-based rank of the first hit holding an answering line; 0 when none does."""
    for rank, (session, lines) in enumerate(ranked, start=1):
        if any(session.startswith(s) and line in lines for s, line in wanted):
            return rank
    return 0


def score(qs: QuestionSet, rank: Callable[[str], Ranked], log: list[str] | None) -> Score:
    out = Score(questions=len(qs.questions), nones=len(qs.none))
    for q in qs.questions:
        ranked = rank(q.text)
        r = rank_of(ranked, q.wanted)
        out.hit1 += r == 1
        out.hit3 += 0 < r <= TOP
        out.rr += 1.0 / r if r else 0.0
        if log is not None:
            log.append(f"    {'hit ' if 0 < r <= TOP else 'MISS'} r={r or '-':<2} {q.text}")
    for text in qs.none:
        got = rank(text)[:TOP]
        out.noisy += bool(got)
        if log is not None:
            log.append(f"    {'NOISE' if got else 'none '} {text}")
    return out


# ----------------------------------------------------------------------- main


def diagnose(
    qs: QuestionSet, con: sqlite3.Connection, embedder: Any, log: list[str]
) -> dict[str, int]:
    """Each miss of what recall serves, as (a) not indexed: no moment holds an answering line,
    (b) ranked below 3 even without the floor, (c) cut by the floor: in the top 3 without it."""
    classes = {"a-not-indexed": 0, "b-ranked-below-3": 0, "c-cut-by-the-floor": 0}
    for q in qs.questions:
        hits = search.search(con, search.Query(q.text, limit=DEPTH), embedder)
        if 0 < rank_of([(h.session, _hit_lines(h)) for h in hits], q.wanted) <= TOP:
            continue
        held = any(
            con.execute(
                "SELECT 1 FROM docs WHERE session LIKE ? AND ? IN (line, end_line)",
                (session + "%", line),
            ).fetchone()
            for session, line in q.wanted
        )
        deep = search.search(con, search.Query(q.text, limit=100, floor=0.0), embedder)
        r = rank_of([(h.session, _hit_lines(h)) for h in deep], q.wanted)
        why = (
            "a-not-indexed"
            if not held
            else "c-cut-by-the-floor"
            if 0 < r <= TOP
            else ("b-ranked-below-3")
        )
        classes[why] += 1
        log.append(f"    {why:18} r(no floor)={r or '-':<3} {q.text}")
    return classes


def floor_scores(
    qs: QuestionSet, con: sqlite3.Connection, embedder: Any
) -> tuple[list[float], list[float]]:
    """What the floor sees, without it: the score (share of the question matched) of each
    answered question's answering hit when it ranks in the top 3, and each no-answer
    question's best score among its top 3 (those with no hit at all are left out)."""
    answered: list[float] = []
    for q in qs.questions:
        hits = search.search(con, search.Query(q.text, limit=DEPTH, floor=0.0), embedder)[:TOP]
        r = rank_of([(h.session, _hit_lines(h)) for h in hits], q.wanted)
        if r:
            answered.append(hits[r - 1].score)
    none = []
    for text in qs.none:
        hits = search.search(con, search.Query(text, limit=DEPTH, floor=0.0), embedder)[:TOP]
        if hits:
            none.append(max(h.score for h in hits))
    return answered, none


def floor_table(
    answered: list[float], none: list[float], floors: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6)
) -> list[str]:
    """Does the floor tell answers from no-answer questions? Quartiles of both kinds of
    score, and at each floor how many answering hits it keeps and no-answer hits it lets by."""

    def quartiles(xs: list[float]) -> str:
        xs = sorted(xs)
        if not xs:
            return "none"
        return " / ".join(f"{xs[min(len(xs) - 1, len(xs) * k // 4)]:.2f}" for k in (1, 2, 3))

    out = [
        f"  floor: answering hits in the top 3 without it: {len(answered)}, score quartiles "
        f"{quartiles(answered)}; no-answer questions with a hit: {len(none)}, best score "
        f"quartiles {quartiles(none)}"
    ]
    for f in floors:
        kept = sum(x >= f for x in answered)
        noisy = sum(x >= f for x in none)
        out.append(
            f"    at {f:.2f}: keeps {kept}/{len(answered)} answering hits, "
            f"lets by {noisy}/{len(none)} no-answer questions"
        )
    return out


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
    report = index.update(
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
    con: sqlite3.Connection, files: list[Path], embedder: Any, floor: float | None
) -> dict[str, Callable[[str], Ranked]]:
    out = {
        "fts5-records": plain_fts(record_docs(files)),
        "fts5-moments": plain_fts(moment_docs(con)),
        "bm25": recall_ranker(con, None, floor),
    }
    if embedder is not None:
        out["fused"] = recall_ranker(con, embedder, floor)
    return out


def holds_floor(old: dict[str, Score]) -> bool:
    """#17's floor on the old set, for what recall serves (fused with a model, else BM25)."""
    served = old.get("fused") or old["bm25"]
    return (
        served.hit3 >= 0.8 * served.questions and (served.nones - served.noisy) * 2 > served.nones
    )


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
    parser.add_argument("--floor", type=float, default=None, help="override the score floor")
    parser.add_argument("-v", "--verbose", action="store_true", help="each question's outcome")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--diagnose", action="store_true", help="why each miss missed (old and dev only)"
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
            results: dict[str, Score] = {}
            for method, rank in rankers(con, files, embedder, args.floor).items():
                log: list[str] | None = [] if args.verbose else None
                results[method] = score(qs, rank, log)
                print(results[method].row(method))
                if log:
                    print("\n".join(log))
            if embedder is None:
                print("  fused         not run: no embedding model (bm25 is what recall serves)")
            figures[name] = {method: result.figures() for method, result in results.items()}
            ok = ok and (name != "old" or holds_floor(results))
            if args.diagnose and name == "blind":  # the blind set is never looked into
                print("  --diagnose: not on the blind set (figure only)")
            elif args.diagnose:
                lines: list[str] = []
                classes = diagnose(qs, con, embedder, lines)
                print(f"  misses: {classes}")
                print("\n".join(floor_table(*floor_scores(qs, con, embedder))))
                if args.verbose:
                    print("\n".join(lines))
        for con, _files, _embedder in corpora.values():
            con.close()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
