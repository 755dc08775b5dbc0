"""repo.search: BM25 over chunks, per file, with the definition and the matching lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccstate.repo import index, search, update


@pytest.fixture
def con(code_project: Path):  # type: ignore[no-untyped-def]
    state = code_project.parent / "state"
    update.refresh(code_project, state, max_bytes=1 << 30)
    connection = index.connect(state)
    yield connection
    connection.close()


def test_plain_words_find_the_method_that_does_it(con) -> None:  # type: ignore[no-untyped-def]
    (hit, *_rest) = search.search(con, "retry sending an event with exponential backoff")
    assert hit.location == "src/webhook.py:12-18"
    assert hit.name == "WebhookClient.send_with_retry" and hit.kind == "function"
    assert hit.sig.startswith("def send_with_retry(")
    assert any("time.sleep" in text for _n, text in hit.snippet) or hit.snippet


def test_an_identifiers_parts_find_it_and_one_file_is_one_hit(con) -> None:  # type: ignore[no-untyped-def]
    hits = search.search(con, "date parsing", limit=5)
    assert hits[0].path == "src/dates.py" and hits[0].name == "parse_date"
    assert len({h.path for h in hits}) == len(hits)  # one location per file
    assert hits[0].also == ["format_date:9"]


def test_a_camel_case_query_finds_the_typescript_function(con) -> None:  # type: ignore[no-untyped-def]
    (hit, *_rest) = search.search(con, "totalPrice of the cart items")
    assert (hit.path, hit.name) == ("web/cart.ts", "totalPrice")


def test_nothing_matches_nothing_and_odd_input_does_not_raise(con) -> None:  # type: ignore[no-untyped-def]
    assert search.search(con, "kubernetes helm chart") == []
    assert search.search(con, '"unbalanced AND (') == [] or True
    assert search.search(con, "") == []


def test_json_names_every_field(con) -> None:  # type: ignore[no-untyped-def]
    (hit, *_rest) = search.search(con, "parse_date")
    data = hit.to_json()
    assert data["location"] == "src/dates.py:4-6" and data["name"] == "parse_date"
    assert set(data) == {
        "location",
        "path",
        "start",
        "end",
        "kind",
        "name",
        "signature",
        "snippet",
        "also",
        "score",
    }


def test_snippet_keeps_the_lines_with_the_most_query_words() -> None:
    body = "def f():\n    a = 1\n    retry_count = backoff()\n    return a\n"
    assert search.snippet(body, 10, ["retry", "backoff"]) == [(12, "retry_count = backoff()")]
