"""A moment in its turn: the question's words that the rest of its turn holds (#38).

A turn is what a transcript holds from one prompt to the next. A question names the work a
turn did ("how long did the turn that bundled the gallery take?", "where did the installer
put the hooks?"); the moment that answers it (`the turn took 3 min 3 s`, the installer's
output) often holds few of its words, while the prompt and the other moments of its turn
hold the rest. So a candidate's BM25 strength is multiplied by `1 + own + WEIGHT x turn`:
`own` the share of the question it holds itself, `turn` the share only the rest of its
turn holds. Moments of sources without prompts (handoffs, DECISIONS.md) have no turn.
Measured with `python bench/recall_eval.py --ablate turn` (docs/RECALL.md).
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Mapping

from ccstate.recall import confidence
from ccstate.recall.text import fts_phrase

WEIGHT = 0.5  # what a word the turn holds counts for, against one the moment holds


def turn_words(con: sqlite3.Connection, ids: list[int], terms: list[str]) -> dict[int, set[str]]:
    """For each moment of `ids`, which of `terms` some moment of its turn holds (itself
    included); empty for a moment outside any turn."""
    marks = ", ".join("?" for _ in ids)
    where = {
        int(i): (s, ln)
        for i, s, ln in con.execute(f"SELECT id, source, line FROM docs WHERE id IN ({marks})", ids)
    }
    sources = sorted({s for s, _ln in where.values()})
    if not sources:
        return {}
    prompts: dict[int, list[int]] = {}
    in_sources = ", ".join("?" for _ in sources)
    for source, line in con.execute(
        f"SELECT source, line FROM docs WHERE source IN ({in_sources}) AND kind = 'prompt' "
        "ORDER BY source, line",
        sources,
    ):
        prompts.setdefault(source, []).append(line)

    def turn(source: int, line: int) -> tuple[int, int] | None:
        starts = prompts.get(source)
        if not starts:
            return None
        at = bisect.bisect_right(starts, line)
        return source, starts[at - 1] if at else 0  # before the first prompt: a turn of its own

    turns = {i: turn(*at) for i, at in where.items()}
    out: dict[int, set[str]] = {i: set() for i in ids}
    for term in terms:
        holding = {
            turn(source, line)
            for source, line in con.execute(
                f"SELECT source, line FROM docs WHERE source IN ({in_sources}) AND id IN "
                "(SELECT rowid FROM fts WHERE fts MATCH ?)",
                (*sources, fts_phrase(term)),
            )
        }
        for i, at in turns.items():
            if at is not None and at in holding:
                out[i].add(term)
    return out


def weigh(
    strength: Mapping[int, float],
    own: Mapping[int, list[str]],
    turn: Mapping[int, set[str]],
    weight: Mapping[str, float],
) -> dict[int, float]:
    """Each candidate's strength times `1 + own share + WEIGHT x the share only its turn
    holds`, best first."""
    scored = {
        i: s
        * (
            1.0
            + confidence.share(own.get(i, ()), weight)
            + WEIGHT * confidence.share(turn.get(i, set()) - set(own.get(i, ())), weight)
        )
        for i, s in strength.items()
    }
    return dict(sorted(scored.items(), key=lambda kv: -kv[1]))
