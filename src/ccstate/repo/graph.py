"""The repo map: the most-referenced definitions, ranked over the reference graph, grouped by
file, within a token budget; byte-identical for identical code (pure, given the index rows).

The graph (aider's `repomap.py`, without networkx): files are nodes; file A has an edge to
file B for each name A uses that B defines, weighted by `sqrt(uses)` and by how telling
the name is (a compound identifier counts 10x, a `_private` one 0.1x, a name defined in
more than `COMMON_DEFS` files 0.1x: `get`, `run` say little about which file is meant; a
name defined in k files gives each 1/k, and in more than `MAX_DEFINERS` none).
PageRank over it (damping 0.85, `ITERATIONS` fixed rounds, every node's rank rounded before
any sort, ties by path and line) ranks files as a random reader following uses to
definitions would visit them; each file's rank is then shared among the definitions its
edges point at, in proportion to the edge weights. Why PageRank and not in-degree: a
definition used by many files that are themselves central (the core types) outranks one
used by many leaf scripts, and it is what aider measured its map with; personalisation
(aider's boost for files in the chat) is left out, so the map depends on the code alone
and stays the same across sessions (the prompt cache).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

DAMPING = 0.85
ITERATIONS = 40
COMMON_DEFS = 5
MAX_DEFINERS = 20  # a name defined in more files than this makes no edge at all
CHARS_PER_TOKEN = 4  # as the capsule counts (no tokenizer in a hook)
DIGITS = 12  # ranks are rounded to this many digits before sorting: the same on any CPU


@dataclass(frozen=True)
class Def:
    path: str
    name: str
    kind: str
    line: int
    sig: str


def rank_definitions(defs: list[Def], uses: dict[str, dict[str, int]]) -> list[tuple[float, Def]]:
    """Definitions with their share of the PageRank, best first (ties: path, line, name).

    `uses`: {path: {name: how often the file uses it}}."""
    defined: dict[str, set[str]] = defaultdict(set)  # name -> paths defining it
    for d in defs:
        defined[_short(d.name)].add(d.path)
    edges = _edges(uses, defined)
    nodes = sorted({d.path for d in defs} | set(uses))
    rank = _pagerank(nodes, _pairs(edges))
    share: dict[tuple[str, str], float] = defaultdict(float)  # (path, short name) -> rank
    for src, out in edges.items():
        total = sum(w for _dst, _name, w in out) or 1.0
        for dst, name, weight in out:
            share[(dst, name)] += rank[src] * weight / total
    scored = []
    for d in defs:
        value = round(share.get((d.path, _short(d.name)), 0.0), DIGITS)
        if value > 0:
            scored.append((value, d))
    scored.sort(key=lambda item: (-item[0], item[1].path, item[1].line, item[1].name))
    return scored


def _short(name: str) -> str:
    """A qualified name's last part: `Class.method` is used as `method`."""
    return name.rsplit(".", 1)[-1]


def _edges(
    uses: dict[str, dict[str, int]], defined: dict[str, set[str]]
) -> dict[str, list[tuple[str, str, float]]]:
    """{file: [(file it uses a name of, the name, weight)]}, in a fixed order."""
    edges: dict[str, list[tuple[str, str, float]]] = {}
    for src in sorted(uses):
        out: list[tuple[str, str, float]] = []
        for name, count in sorted(uses[src].items()):
            targets = defined.get(name)
            if not targets or len(targets) > MAX_DEFINERS:
                continue  # `new`, `get`, `run` in 40 files: no pointer to any of them
            # a use of a name defined in k files points at each of them with 1/k of it
            weight = _name_weight(name, len(targets)) * math.sqrt(count) / len(targets)
            out.extend((dst, name, weight) for dst in sorted(targets) if dst != src)
        if out:
            edges[src] = out
    return edges


def _name_weight(name: str, defining: int) -> float:
    weight = 1.0
    if len(name) >= 8 and (
        "_" in name.strip("_") or (name != name.lower() and name[1:] != name[1:].upper())
    ):
        weight *= 10.0  # a compound identifier names one thing
    if name.startswith("_"):
        weight *= 0.1
    if defining > COMMON_DEFS:
        weight *= 0.1
    return weight


def _pairs(edges: dict[str, list[tuple[str, str, float]]]) -> dict[str, list[tuple[str, float]]]:
    """The edges summed per (file, file), each file's shares of its total (PageRank's walk)."""
    out = {}
    for src, items in edges.items():
        summed: dict[str, float] = defaultdict(float)
        for dst, _name, weight in items:
            summed[dst] += weight
        total = sum(summed.values()) or 1.0
        out[src] = [(dst, summed[dst] / total) for dst in sorted(summed)]
    return out


def _pagerank(nodes: list[str], pairs: dict[str, list[tuple[str, float]]]) -> dict[str, float]:
    """Weighted PageRank by power iteration, a fixed number of rounds; a node with no edges
    spreads its rank evenly (the random reader jumps)."""
    count = len(nodes) or 1
    rank = dict.fromkeys(nodes, 1.0 / count)
    for _round in range(ITERATIONS):
        dangling = sum(rank[n] for n in nodes if n not in pairs)
        nxt = dict.fromkeys(nodes, (1.0 - DAMPING) / count + DAMPING * dangling / count)
        for src, out in pairs.items():
            flow = DAMPING * rank[src]
            for dst, share in out:
                nxt[dst] += flow * share
        rank = nxt
    return {n: round(v, DIGITS) for n, v in rank.items()}


def render(ranked: list[tuple[float, Def]], budget_tokens: int) -> str:
    """The map: files in the order of their best definition, each with its definitions in
    line order (`line: first line`), as many definitions as fit `budget_tokens`."""
    budget = budget_tokens * CHARS_PER_TOKEN
    chosen: dict[str, list[Def]] = {}
    used = 0
    for _score, d in ranked:
        cost = len(_line(d)) + 1 + (0 if d.path in chosen else len(d.path) + 2)
        if used + cost > budget:
            continue  # a shorter one further down may still fit
        chosen.setdefault(d.path, []).append(d)
        used += cost
    out = []
    for path, items in chosen.items():
        out.append(f"{path}:")
        out.extend(_line(d) for d in sorted(items, key=lambda d: (d.line, d.name)))
    return "\n".join(out)


def _line(d: Def) -> str:
    sig = d.sig.strip()
    if len(sig) > 100:
        sig = sig[:99] + "…"
    return f"{d.line:>5}: {sig}"


def files_named(text: str) -> list[str]:
    """The files a rendered map names, in order (for the bench)."""
    return [
        line[:-1] for line in text.splitlines() if line.endswith(":") and not line.startswith(" ")
    ]
