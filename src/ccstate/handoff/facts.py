"""What a compaction must not lose, from the handoff's scan and git (pure; #26).

The handoff document is prose for a successor; the compaction block (compaction/steer.py)
needs the same facts as plain keys a summary can be checked against: whole paths and
commands, redacted, not trimmed for display. One dict of lists, JSON-ready:

- `edited`: files the session edited or wrote that git still shows as changed (relative to
  the project); every edited file when git cannot tell (`git`: false);
- `failing`: commands whose tool's newest verdict was FAILED or not installed (checks.py);
- `errors`: `[tool, subject, message]` of failed tool calls not followed by a success;
- `todos`: `[status, text]` of open todos and tasks;
- `next`: the agent's own next steps (`ccstate handoff note`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ccstate.gitinfo import Snapshot
from ccstate.handoff.doc import CLIP_HEAD
from ccstate.handoff.scan import Scan
from ccstate.secrets.redact import Redactor

MAX_EACH = 20
KEY_MAX = 300  # a path or command longer than this is no key a summary keeps word for word


def steer_facts(
    scan: Scan, snap: Snapshot, notes: Sequence[str], redactor: Redactor, roots: Sequence[str]
) -> dict[str, Any]:
    r = redactor.redact
    known_git = snap.head is not None or bool(snap.dirty)
    dirty = [_porcelain_path(line) for line in snap.dirty]
    edited = []
    for touch in sorted(scan.touches.values(), key=lambda t: t.last_line, reverse=True):
        if known_git and not any(_same_file(touch.path, d) for d in dirty if d):
            continue
        edited.append(_relative(r(touch.path), roots))  # redacted, then made relative (#23)
    failing = [
        r(c.command) for c in sorted(scan.checks.values(), key=lambda c: -c.line) if c.ok is False
    ]
    errors = [
        [p.tool, _relative(r(p.subject), roots), _line(redactor, p.message, 200)]
        for p in sorted(scan.problems.values(), key=lambda p: -p.line)
    ]
    return {
        "git": known_git,
        "edited": _keys(edited),
        "failing": _keys(failing),
        "errors": [e for e in errors if len(e[1]) <= KEY_MAX][:MAX_EACH],
        "todos": [[t.status, _line(redactor, t.text, 200)] for t in scan.open_todos()][:MAX_EACH],
        "next": [_line(redactor, n, 300) for n in notes][-MAX_EACH:],
    }


def _line(redactor: Redactor, text: str, limit: int) -> str:
    """`text` redacted, then made one line, then cut to `limit` (#23: a cut or a collapse
    before redaction can leave part of a secret no rule then reads)."""
    head = redactor.before_cut(text, head=CLIP_HEAD)[:CLIP_HEAD]
    return " ".join(head.split())[:limit]


def _keys(values: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        if value and len(value) <= KEY_MAX:
            seen.setdefault(" ".join(value.split()) if " " in value else value, None)
    return list(seen)[:MAX_EACH]


def _porcelain_path(line: str) -> str:
    """`git status --porcelain=v1` line -> its (new) path."""
    path = line[3:] if len(line) > 3 else ""
    if " -> " in path:
        path = path.split(" -> ", 1)[1]
    return path.strip().strip('"')


def _same_file(absolute: str, repo_relative: str) -> bool:
    if repo_relative.endswith("/"):  # an untracked folder: every file below it
        return ("/" + repo_relative) in absolute or absolute.startswith(repo_relative)
    return absolute == repo_relative or absolute.endswith("/" + repo_relative)


def _relative(path: str, roots: Sequence[str]) -> str:
    for root in roots:
        if root and (path == root or path.startswith(root.rstrip("/") + "/")):
            return os.path.relpath(path, root)
    return path
