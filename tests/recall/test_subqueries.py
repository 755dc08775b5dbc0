"""recall.subqueries: the keyword queries a question becomes, and reciprocal rank fusion."""

from __future__ import annotations

from ccstate.recall import subqueries

ALL = frozenset(subqueries.KINDS)


def test_a_question_becomes_rare_words_pairs_and_adjacent_words() -> None:
    terms = ["vite", "bundle", "size", "gallery", "unheld"]
    found = {"vite": 3, "bundle": 9, "size": 40, "gallery": 1, "unheld": 0}
    rare, pairs, near = subqueries.build(terms, found, ALL)
    assert rare == '"gallery" OR "vite" OR "bundle"'  # the three rarest held words
    assert pairs.count(" AND ") == 3 and '("gallery" AND "vite")' in pairs
    assert near.startswith('NEAR("vite" "bundle", 5) OR ')
    assert "unheld" not in rare + pairs + near
    assert subqueries.build(terms, found, frozenset({"rare"})) == [rare]


def test_identifiers_and_paths_are_split_into_their_parts() -> None:
    terms = ["claude_desktop_config.json", "parseDate", "install-hooks", "config"]
    found = dict.fromkeys(terms, 2)
    (parts,) = subqueries.build(terms, found, frozenset({"parts"}))
    assert parts == '"claude" OR "desktop" OR "json" OR "parse" OR "date" OR "install" OR "hooks"'


def test_a_keyword_query_stays_whole() -> None:
    terms = ["npm", "test", "flaky"]
    assert subqueries.build(terms, dict.fromkeys(terms, 1), ALL - {"parts"}) == []


def test_fusion_orders_by_weighted_reciprocal_rank() -> None:
    assert list(subqueries.fuse([[1, 2, 3], [3, 1]])) == [1, 3, 2]
    assert list(subqueries.fuse([[1, 2], [2]], weights=[1.0, 0.0])) == [1, 2]
    scores = subqueries.fuse([[7]], k=1)
    assert scores == {7: 0.5}
