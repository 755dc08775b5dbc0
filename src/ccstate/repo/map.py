"""The repo map from the index: definitions and uses read, ranked (`graph.py`), rendered,
and cached by the index's generation so SessionStart reads a file, not the graph."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ccstate import store
from ccstate.repo import graph, index

CACHE = "map.txt"
DEFAULT_TOKENS = 1024  # aider's default map budget


def build(con: sqlite3.Connection, budget_tokens: int = DEFAULT_TOKENS) -> str:
    """The map of the indexed code within `budget_tokens` ("" when nothing is defined)."""
    defs = [
        graph.Def(path, name, kind, int(line), sig)
        for path, name, kind, line, sig in con.execute(
            "SELECT f.path, d.name, d.kind, d.line, d.sig FROM defs d "
            "JOIN files f ON f.id = d.file ORDER BY f.path, d.line, d.name"
        )
    ]
    uses = {
        path: index.parse_refs(refs)
        for path, refs in con.execute("SELECT path, refs FROM files WHERE refs != '' ORDER BY path")
    }
    return graph.render(graph.rank_definitions(defs, uses), budget_tokens)


def cached(state: Path, con: sqlite3.Connection, budget_tokens: int) -> str:
    """The map, from `<state>/repo/map.txt` when it was made from this generation and budget;
    else built and cached."""
    key = f"{index.meta(con, 'generation', '0')}:{budget_tokens}"
    path = index.folder(state) / CACHE
    try:
        head, _, text = path.read_text(encoding="utf-8").partition("\n")
        if head == key:
            return text
    except OSError:
        pass
    text = build(con, budget_tokens)
    store.atomic_write_text(path, f"{key}\n{text}", durable=False, private=True)
    return text


def read_cached(state: str, budget_tokens: int) -> str:
    """The cached map for `budget_tokens` without opening the index (SessionStart): whatever
    generation it was made from; "" when there is none for this budget."""
    try:
        with open(os.path.join(state, index.FOLDER, CACHE), encoding="utf-8") as fh:
            head, _, text = fh.read().partition("\n")
    except OSError:
        return ""
    return text if head.endswith(f":{budget_tokens}") else ""
