"""A question as the keyword queries an agent would type, and their rankings fused (#38).

`search` always ranks the whole question (its content words OR-ed, BM25). Each piece below
turns it into one more keyword query, ranked the same way, and the rankings are fused by
reciprocal rank fusion (the whole question's counting 1, each sub-query's `SUB_WEIGHT`):

- `rare`: its three rarest words (what an agent keeps of a sentence);
- `pairs`: moments holding two of those three together;
- `parts`: the pieces of its identifiers and paths (`claude_desktop_config.json` ->
  `claude desktop config json`; the whole stays a phrase of the whole question);
- `near`: two words adjacent in the question within `NEAR` tokens of each other.

Quoted phrases, identifiers and paths kept whole, and stemmed forms (FTS5's `porter`
tokenizer: `pulls`, `pulling`, `pull`) are how every query is read (`text.query_terms`),
not pieces. A question of at most `KEYWORDS` words is taken as a keyword query: the whole
of it is the only ranking, as before #38. Which pieces are on (`search.PIECES`) was decided
with `python bench/recall_eval.py --ablate` on the dev and old sets (docs/RECALL.md).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

from ccstate.recall.text import STOPWORDS, fts_phrase

KINDS = ("rare", "pairs", "parts", "near")
SUB_WEIGHT = 0.5  # a sub-query's ranking in the fusion, against the whole question's 1
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009)
TIE = 0.01  # strengths this close (relative) rank alike in a fusion (search: recency then)
RARE = 3  # the rarest words kept by `rare` and `pairs`
NEAR = 5  # tokens between two adjacent words for `near`
KEYWORDS = 3  # a question of at most this many words is a keyword query
_SPLIT = re.compile(r"[^0-9A-Za-z]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_COMPOUND = re.compile(r"[_./\\-]|[a-z][A-Z]")


def build(terms: list[str], found: Mapping[str, int], pieces: frozenset[str]) -> list[str]:
    """The FTS5 expressions of the sub-queries `pieces` make of a question's `terms` (its
    content words in order, each with the count of moments holding it in `found`)."""
    held = [t for t in terms if found.get(t, 0) > 0]
    out: list[str] = []
    if "parts" in pieces and (split := _parts(held)):
        out.append(" OR ".join(fts_phrase(p) for p in split))
    if len(held) <= KEYWORDS:
        return out
    rarest = sorted(held, key=lambda t: found[t])[:RARE]
    if "rare" in pieces:
        out.append(" OR ".join(fts_phrase(t) for t in rarest))
    if "pairs" in pieces:
        both = itertools.combinations(rarest, 2)
        out.append(" OR ".join(f"({fts_phrase(a)} AND {fts_phrase(b)})" for a, b in both))
    if "near" in pieces:
        out.append(
            " OR ".join(
                f"NEAR({fts_phrase(a)} {fts_phrase(b)}, {NEAR})"
                for a, b in itertools.pairwise(held)
            )
        )
    return out


def _parts(terms: list[str]) -> list[str]:
    """The pieces of the compound terms (identifiers, paths, dotted names), each once, none
    that is already a term or a stop word."""
    have = {t.lower() for t in terms}
    out: list[str] = []
    for term in terms:
        if not _COMPOUND.search(term):
            continue
        for chunk in _SPLIT.split(term):
            for piece in _CAMEL.findall(chunk) if not chunk.islower() else [chunk]:
                low = piece.lower()
                if len(low) > 1 and low not in STOPWORDS and low not in have:
                    have.add(low)
                    out.append(low)
    return out


def fuse(
    rankings: Sequence[Sequence[int] | Mapping[int, float]],
    weights: list[float] | None = None,
    k: int = RRF_K,
) -> dict[int, float]:
    """Reciprocal rank fusion: {id: the sum over the rankings of weight / (k + rank)}, best
    first. A ranking given with its strengths ({id: strength}, best first) ranks moments
    within `TIE` of the strength of the first of their run alike (the same failing command
    in five sessions: recency, not the fusion, orders them)."""
    scores: dict[int, float] = {}
    for n, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[n]
        for item, rank in _ranks(ranking):
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return dict(sorted(scores.items(), key=lambda kv: -kv[1]))


def _ranks(ranking: Sequence[int] | Mapping[int, float]) -> list[tuple[int, int]]:
    if not isinstance(ranking, Mapping):
        return [(item, rank) for rank, item in enumerate(ranking, start=1)]
    out: list[tuple[int, int]] = []
    head, at = 0.0, 0
    for rank, (item, strength) in enumerate(ranking.items(), start=1):
        if rank == 1 or abs(head - strength) > TIE * max(abs(head), abs(strength)):
            head, at = strength, rank
        out.append((item, at))
    return out
