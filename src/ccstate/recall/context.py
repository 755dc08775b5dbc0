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
from collections.abc import Iterable, Mapping

from ccstate.recall import confidence

WEIGHT = 0.5  # what a word the turn holds counts for, against one the moment holds


def turn_words(
    con: sqlite3.Connection, ids: list[int], postings: Mapping[str, set[int]]
) -> dict[int, set[str]]:
    """For each moment of `ids`, which words of `postings` (word: the moments holding it)
    some moment of its turn holds (itself included); empty for a moment outside any turn."""
    out: dict[int, set[str]] = {i: set() for i in ids}
    marks = ", ".join("?" for _ in ids)
    at = {
        int(i): (source, line, session)
        for i, source, line, session in con.execute(
            f"SELECT id, source, line, session FROM docs WHERE id IN ({marks})", ids
        )
    }
    starts = _prompt_lines(con, at.values())
    turns: dict[int, tuple[int, int, int]] = {}  # id: (source, first line, next turn's line)
    for i, (source, line, _session) in at.items():
        lines = starts.get(source)
        if lines:
            n = bisect.bisect_right(lines, line)  # before the first prompt: a turn of its own
            turns[i] = (source, lines[n - 1] if n else 0, lines[n] if n < len(lines) else 1 << 62)
    members = {
        turn: {
            int(r[0])
            for r in con.execute(
                "SELECT id FROM docs WHERE source = ? AND line >= ? AND line < ?", turn
            )
        }
        for turn in set(turns.values())
    }
    for word, holding in postings.items():
        for i, turn in turns.items():
            if not members[turn].isdisjoint(holding):
                out[i].add(word)
    return out


def _prompt_lines(
    con: sqlite3.Connection, places: Iterable[tuple[int, int, str]]
) -> dict[int, list[int]]:
    """{source: the lines of its prompts, in order} for the sources of `places`."""
    sources = {source for source, _line, _session in places}
    sessions = sorted({session for _source, _line, session in places})
    if not sessions:
        return {}
    marks = ", ".join("?" for _ in sessions)
    found: dict[int, list[int]] = {}
    for source, line in con.execute(  # by the (kind, session) index: prompts only
        f"SELECT source, line FROM docs WHERE kind = 'prompt' AND session IN ({marks})",
        sessions,
    ):
        if source in sources:
            found.setdefault(source, []).append(line)
    return {source: sorted(lines) for source, lines in found.items()}


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
