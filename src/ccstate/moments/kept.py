"""What ccstate kept out of this session's contexts so far, in tokens, for the status line.

ONE function, `session_kept_out_tokens`, so that the count can be swapped for the session's
*applied* kept-out tokens without touching the status line. That figure,
`report.summary.kept_out_as_applied` (#24.4), parses the whole transcript with the report's
modules: far too slow for a line run after every message, so it would have to come from a
cache a hook writes (docs/MOMENTS.md). Until then this reads what is kept per session on
disk: the read ledger's `stats.saved_chars` of every context of the session
(`<state>/ledger/<session>/main.json`, `agent-<id>.json`; ledger/store.py), in tokens as the
report estimates them (characters / 4, rounded up; report/summary.py). Digests are not in it.
Reads only; a missing state dir or ledger costs one failed `scandir`.
"""

from __future__ import annotations

import os

from ccstate import fastjson

CHARS_PER_TOKEN = 4  # report/summary.py's estimate
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def session_kept_out_tokens(state: str, session_id: str) -> int | None:
    """Tokens ccstate kept out of the session's contexts; None when it holds no ledger (ccstate
    not active here, or nothing read yet)."""
    if not session_id or len(session_id) > 80 or not set(session_id) <= _SAFE:
        return None  # ledger/store.py files such ids under a hash: not worth a hash import here
    if session_id.startswith("."):
        return None
    folder = os.path.join(state, "ledger", session_id)
    try:
        entries = [e.path for e in os.scandir(folder) if e.name.endswith(".json")]
    except OSError:
        return None
    chars = 0
    for path in entries:
        chars += _saved_chars(path)
    return -(-chars // CHARS_PER_TOKEN)


def _saved_chars(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as fh:
            data = fastjson.loads(fh.read())
    except (OSError, ValueError):
        return 0
    stats = data.get("stats") if isinstance(data, dict) else None
    saved = stats.get("saved_chars") if isinstance(stats, dict) else None
    return saved if isinstance(saved, int) and not isinstance(saved, bool) and saved > 0 else 0
