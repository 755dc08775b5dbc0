"""bench/recall_eval.py's question sets (#27.3): the blind and dev sets over the modern
transcripts name sessions and lines that exist, and the eval scores a hit where it should.

Fast: no corpus is indexed (one tiny transcript is, for the fused ranking). The checks
against ../shared/transcripts/modern skip, saying so, when the corpus is absent.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from helpers import MODERN, REPO, corpus_absent, make_static_model, text_record, write_jsonl


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("recall_eval", REPO / "bench" / "recall_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["recall_eval"] = module
    spec.loader.exec_module(module)
    return module


recall_eval = _load()
NEW_SETS = ("dev", "blind")
needs_modern = pytest.mark.skipif(not MODERN.is_dir(), reason=corpus_absent(MODERN))


def _spec(name: str) -> dict[str, Any]:
    path, _corpus = recall_eval.SETS[name]
    spec: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return spec


@pytest.mark.parametrize("name", NEW_SETS)
def test_a_new_set_parses_with_enough_questions_and_no_answer_ones(name: str) -> None:
    qs = recall_eval.load_set(name, recall_eval.SETS[name][0])
    # #27.3: at least 40 questions and 10 that nothing answers
    assert len(qs.questions) >= 40 and len(qs.none) >= 10
    assert all(q.text.strip() and q.wanted for q in qs.questions)
    assert all(text.strip() for text in qs.none)
    assert len({q.text for q in qs.questions}) == len(qs.questions)  # no question twice
    # at least half ask without an identifier that appears verbatim in the answer
    flags = [item["verbatim"] for item in _spec(name)["questions"]]
    assert all(isinstance(f, bool) for f in flags) and flags.count(False) * 2 >= len(flags)


def test_the_old_set_still_parses() -> None:
    qs = recall_eval.load_set("old", recall_eval.SETS["old"][0])
    assert len(qs.questions) == 35 and len(qs.none) == 8


def _transcripts() -> dict[str, Path]:
    return {p.stem.split("__")[-1]: p for p in MODERN.glob("*.jsonl")}


@needs_modern
@pytest.mark.parametrize("name", NEW_SETS)
def test_every_answer_is_a_real_line_of_its_session(name: str) -> None:
    transcripts = _transcripts()
    lines: dict[str, list[str]] = {}
    for item in _spec(name)["questions"]:
        session, where = item["session"], item["q"]
        path = transcripts.get(session)
        assert path is not None, f"{name}: {where!r} names session {session}, not in {MODERN}"
        assert path.name == item["file"], f"{name}: {where!r}: {item['file']} is not {path.name}"
        text = lines.setdefault(session, path.read_text(encoding="utf-8").splitlines())
        assert item["lines"], f"{name}: {where!r} names no line"
        for number in item["lines"]:
            assert 1 <= number <= len(text), f"{name}: {where!r}: {session} has no line {number}"
            record = json.loads(text[number - 1])  # a transcript record, not a blank or a tail
            assert isinstance(record, dict) and record.get("sessionId") == session, (
                f"{name}: {where!r}: line {number} is no record of session {session}"
            )


def test_a_hit_scores_at_the_rank_of_the_first_one_holding_an_answering_line() -> None:
    wanted = [("5ecdf49b", 75)]
    ranked = [
        ("5ecdf49b-d3ef", frozenset({74})),  # the right session, another line
        ("04c2be8b-aa6b", frozenset({75})),  # the line, in another session
        ("5ecdf49b-d3ef", frozenset({70, 75})),  # a fix that passed at the line
    ]
    assert recall_eval.rank_of(ranked, wanted) == 3
    assert recall_eval.rank_of(ranked[:2], wanted) == 0


def test_the_score_counts_hits_mrr_keyword_unions_and_strong_no_answer_firsts() -> None:
    found = recall_eval.Found
    qs = recall_eval.QuestionSet(
        "t",
        [
            recall_eval.Question("first", [("s", 1)], ["kw one", "kw two"]),
            recall_eval.Question("third", [("s", 3)], ["kw miss", "kw miss"]),
            recall_eval.Question("fifth", [("s", 5)]),
        ],
        ["nothing here", "noise", "loud"],
    )
    hits = [found("s", frozenset({n}), False) for n in range(1, 11)]

    def rank(text: str) -> list:  # type: ignore[type-arg]
        if text == "kw two":
            return [found("s", frozenset({3}), True)]
        if text == "kw miss":
            return [found("s", frozenset({9}), True)]
        if text == "loud":
            return [found("x", frozenset({1}), True)]
        return [] if text == "nothing here" else hits

    got = recall_eval.score(qs, rank, None, count=lambda text: len(text)).figures()
    assert (got["hit_at_1"], got["hit_at_3"]) == (round(1 / 3, 3), round(2 / 3, 3))
    assert got["hit_at_5"] == 1.0 and got["mrr"] == round((1 + 1 / 3 + 1 / 5) / 3, 3)
    assert got["keywords_hit_at_3"] == 0.5  # asked for two questions, the first found
    assert (got["none_with_hit"], got["none_strong_first"], got["none"]) == (2, 1, 3)
    assert (got["tokens_per_call"], got["tokens_max"]) == (round(36 / 6), 12)


def test_plain_fts5_says_nothing_of_confidence() -> None:
    qs = recall_eval.QuestionSet("t", [], ["noise"])
    got = recall_eval.score(qs, lambda _t: [recall_eval.Found("s", frozenset({1}))], None)
    assert got.figures()["none_strong_first"] is None and "n/a" in got.row("fts5-moments")


@pytest.mark.parametrize("name", ["old", "dev", "blind"])
def test_every_question_has_two_keyword_queries_beside_its_set(name: str) -> None:
    spec = json.loads(recall_eval.KEYWORDS.read_text(encoding="utf-8"))
    assert "only the question texts" in spec["about"]
    qs = recall_eval.load_set(name, recall_eval.SETS[name][0])
    assert all(len(q.keywords) == 2 and all(k.strip() for k in q.keywords) for q in qs.questions)
    texts = {e["question"] for e in spec["queries"] if e["set"] == name}
    assert {q.text for q in qs.questions} <= texts


def test_fused_is_scored_with_a_model_and_left_out_without_one(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    corpus = tmp_path / "corpus"
    backoff = text_record("Added exponential backoff to the webhook client " + "x " * 100)
    parser = text_record("The date parser now reads ISO weeks " + "y " * 100)
    write_jsonl(corpus / "Owner__repo__s1.jsonl", [backoff, parser])
    model = str(make_static_model(tmp_path / "m"))
    con, files, embedder = recall_eval.build(corpus, tmp_path / "with", model)
    ranks = recall_eval.rankers(con, files, embedder)
    assert list(ranks) == ["fts5-records", "fts5-moments", "bm25", "fused"]
    assert ranks["bm25"]("retry") == []  # no shared word
    assert recall_eval.rank_of(ranks["fused"]("retry"), [("s1", 1)]) == 1  # by meaning
    con.close()
    con, files, embedder = recall_eval.build(corpus, tmp_path / "without", "")
    assert embedder is None and "fused" not in recall_eval.rankers(con, files, embedder)
    con.close()


def test_a_sentence_transformer_comparison_needs_its_package_and_says_so(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    ev = _load()
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(SystemExit, match="pip install sentence-transformers"):
        ev.load("st:/nowhere")


def test_the_distiller_needs_model2vec_and_says_so(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("distill", REPO / "bench" / "distill_static.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "model2vec", None)
    monkeypatch.setitem(sys.modules, "model2vec.distill", None)
    monkeypatch.setattr(sys, "argv", ["distill_static.py", "/nowhere", "/tmp/out"])
    with pytest.raises(SystemExit, match=r"pip install 'model2vec\[distill\]'"):
        module.main()
