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


def test_a_ranking_with_its_strengths_ranks_equal_ones_alike() -> None:
    """The same text in several sessions (strengths within 1 %) keeps one fused score, so
    recency, not the fusion, orders it (search's tie break)."""
    first = {1: 10.0, 2: 9.95, 3: 5.0}
    fused = subqueries.fuse([first, {3: 1.0}], weights=[1.0, 0.5])
    assert fused[1] == fused[2] == 1.0 / (subqueries.RRF_K + 1)
    assert fused[3] == 1.0 / (subqueries.RRF_K + 3) + 0.5 / (subqueries.RRF_K + 1)
    assert list(subqueries.fuse([[1, 2, 3]])) == [1, 2, 3]  # a plain list: ranks 1, 2, 3
    assert subqueries.fuse([[1, 2]])[2] < subqueries.fuse([[1, 2]])[1]
