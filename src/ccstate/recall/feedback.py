"""Pseudo-relevance feedback: the words the best first hits share, searched too (#38).

Most questions that miss share no word with their answer ("the dotfile manager" for
`chezmoi`). Pseudo-relevance feedback (RM3: Lavrenko and Croft 2001, Abdul-Jaleel et al.
2004) takes the first ranking's best `DOCS` moments as relevant and the `TERMS` words most
characteristic of them as the question's missing vocabulary: each word's share of each
moment's words (its count over the moment's length), summed over the moments, times its IDF
over the whole index. A word must be in at least `SHARED` of those moments (one moment's own
vocabulary, a plan's or a long answer's, is not what the question is about); skipped: stop
words, the question's own words, numbers and id-like tokens (three digits or more), words no
other moment holds (they find nothing new) and words in more than `COMMON` of the moments.

The words are FTS5's own tokens (stemmed by `porter`): the moments are copied into a small
full-text table of the connection's own with the same tokenizer (`temp.feedback`), its
vocabulary read back (`fts5vocab`); a stem the tokenizer would stem again as a query (`agre`
-> `agr`: a few per cent of them) is dropped; each word's count of moments is read from the
index up to `COMMON_MAX` (a word in more moments would cost the second query its whole
doclist for little: on 1,000 sessions, 23 ms a question instead of 8).

`search` ranks the question's words and the expansion's together and fuses that ranking with
the question's by reciprocal rank fusion at `WEIGHT` (`MODE` "rrf", as the sub-queries are),
or adds each moment's BM25 over the expansion alone, times `WEIGHT`, to its strength (`MODE`
"add": BM25 sums over the query's words, so that is the expansion at `WEIGHT` of a question
word; measured worse). Either way the confidence of a hit stays the share of the
*question's* words it holds: the expansion moves hits, it never makes one strong. Measured
with `python bench/recall_eval.py --set old,dev --ablate` (docs/RECALL.md "Figures").
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Mapping

from ccstate.recall.text import STOPWORDS, TOKENIZER, fts_phrase

KIND = "prf"
DOCS = 3  # the first ranking's best moments taken as relevant
TERMS = 10  # expansion words at most
SHARED = 2  # a word must be in at least this many of them (all of them when fewer)
WEIGHT = 0.5  # the expanded ranking's weight in the fusion (a sub-query's), or the words'
MODE = "rrf"  # "rrf": fused with the question's ranking; "add": BM25 over them added
COMMON = 0.05  # a word in more than this share of the moments is too common to add...
COMMON_MAX = 500  # ...or in more than this many: each costs the second query its doclist
_TABLE = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.feedback USING fts5(title, body, "
    f'tokenize="{TOKENIZER}")'
)
_WORDS = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.feedback_words "
    "USING fts5vocab(temp, feedback, instance)"
)
_ASKED = 0  # the row holding the question's words and the stop words (moments' ids are > 0)
_AGAIN = -1  # the row holding words to tokenise (the chosen ones: does a query find them?)
_STOPPED: set[str] = set()  # the stop words as the tokenizer makes them


def terms(con: sqlite3.Connection, ids: list[int], asked: list[str], total: int) -> list[str]:
    """The `TERMS` words (FTS5 tokens) most characteristic of the moments `ids` (of an index
    of about `total` moments), best first: none of them one of `asked` (the question's
    words) or a stop word, each in `SHARED` of the moments and held by another moment."""
    counts = _counts(con, ids, asked) if ids else {}
    skip = counts.pop(_ASKED, {})
    weight: dict[str, float] = {}
    held: dict[str, int] = {}
    for tf in counts.values():
        length = sum(tf.values()) or 1
        for word, n in tf.items():
            if word not in skip and _wordlike(word):
                weight[word] = weight.get(word, 0.0) + n / length
                held[word] = held.get(word, 0) + 1
    enough = min(SHARED, len(counts))
    common = min(max(2, int(total * COMMON)), COMMON_MAX)
    df = _doc_counts(con, _searchable(con, [w for w in weight if held[w] >= enough]), common)
    score = {
        w: weight[w] * math.log((total - n + 0.5) / (n + 0.5) + 1.0)
        for w, n in df.items()
        if 1 < n <= common
    }
    return sorted(score, key=lambda w: (-score[w], w))[:TERMS]


def expression(words: list[str]) -> str:
    """The FTS5 query of the expansion words (each a token: a phrase of one)."""
    return " OR ".join(fts_phrase(w) for w in words)


def add(strength: Mapping[int, float], expanded: Mapping[int, float]) -> dict[int, float]:
    """`MODE` "add": `strength` plus `WEIGHT` times the expansion's, over both; best first."""
    out = dict(strength)
    for i, s in expanded.items():
        out[i] = out.get(i, 0.0) + WEIGHT * s
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def _counts(con: sqlite3.Connection, ids: list[int], asked: list[str]) -> dict[int, dict[str, int]]:
    """{row: {token: occurrences}} for the moments `ids` and, in row `_ASKED`, the question's
    words and the stop words, tokenised as the index tokenises them."""
    con.execute(_TABLE)
    con.execute(_WORDS)
    con.execute("DELETE FROM temp.feedback")
    marks = ", ".join("?" for _ in ids)
    con.execute(
        "INSERT INTO temp.feedback(rowid, title, body) "
        f"SELECT id, title, body FROM docs WHERE id IN ({marks})",
        ids,
    )
    if not _STOPPED:  # the stop words as tokens, once (the tokenizer is always the same)
        _STOPPED.update(_tokens(con, " ".join(STOPWORDS)))
    con.execute(
        "INSERT INTO temp.feedback(rowid, title, body) VALUES (?, '', ?)",
        (_ASKED, " ".join(asked)),
    )
    out: dict[int, dict[str, int]] = {_ASKED: dict.fromkeys(_STOPPED, 1)}
    for word, row, n in con.execute(
        "SELECT term, doc, count(*) FROM temp.feedback_words GROUP BY term, doc"
    ):
        out.setdefault(int(row), {})[str(word)] = int(n)
    return out


def _tokens(con: sqlite3.Connection, text: str) -> list[str]:
    """`text`'s tokens as the index makes them, in order (through `temp.feedback`'s row
    `_AGAIN`, deleted after)."""
    con.execute("INSERT INTO temp.feedback(rowid, title, body) VALUES (?, '', ?)", (_AGAIN, text))
    out = [
        str(w)
        for (w,) in con.execute(
            "SELECT term FROM temp.feedback_words WHERE doc = ? ORDER BY offset", (_AGAIN,)
        )
    ]
    con.execute("DELETE FROM temp.feedback WHERE rowid = ?", (_AGAIN,))
    return out


def _doc_counts(con: sqlite3.Connection, words: list[str], common: int) -> dict[str, int]:
    """How many moments of the index hold each of `words`, counted up to `common` + 1 (a
    word's doclist is read that far at most: the index's vocabulary, `fts5vocab`, reads it
    whole, four times slower on 1,000 sessions)."""
    sql = f"SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT {common + 1})"
    return {w: int(con.execute(sql, (fts_phrase(w),)).fetchone()[0]) for w in words}


def _searchable(con: sqlite3.Connection, words: list[str]) -> list[str]:
    """Those of `words` (tokens) a query finds as they are, in order: the tokenizer stems a
    query's words again, and a few stems change (`agre` -> `agr`)."""
    if not words:
        return []
    again = _tokens(con, " ".join(words))
    if len(again) != len(words):  # a word of two tokens (none expected): the plain test
        return [w for w in words if w in set(again)]
    return [w for w, a in zip(words, again, strict=True) if w == a]


def _wordlike(word: str) -> bool:
    """A word worth adding: three characters or more with a letter, not an id or a hash
    (three digits or more)."""
    return len(word) > 2 and sum(c.isdigit() for c in word) < 3 and any(c.isalpha() for c in word)
