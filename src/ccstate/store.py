"""State files: atomic writes, locked read-modify-write, corrupt files set aside.

Standard library only: the hot hooks use this module. The lock is an advisory
`flock` on a `<file>.lock` sibling, the same primitive filelock's UnixFileLock
uses, so a CLI holding a `filelock.FileLock` on that path excludes hooks too.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ccstate.errors import StateError

STATE_GITIGNORE = (
    "# ccstate machine-local state (handoffs, ledger, logs): never committed.\n"
    "# Shared project files live at the repo root: .ccstate.yaml, DECISIONS.md, CLAUDE.md.\n"
    "*\n"
)


def ensure_state_dir(state: Path) -> Path:
    """Create the state dir with a `.gitignore` that keeps it out of git."""
    state.mkdir(parents=True, exist_ok=True)
    ignore = state / ".gitignore"
    if not ignore.exists():
        atomic_write_text(ignore, STATE_GITIGNORE)
    return state


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, fsync, then `os.replace` it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _mode_for(path: Path) -> int:
    """Keep an existing file's mode; new files get the usual 0666 & ~umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def read_json(path: Path, *, now: float | None = None) -> Any:
    """Parsed JSON from `path`, or None when absent.

    A corrupt file is renamed `<name>.corrupt-<ts>` and None is returned, so
    the caller starts fresh without losing the evidence.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        return json.loads(text)
    except ValueError:
        stamp = int(now if now is not None else time.time())
        with contextlib.suppress(OSError):
            os.replace(path, path.with_name(f"{path.name}.corrupt-{stamp}"))
        return None


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = 5.0) -> Iterator[None]:
    """Hold an exclusive lock on `<path>.lock`; StateError after `timeout` seconds."""
    lock_path = path.with_name(path.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows has no flock: use the filelock package
        import filelock

        try:
            with filelock.FileLock(str(lock_path), timeout=timeout):
                yield
        except filelock.Timeout as exc:
            raise StateError(f"{lock_path}: still locked after {timeout:g}s") from exc
        return
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StateError(f"{lock_path}: still locked after {timeout:g}s") from None
                time.sleep(0.01)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
