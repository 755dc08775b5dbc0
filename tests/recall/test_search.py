"""recall.search: identifiers and paths, confidence instead of a floor, the turn, recency for
ties, filters, stemming, long and empty questions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ccstate.recall import confidence, feedback, hits, index, search, sources, subqueries, writer
from ccstate.secrets import redact
from helpers import (
    indexed,
    prompt_record,
    text_record,
    tool_result_record,
    tool_use_record,
    write_jsonl,
)


def edit(tool_id: str, path: str, old: str, new: str, ts: str, session: str) -> list[dict]:
    return [
        tool_use_record(
            tool_id, "Edit", {"file_path": path, "old_string": old, "new_string": new}, session, ts
        ),
        tool_result_record(tool_id, "The file has been updated.", session=session, ts=ts),
    ]


@pytest.fixture
def con(tmp_path: Path):  # type: ignore[no-untyped-def]
    older = [
        prompt_record("make the date parser accept ISO weeks", "s-old", "2026-02-01T09:00:00Z"),
        *edit(
            "a1",
            "/p/src/dates.py",
            "def parse_date(s):",
            "def parse_date(s, week=False):",
            "2026-02-01T09:01:00Z",
            "s-old",
        ),
        tool_use_record("a2", "Bash", {"command": "cargo build"}, "s-old", "2026-02-01T09:02:00Z"),
        tool_result_record(
            "a2",
            "error[E0308]: mismatched types\n --> src/main.rs:4:5",
            True,
            "s-old",
            "2026-02-01T09:02:00Z",
        ),
        text_record(
            "The retry for the webhook client lives in src/api/client.ts now.",
            "s-old",
            "2026-02-01T09:03:00Z",
        ),
        tool_use_record("a3", "Bash", {"command": "npm test"}, "s-old", "2026-02-01T09:04:00Z"),
        tool_result_record(
            "a3", "Exit code 1\nTypeError: flaky", True, "s-old", "2026-02-01T09:04:00Z"
        ),
    ]
    newer = [
        prompt_record("rename the settings page", "s-new", "2026-03-05T09:00:00Z"),
        tool_use_record("b1", "Bash", {"command": "npm test"}, "s-new", "2026-03-05T09:04:00Z"),
        tool_result_record(
            "b1", "Exit code 1\nTypeError: flaky", True, "s-new", "2026-03-05T09:04:00Z"
        ),
        *edit(
            "b2",
            "/p/src/api/client.ts",
            "retries = 0",
            "retries = 3",
            "2026-03-05T09:05:00Z",
            "s-new",
        ),
    ]
    files = [
        write_jsonl(tmp_path / "s-old.jsonl", older),
        write_jsonl(tmp_path / "s-new.jsonl", newer),
    ]
    c = indexed(tmp_path / "state", files)
    yield c
    c.close()


def top(con, text: str, **kw: object) -> list[search.Hit]:  # type: ignore[no-untyped-def]
    return search.search(con, search.Query(text, **kw))  # type: ignore[arg-type]


def test_an_identifier_finds_its_edit_whole_and_by_its_parts(con) -> None:  # type: ignore[no-untyped-def]
    (hit, *_rest) = top(con, "parse_date")
    # an edit spans its call (line 2, the change) to its result (line 3)
    assert (hit.kind, hit.session, hit.line, hit.end_line) == ("edit", "s-old", 2, 3)
    assert any(h.line == 2 for h in top(con, "date parsing with week support"))


def test_a_path_and_an_error_code_are_found(con) -> None:  # type: ignore[no-untyped-def]
    paths = top(con, "src/api/client.ts")
    assert {(h.kind, h.session) for h in paths[:2]} == {("edit", "s-new"), ("answer", "s-old")}
    (code, *_r) = top(con, "E0308")
    assert code.kind == "command" and "**E0308**" in code.snippet


def test_nothing_relevant_only_when_no_moment_holds_a_word_of_it(con) -> None:  # type: ignore[no-untyped-def]
    assert top(con, "kubernetes ingress certificates") == []
    # one word shared ("test"): the hits come back, all weak (#38: no floor hides them)
    found = top(con, "terraform state locking test")
    assert found and {h.confidence for h in found} == {"weak"}
    assert all(h.matched == ("test",) for h in found)


def test_only_common_words_find_nothing(con, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert top(con, "npm test") != []
    monkeypatch.setattr(confidence, "COMMON_MIN", 1)  # "npm" and "test": in 2 of 12 moments
    monkeypatch.setattr(confidence, "COMMON", 0.1)
    assert top(con, "npm test") == []
    assert search.searchable(con, "npm test kubernetes") == (["kubernetes"], ["npm", "test"])


def test_a_hit_holding_most_of_the_question_is_strong_and_comes_first(con) -> None:  # type: ignore[no-untyped-def]
    (first, *rest) = top(con, "retry webhook client src/api/client.ts")
    assert (first.kind, first.confidence) == ("answer", "strong")
    assert first.matched[0] == "webhook" and set(first.matched) == {
        "retry",
        "webhook",
        "client",
        "src/api/client.ts",
    }
    assert first.score == 1.0 and rest and all(h.confidence == "weak" for h in rest)
    # a weak hit the ranking put first goes after the strong ones (among the first ten)
    order = [10, 11, 12]
    assert confidence.strong_first(order, {10: 0.2, 11: 0.9, 12: 0.5}) == [11, 10, 12]
    assert confidence.strong_first(order, {12: 0.9}, window=2) == order


def test_a_question_naming_what_no_moment_mentions_gets_nothing(con) -> None:  # type: ignore[no-untyped-def]
    # "npm test" and "flaky" match two commands; "Cypress" is in no moment: not about them
    assert top(con, "npm test flaky") != []
    assert top(con, "Why was the Cypress npm test flaky") == []
    assert search.unmentioned(con, "Why was the Cypress npm test flaky") == ["Cypress"]
    # a name the index holds, in any case, is no reason; nor is a sentence's first word
    assert top(con, "Why was the TypeError in npm test flaky") != []
    assert top(con, "Cypress aside, why was npm test flaky") != []
    # a compound counts by its name: `TypeError-heavy` is the known TypeError
    assert top(con, "Why was the TypeError-heavy npm test flaky") != []
    assert top(con, "Why was the Cypress-based npm test flaky") == []
    assert search.unmentioned(con, "why was npm test flaky") == []


def test_the_newer_of_two_equal_moments_comes_first(con) -> None:  # type: ignore[no-untyped-def]
    hits = top(con, "npm test TypeError flaky", kinds=("command",))
    assert [h.session for h in hits] == ["s-new", "s-old"]
    assert hits[0].score == hits[1].score


def test_filters(con) -> None:  # type: ignore[no-untyped-def]
    assert {h.session for h in top(con, "npm test", session="s-o")} == {"s-old"}
    assert {h.session for h in top(con, "npm test", since="2026-03-01")} == {"s-new"}
    assert {h.kind for h in top(con, "retry webhook client", kinds=("answer",))} == {"answer"}


def test_refs_and_neighbours(con) -> None:  # type: ignore[no-untyped-def]
    (hit, *_r) = top(con, "E0308")
    assert hits.ref(hit) == f"s-old:{hit.line}"
    assert hits.find_ref(con, hits.ref(hit)) == [hit.id]
    around = hits.neighbours(con, hit.id)
    assert [h.line for h in around] == [1, 2, 4, 6, 7]  # tool moments start at their call
    assert hits.find_ref(con, "nope:1") == [] and hits.find_ref(con, "no-line") == []
    # the result's line names the moment too (a line read in the transcript)
    assert hits.find_ref(con, f"s-old:{hit.end_line}") == [hit.id] and hit.end_line


def test_json_carries_provenance_and_confidence(con) -> None:  # type: ignore[no-untyped-def]
    data = top(con, "E0308")[0].to_json()
    assert {"session", "line", "timestamp", "kind", "text", "score", "file"} <= set(data)
    assert data["file"].endswith("s-old.jsonl") and data["timestamp"].startswith("2026-02-01")
    assert (data["confidence"], data["matched"]) == ("strong", ["E0308"])
    assert data["reason"] == "matches E0308 (100% of the question)"


def test_decisions_and_handoffs_are_found_by_their_refs(tmp_path: Path) -> None:
    project, state = tmp_path / "project", tmp_path / "project" / ".ccstate"
    project.mkdir()
    (project / "DECISIONS.md").write_text(
        "# Decisions\n\n## D1: Use SQLite FTS5 for recall\n\n- Status: active\n\n"
        "**Decision:** One local index; no server.\n"
    )
    handoff = state / "handoff" / "branches" / "main" / "5e55104e-aaaa.md"
    handoff.parent.mkdir(parents=True)
    handoff.write_text(
        "# Handoff: p · `main` · session 5e55104e\n\n## Next steps\n- ship the index\n"
    )
    c = index.connect(state)
    writer.update(
        c, sources.state_sources(project, state), redactor=redact.Redactor(), max_bytes=1 << 30
    )
    (decision, *_weak) = search.search(c, search.Query("sqlite index server"))
    assert (decision.kind, hits.ref(decision)) == ("decision", "DECISIONS.md:3")
    (note,) = search.search(c, search.Query("ship the index", kinds=("handoff",)))
    assert hits.ref(note) == "5e55104e.md:3"
    assert hits.find_ref(c, "DECISIONS.md:3") == [decision.id]
    assert hits.find_ref(c, "5e55104e.md:3") == [note.id]
    c.close()


def test_a_failed_command_and_its_fix_come_back_once(tmp_path: Path) -> None:
    """They share the failure's line (the command spans call to result, the fix failure to
    success): one of the two is shown, not both in the top hits."""
    records = [
        tool_use_record("c1", "Bash", {"command": "make deploy"}),
        tool_result_record("c1", "Exit code 2\nerror: kubeconfig missing", True),
        tool_use_record("c2", "Bash", {"command": "make deploy"}),
        tool_result_record("c2", "deployed"),
    ]
    c = index.connect(tmp_path / "state")
    writer.update(
        c,
        [sources.transcript_source(write_jsonl(tmp_path / "s.jsonl", records))],
        redactor=redact.Redactor(),
        max_bytes=1 << 30,
    )
    hits = top(c, "kubeconfig missing")
    c.close()
    assert [(h.line, h.end_line) for h in hits] in ([(1, 2)], [(2, 4)])  # the failure or its fix


def test_a_question_asking_for_a_size_finds_the_moment_that_holds_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [
        prompt_record("make the app load faster", "s1", "2026-04-01T09:00:00Z"),
        text_record(
            "The vendor code now ships in its own bundle, apart from the app's.",
            "s1",
            "2026-04-01T09:01:00Z",
        ),
        tool_use_record(
            "c1",
            "Bash",
            {"command": "npx vite build", "description": "Build the app"},
            "s1",
            "2026-04-01T09:02:00Z",
        ),
        tool_result_record(
            "c1", "vite building for production...\ndist/bundle.js  412.08 kB", False, "s1"
        ),
    ]
    c = index.connect(tmp_path / "state")
    writer.update(
        c,
        [sources.transcript_source(write_jsonl(tmp_path / "s1.jsonl", records))],
        redactor=redact.Redactor(),
        max_bytes=1 << 30,
    )

    def first() -> str:
        hits = search.search(c, search.Query("How big is the bundle?"))
        return hits[0].body if hits else ""

    assert "412.08 kB" in first()
    monkeypatch.setattr(search.shapes, "asked", lambda _text: ())  # no shapes: BM25 alone
    assert "412.08 kB" not in first()
    c.close()


def test_a_moment_holding_one_asked_shape_is_credited_only_that_shapes_words(
    tmp_path: Path,
) -> None:
    records = [
        tool_use_record(
            "c1", "Bash", {"command": "du -sh dist", "description": "Bundle size"}, "s1"
        ),
        tool_result_record("c1", "bundle 412 kB", False, "s1"),
    ]
    c = index.connect(tmp_path / "state")
    writer.update(
        c,
        [sources.transcript_source(write_jsonl(tmp_path / "s1.jsonl", records))],
        redactor=redact.Redactor(),
        max_bytes=1 << 30,
    )
    found = search.search(c, search.Query("How big was the bundle and which version?"))
    assert found and "412 kB" in found[0].body
    assert "big" in found[0].matched  # a size: "how big" is answered
    assert "version" not in found[0].matched  # no version in it: "which version" is not
    c.close()


class _Ranked:
    """An embedder whose ranking is given: what search fuses with BM25."""

    floor = 0.5

    def __init__(self, cosines: dict[int, float]) -> None:
        self.cosines = cosines

    def rank(self, con, text, where, params, limit):  # type: ignore[no-untyped-def]
        return dict(self.cosines)


def test_a_near_whole_lexical_match_keeps_its_place_ahead_of_the_fusion(tmp_path: Path) -> None:
    records = [
        prompt_record(
            "make the webhook client retry with exponential backoff", "s1", "2026-03-01T10:00:00Z"
        ),
        prompt_record("show me the webhook logs", "s1", "2026-03-01T11:00:00Z"),
    ]
    files = [write_jsonl(tmp_path / "s1.jsonl", records)]
    con = index.connect(tmp_path / "state")
    srcs = [sources.transcript_source(f) for f in files]
    writer.update(con, srcs, redactor=redact.Redactor(), max_bytes=1 << 30)
    question = search.Query("webhook retry exponential backoff", pieces=frozenset())
    whole, partial = (h.id for h in search.search(con, question))
    # the semantic ranking prefers the moment that matches one word of four
    fused = search.search(con, question, _Ranked({partial: 0.9}))  # type: ignore[arg-type]
    assert [h.id for h in fused] == [whole, partial]
    # by reciprocal rank alone the partial match would come first
    assert next(iter(subqueries.fuse([[whole, partial], [partial]]))) == partial
    con.close()


def _index(tmp_path: Path, records: list[dict]) -> sqlite3.Connection:
    c = index.connect(tmp_path / "state")
    writer.update(
        c,
        [sources.transcript_source(write_jsonl(tmp_path / "s1.jsonl", records))],
        redactor=redact.Redactor(),
        max_bytes=1 << 30,
    )
    return c


def test_the_turn_a_moment_is_in_lifts_it(tmp_path: Path) -> None:
    """#38: "how long did the build take when we converted the gallery?" is answered by a
    build's output that says nothing of the gallery; its turn's prompt does."""
    build = {"command": "npm run build"}
    c = _index(
        tmp_path,
        [
            prompt_record("convert the gallery to a bundled site", ts="2026-03-01T10:00:00Z"),
            tool_use_record("b1", "Bash", build, ts="2026-03-01T10:01:00Z"),
            tool_result_record("b1", "vite: built in 3.2s", ts="2026-03-01T10:01:05Z"),
            prompt_record("now fix the login page", ts="2026-03-01T11:00:00Z"),
            tool_use_record("b2", "Bash", build, ts="2026-03-01T11:01:00Z"),
            tool_result_record("b2", "vite: built in 9.1s", ts="2026-03-01T11:01:05Z"),
        ],
    )
    question = "how long did the vite build take when we converted the gallery?"

    def commands(pieces: frozenset[str]) -> list[str]:
        found = search.search(c, search.Query(question, limit=10, pieces=pieces))
        return [h.body for h in found if h.kind == "command"]

    assert "3.2s" in commands(search.PIECES)[0]
    assert "9.1s" in commands(search.PIECES - {"turn"})[0]  # without it: the newer one
    c.close()


def test_stemmed_forms_find_each_other(tmp_path: Path) -> None:
    c = _index(tmp_path, [prompt_record("we kept pulling the release branch by hand")])
    for asked in ("pulls", "pulled", "pull release branches"):
        assert [h.kind for h in top(c, asked)] == ["prompt"], asked
    c.close()


def test_a_long_question_is_searched_for_its_first_words(con) -> None:  # type: ignore[no-untyped-def]
    filler = " ".join(f"zq{n}word" for n in range(search.MAX_TERMS))
    assert top(con, f"{filler} E0308") == []  # its 33rd word is not searched
    assert top(con, f"E0308 {filler}")[0].kind == "command"
    long = f"E0308 {'mismatched types everywhere ' * 400}"
    assert len(long) > 10_000 and top(con, long)[0].kind == "command"


def test_a_keyword_query_gets_no_sub_queries(con) -> None:  # type: ignore[no-untyped-def]
    every = search.ALL_PIECES - {feedback.KIND}  # feedback expands every query (test_feedback)
    for words in ("npm test", "retry webhook client", "E0308"):
        assert [h.id for h in top(con, words, pieces=every - {"turn", "strong-first"})] == [
            h.id for h in top(con, words, pieces=frozenset())
        ]


def test_a_question_about_a_failure_lifts_the_moment_recording_one(tmp_path: Path) -> None:
    run = {"command": "npm run importer"}
    c = _index(
        tmp_path,
        [
            tool_use_record("i1", "Bash", run, ts="2026-03-01T10:00:00Z"),
            tool_result_record(
                "i1", "Exit code 1\nENOENT: data.csv", True, ts="2026-03-01T10:00:01Z"
            ),
            tool_use_record("i2", "Bash", run, ts="2026-03-02T10:00:00Z"),
            tool_result_record("i2", "imported 12 rows", ts="2026-03-02T10:00:01Z"),
        ],
    )
    question = "why did the importer crash?"
    (first, *_r) = search.search(c, search.Query(question))
    assert "ENOENT" in first.body and first.confidence == "strong" and "crash" in first.matched
    (other, *_r) = search.search(c, search.Query(question, pieces=search.PIECES - {"failure"}))
    assert "12 rows" in other.body  # without the piece: a tie, the newer first
    c.close()
