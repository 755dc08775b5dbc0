"""`workflow.md`'s generated part, refreshed at session end (#39.2): the commands the project's
files name now, and the test, build, lint and type commands sessions ran green.

Only the text between ccstate's markers is rewritten, and only in a `workflow.md` that has
them (one `ccstate init` wrote): hand edits outside them survive, a file without them is the
user's. The file is committed with the project, so what is written changes only when a command
does: no session id, no time, commands in a stable order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ccstate import store
from ccstate.scaffold import detect, render
from ccstate.scaffold.found import clip

MAX_LEARNED = 8
LOCK = "workflow-md"  # in the state dir: nothing beside the user's file
_KIND_ORDER = ("test", "lint", "type", "build")


def learned_lines(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """One line per distinct command that passed, by kind then text (pure, stable)."""
    seen: dict[str, str] = {}
    for entry in entries:
        command, kind = str(entry.get("command", "")), str(entry.get("kind", ""))
        if command and "\n" not in command and command not in seen:
            seen[command] = kind
    ordered = sorted(seen.items(), key=lambda item: (_rank(item[1]), item[0]))
    return [f"- `{clip(cmd, 120)}` ({kind}, passed)" for cmd, kind in ordered[:MAX_LEARNED]]


def refresh(project: Path, topic_dir: str, state: Path, learned: list[str]) -> str:
    """Rewrite the generated block of `<topic_dir>/workflow.md`; say what happened."""
    path = project / topic_dir / "workflow.md"
    with store.file_lock(state / "locks" / LOCK, timeout=2.0):
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return "absent"
        start, end = text.find(render.BEGIN[:18]), text.find(render.END)
        if start < 0 or end < start:
            return "no markers (the user's file)"
        block = render.block(detect.detect(project).commands, learned)
        new = text[:start] + block + text[end + len(render.END) :]
        if new == text:
            return "unchanged"
        store.atomic_write_text(path, new)
        return "refreshed"


def _rank(kind: str) -> int:
    return _KIND_ORDER.index(kind) if kind in _KIND_ORDER else len(_KIND_ORDER)
