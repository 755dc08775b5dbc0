"""The paths the session wrote (PostToolUse on Write, Edit, MultiEdit, NotebookEdit): one
line appended to `<state>/repo/touched`, nothing parsed. The next `ccstate find`,
SessionStart or SessionEnd re-indexes them first (`update.py`), whatever their stamps say.

Standard library only, and only `os`: this runs on every edit (the hot path, D1).
"""

from __future__ import annotations

import os

from ccstate import store

NAME = "touched"
MAX_BYTES = 1 << 20  # a runaway session's list stops growing here (the scan still finds them)


def note_path(state: str, path: str) -> bool:
    """Append `path` (absolute) to the touched list; False when it was not written."""
    if not path or "\n" in path:
        return False
    folder = os.path.join(state, "repo")
    target = os.path.join(folder, NAME)
    try:
        store.ensure_private_dir(folder)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, store.PRIVATE_FILE_MODE)
        try:
            if os.fstat(fd).st_size > MAX_BYTES:
                return False
            os.write(fd, (path + "\n").encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
    except OSError:
        return False
    return True


def take(state: str) -> list[str]:
    """The touched paths noted since the last take, once each, in order; the list is emptied
    (renamed away first, so a note appended meanwhile waits for the next take)."""
    target = os.path.join(state, "repo", NAME)
    taken = f"{target}.{os.getpid()}.taking"
    try:
        os.replace(target, taken)
    except OSError:
        return []
    try:
        with open(taken, "rb") as fh:
            data = fh.read()
    except OSError:
        data = b""
    finally:
        _unlink(taken)
    lines = data.decode("utf-8", "surrogateescape").splitlines()
    return list(dict.fromkeys(line for line in lines if line))


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return


def pending(state: str) -> bool:
    """Is anything noted and not yet re-indexed? (One stat.)"""
    try:
        return os.path.getsize(os.path.join(state, "repo", NAME)) > 0
    except OSError:
        return False
