"""How sure a hit is: `strong` when it holds most of the question's information, else `weak`.

A question's words weigh what they tell (BM25's IDF: a word in few moments weighs much, a
word in no moment most). A hit's **share** is the weight of the words it holds over the
weight of all of them. A hit holding at least `STRONG` of it is `strong`; any other hit is
`weak`: shown, marked, after the strong ones among the first `WINDOW`, never dropped (#38:
a score floor hid answers that shared fewer of the question's words than noise did). The
reason given is the words it matches, rarest first.

`STRONG` was chosen on the dev and old sets (`python bench/recall_eval.py --set dev,old
--diagnose` prints what each threshold lets by), by a rule written before the blind set was
run: the least share, in steps of 0.05, at which at most 20 % of dev's no-answer questions
(tempting ones, in the projects' own words) get a strong first hit and the old set keeps
its hit@3 of 0.89 (at 0.80 a strong wrong hit goes ahead of one answer there; docs/RECALL.md).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Mapping

from ccstate.recall.hits import Confidence
from ccstate.recall.text import TOKENIZER, fts_phrase

STRONG = 0.75  # the least share of the question a strong hit holds
WINDOW = 10  # the first hits (by rank) among which the strong ones come first
COMMON = 0.02  # a word in more than this share of the moments is common, not rare...
COMMON_MIN = 2000  # ...and in more than this many of them (a small index has no common word)
_PROBE = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.probe USING fts5(title, body, parts, "
    f'tokenize="{TOKENIZER}")'
)


def rare(terms: Iterable[str], found: Mapping[str, int], total: int) -> list[str]:
    """The question's rare words: held by some moment, and not common. A question none of
    whose words is rare has nothing relevant here (every hit would share only a word that
    half the project's moments hold)."""
    common = max(COMMON_MIN, int(total * COMMON))
    return [t for t in terms if 0 < found[t] <= common]


def weights(terms: Iterable[str], found: Mapping[str, int], total: int) -> dict[str, float]:
    """Each word's weight: BM25's IDF as FTS5 computes it, floored so a word in every moment
    still counts a little."""
    return {
        t: max(0.05, math.log((total - found[t] + 0.5) / (found[t] + 0.5) + 1.0)) for t in terms
    }


def matched(con: sqlite3.Connection, terms: list[str], ids: list[int]) -> dict[int, list[str]]:
    """Which of `terms` each moment of `ids` holds. The moments are copied into a small
    full-text table of this connection's own (`temp.probe`, the same tokenizer) and each
    term is looked up there: about 2 ms for 100 moments, where looking a common word's ids
    up in the index took 5-10 ms a word."""
    held: dict[int, list[str]] = {i: [] for i in ids}
    if not ids or not terms:
        return held
    con.execute(_PROBE)
    con.execute("DELETE FROM temp.probe")
    marks = ", ".join("?" for _ in ids)
    con.execute(
        "INSERT INTO temp.probe(rowid, title, body, parts) "
        f"SELECT id, title, body, parts FROM docs WHERE id IN ({marks})",
        ids,
    )
    for term in terms:
        rows = con.execute("SELECT rowid FROM temp.probe WHERE probe MATCH ?", (fts_phrase(term),))
        for (rowid,) in rows:
            held[int(rowid)].append(term)
    return held


def postings(con: sqlite3.Connection, term: str) -> set[int]:
    """The moments holding `term` (a whole doclist: for a rare word only)."""
    return {
        int(r[0])
        for r in con.execute("SELECT rowid FROM fts WHERE fts MATCH ?", (fts_phrase(term),))
    }


def share(words: Iterable[str], weight: Mapping[str, float]) -> float:
    """The share of the question's weight that `words` (some of its words) carry."""
    whole = sum(weight.values()) or 1.0
    return min(1.0, sum(weight.get(w, 0.0) for w in set(words)) / whole)


def label(value: float) -> Confidence:
    return "strong" if value >= STRONG else "weak"


def rarest_first(words: Iterable[str], weight: Mapping[str, float]) -> tuple[str, ...]:
    return tuple(sorted(dict.fromkeys(words), key=lambda w: -weight.get(w, 0.0)))


def strong_first(order: list[int], shares: Mapping[int, float], window: int = WINDOW) -> list[int]:
    """`order` with the strong ones among its first `window` moved ahead of the weak ones
    there, each group in its order; the rest as it was."""
    head, tail = order[:window], order[window:]
    strong = [i for i in head if label(shares.get(i, 0.0)) == "strong"]
    return strong + [i for i in head if i not in set(strong)] + tail
