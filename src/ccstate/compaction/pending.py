"""The reminder waiting for the first hook after a compaction that can reach the model (#26).

PostCompact's own output never reaches the model (Claude Code 2.1.328 and 2.1.332 reject its
`additionalContext`, and after an auto-compaction show its stdout to nobody;
docs/COMPACTION.md), so PostCompact leaves the line here and the next PostToolUse (of
the main thread) or UserPromptSubmit hands it over, once: whichever renames the file first
owns it.

The file is keyed by session, outside the project (`$CCSTATE_HOME/pending/`, else
`$XDG_STATE_HOME/ccstate/pending/`, else `~/.local/state/ccstate/pending/`), so those hooks
learn there is nothing to do with one stat, before the project or its config is looked up.
Standard library only (D1).
"""

from __future__ import annotations

import os

from ccstate import fastjson, paths, store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

MAX_AGE_S = 14 * 86400  # a reminder nobody took in two weeks is dropped


def folder_str(environ: Mapping[str, str]) -> str:
    return paths.pending_dir_str(environ)


def path_str(session: str, environ: Mapping[str, str]) -> str:
    return paths.pending_path_str(session, environ)


def due(session: str, environ: Mapping[str, str]) -> bool:
    """Is a reminder waiting for this session? One stat."""
    return paths.reminder_waits(session, environ)


def put(session: str, environ: Mapping[str, str], data: Mapping[str, Any], now: float) -> None:
    folder = folder_str(environ)
    store.ensure_private_dir(folder)
    store.atomic_write_json(path_str(session, environ), dict(data), private=True)
    _prune(folder, now)


def drop(session: str, environ: Mapping[str, str]) -> None:
    try:
        os.unlink(path_str(session, environ))
    except OSError:
        return


def take(session: str, environ: Mapping[str, str]) -> dict[str, Any] | None:
    """The waiting reminder, now no longer waiting; None when there is none (or another hook
    took it first)."""
    path = path_str(session, environ)
    claimed = f"{path}.{os.getpid()}.taken"
    try:
        os.rename(path, claimed)
    except OSError:
        return None
    try:
        with open(claimed, encoding="utf-8") as fh:
            data = fastjson.loads(fh.read())
    except (OSError, ValueError):
        data = None
    finally:
        _unlink(claimed)
    return data if isinstance(data, dict) else None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return


def _prune(folder: str, now: float) -> None:
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if now - os.stat(path).st_mtime > MAX_AGE_S:
                os.unlink(path)
        except OSError:
            continue


def echoed(transcript: str, offset: int, marker: str, limit: int = 4 << 20) -> bool:
    """After a manual `/compact`, Claude Code records PreCompact's stdout in the command's
    `<local-command-stdout>`, which the model reads from the next turn on (both pinned
    versions). True when the transcript holds such a record with `marker` past `offset`."""
    try:
        fd = store.open_regular(transcript)  # a FIFO never blocks (#37)
    except OSError:
        return False
    try:
        data = os.pread(fd, limit, max(0, offset))
    except OSError:
        return False
    finally:
        os.close(fd)
    needle = marker.encode("utf-8")
    for line in data.split(b"\n"):
        if needle in line and b"local-command-stdout" in line:
            try:
                record = fastjson.loads(line.decode("utf-8", "replace"))
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("type") == "user":
                return True
    return False


def deliver(session: str, environ: Mapping[str, str], event: str) -> str | None:
    """The reminder line for the model, taken and recorded as handed over at `event`; None
    when none waits, or when Claude Code already showed the model the whole block (a manual
    `/compact` echoes it)."""
    data = take(session, environ)
    if data is None:
        return None
    from ccstate.compaction import store as compaction_store

    state, n = str(data.get("state") or ""), data.get("n")
    line = data.get("line")
    manual = data.get("manual") and isinstance(data.get("transcript"), str)
    if manual and echoed(
        str(data["transcript"]), int(data.get("offset") or 0), str(data["marker"])
    ):
        if state and isinstance(n, int):
            compaction_store.update(state, session, n, reminder="echoed")
        return None
    if state and isinstance(n, int):
        compaction_store.update(state, session, n, reminder="delivered", reminded=event)
    return line if isinstance(line, str) and line else None
