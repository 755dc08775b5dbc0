"""The read ledger at a session's boundaries (SessionStart, PreCompact; docs/LEDGER.md "Epochs").

A compaction or a resume starts a new epoch for every context of the session: the session's
generation token first, without a lock (a slow PostToolUse then cannot write an old epoch
back, `store.verify_epoch`), then each context's ledger, or, when one cannot be rewritten,
its deletion, which forgets just as well. Startup and `/clear` prune the store: the newest
`KEEP_SESSIONS` sessions, and the blob store under its cap. After a compaction, the capsule
names the files whose notices may outlive the Reads they point to. Never raises for I/O
trouble: problems go to the hook log. Standard library only: the plugin launcher starts
the epoch in its own process (`hooks.__main__.begin_epoch`).
"""

from __future__ import annotations

import os
import time

from ccstate import capped, store
from ccstate.errors import StateError
from ccstate.ledger import witness
from ccstate.ledger.core import new_epoch, replaced_paths
from ccstate.ledger.store import blob_dir, context_path, ledger_dir, load_ledger, to_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPOCH_LOCK_TIMEOUT = 5.0
KEEP_SESSIONS = 64


def start_epoch(
    state: str, session_id: str, agent_id: str | None, reason: str, *, now: float
) -> list[str]:
    """New epoch for one context. Returns problems to log; a ledger that cannot be rewritten
    is deleted instead, which forgets just as well."""
    return _reset(context_path(state, session_id, agent_id), reason, now)


def start_session_epoch(state: str, session_id: str, reason: str, *, now: float) -> list[str]:
    """New epoch for every context of a session: the main thread and each subagent. The new
    generation comes first and takes no lock: whatever happens to the resets, every ledger
    written before it is out of date (a slow PostToolUse cannot write an old epoch back)."""
    folder = os.path.dirname(context_path(state, session_id, None))
    problems = new_generation(folder, now=now)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        return problems
    for name in names:
        problems += _reset(os.path.join(folder, name), reason, now)
    return problems


def new_generation(folder: str, *, now: float) -> list[str]:
    """Write a new generation token for the session folder; problems to log."""
    token = f"{int(now * 1e6)}-{os.getpid()}-{time.monotonic_ns()}"
    try:
        store.ensure_private_dir(folder)
        store.atomic_write_text(
            os.path.join(folder, witness.GENERATION_NAME), token + "\n", private=True
        )
    except OSError as exc:
        return [f"{folder}: new generation not written ({exc})"]
    return []


def _reset(path: str, reason: str, now: float) -> list[str]:
    if not os.path.exists(path):
        return []
    try:
        with store.file_lock(path, timeout=EPOCH_LOCK_TIMEOUT):
            ledger, problems = load_ledger(path, now=now)
            fresh = new_epoch(ledger, reason)
            if fresh is not ledger:
                store.atomic_write_json(path, to_json(fresh), durable=False, private=True)
            return problems
    except (OSError, StateError) as exc:
        try:
            os.unlink(path)
        except OSError:
            return [f"{path}: new epoch not written ({exc}) and the ledger not deleted"]
        return [f"{path}: new epoch not written ({exc}); ledger deleted instead"]


def prune(state: str, *, max_bytes: int, keep_sessions: int = KEEP_SESSIONS) -> list[str]:
    """Drop all but the newest `keep_sessions` session ledgers, and make sure the blob store
    fits in `max_bytes` on disk (its size ledger answers: no scan of the blobs unless it is
    stale or the cap was lowered). Returns what was removed (for the log)."""
    import shutil

    root = ledger_dir(state)
    removed: list[str] = []
    sessions = [e for e in _entries(root) if e.is_dir() and e.name != "blobs"]
    for entry in sorted(sessions, key=_mtime, reverse=True)[keep_sessions:]:
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(f"session {entry.name}")
    removed += [f"blob {name[:12]}" for name in capped.check(blob_dir(state), max_bytes)]
    return removed


def _entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            return list(it)
    except OSError:
        return []


def _mtime(entry: os.DirEntry[str]) -> float:
    try:
        return entry.stat().st_mtime
    except OSError:
        return 0.0


def epoch_reason(event: str, source: str | None) -> str:
    """Why this lifecycle event ends the epoch ("" when it does not)."""
    if event == "PreCompact":
        return "compaction"
    if event == "SessionStart" and source == "compact":
        return "compaction (SessionStart)"
    if event == "SessionStart" and source == "resume":
        return "resume"
    return ""


def on_lifecycle(
    state: str,
    event: str,
    session_id: str,
    source: str | None,
    *,
    now: float,
    store_max_bytes: int,
    log_max_bytes: int,
) -> dict[str, Any]:
    """SessionStart / PreCompact bookkeeping (docs/LEDGER.md "Epochs"): a compaction or a resume
    starts a new epoch for every context of the session; startup and /clear prune the store.
    Never raises for I/O trouble: problems go to the hook log. Returns heartbeat detail."""
    reason = epoch_reason(event, source)
    problems: list[str] = []
    try:
        if reason:
            problems += start_session_epoch(state, session_id, reason, now=now)
        elif event == "SessionStart" and source in ("startup", "clear"):
            prune(state, max_bytes=store_max_bytes)
    except (OSError, StateError) as exc:
        problems.append(f"{type(exc).__name__}: {exc}")
    if problems:
        from ccstate import hooklog

        for problem in problems:
            hooklog.append_log(state, f"read ledger: {problem}", max_bytes=log_max_bytes, now=now)
    return {"ledger_epoch": reason or "unchanged"}


def capsule_section(state: str, project: str, session_id: str, source: str | None) -> list[str]:
    """After a compaction: name the files whose notices may outlive the Reads they point to.

    Compaction keeps the latest turns verbatim and summarises the rest, and Claude Code does
    not re-attach a file whose (replaced) Read sits in the kept turns, so a kept notice can
    point at a Read the summary replaced. The model is told to Read those files again; the
    new epoch serves them in full. Deterministic: sorted, no clock.
    """
    if source != "compact":
        return []
    ledger, _problems = load_ledger(context_path(state, session_id, None), now=0)
    paths = replaced_paths(ledger, ledger.epoch - 1)
    if not paths:
        return []
    shown = [os.path.relpath(p, project) if p.startswith(project + os.sep) else p for p in paths]
    more = f" (+{len(shown) - 6} more)" if len(shown) > 6 else ""
    return [
        "- Read ledger: notices kept from before this compaction may point at Reads the summary "
        f"replaced. Read again what you need of: {', '.join(shown[:6])}{more} (full text comes "
        "back)."
    ]
