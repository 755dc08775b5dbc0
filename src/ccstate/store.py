"""State files: atomic writes, locked read-modify-write, corrupt files set aside.

Standard library only: the hot hooks use this module. The lock is an advisory
`flock` on a `<file>.lock` sibling, the same primitive filelock's UnixFileLock
uses, so a CLI holding a `filelock.FileLock` on that path excludes hooks too.
"""

from __future__ import annotations

import os
import time

from ccstate import fastjson
from ccstate.errors import StateError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

    StrPath = str | os.PathLike[str]

try:  # SHA-256 from the builtin module hashlib itself falls back to: importing hashlib loads
    # OpenSSL, about 4 ms on every PostToolUse (docs/BENCHMARKS.md). Same digests.
    from _sha2 import sha256 as _sha256  # Python 3.12+
except ImportError:  # pragma: no cover - depends on the Python version
    try:
        from _sha256 import sha256 as _sha256  # Python 3.10, 3.11
    except ImportError:
        from hashlib import sha256 as _sha256

STATE_GITIGNORE = (
    "# ccstate machine-local state (handoffs, ledger, logs): never committed.\n"
    "# Shared project files live at the repo root: .ccstate.yaml, DECISIONS.md, CLAUDE.md.\n"
    "*\n"
)


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of `data` (hashlib's digest, without hashlib's import cost)."""
    return _sha256(data).hexdigest()


PRIVATE_DIR_MODE = 0o700  # state that holds file or transcript text is the user's alone (#12)
PRIVATE_FILE_MODE = 0o600


def ensure_state_dir(state: StrPath) -> None:
    """Create the state dir (private: 0700, an older 0755 one is fixed) with a `.gitignore`
    that keeps it out of git."""
    state = os.fspath(state)
    ensure_private_dir(state)
    ignore = os.path.join(state, ".gitignore")
    if not os.path.exists(ignore):
        atomic_write_text(ignore, STATE_GITIGNORE)


def ensure_private_dir(folder: StrPath) -> None:
    """`folder` and its missing parents exist, each one created 0700 whatever the umask
    (`make_private_dirs`); `folder` itself is 0700 (one stat when it is)."""
    folder = os.fspath(folder)
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        make_private_dirs(folder)
        st = os.stat(folder)
    if st.st_mode & 0o777 != PRIVATE_DIR_MODE:
        os.chmod(folder, PRIVATE_DIR_MODE)


def make_private_dirs(folder: StrPath) -> None:
    """Create `folder` and every missing parent 0700, whatever the umask (#23: `os.makedirs`
    gives the parents the umask's mode, and its `mode` is masked too). Folders that exist
    are left as they are. Every folder ccstate creates goes through here."""
    folder = os.path.abspath(os.fspath(folder))
    missing = []
    while not os.path.isdir(folder):
        missing.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for path in reversed(missing):
        try:
            os.mkdir(path, PRIVATE_DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(path, PRIVATE_DIR_MODE)


def in_state(path: StrPath) -> bool:
    """Is `path` inside a state dir (a `.ccstate` folder, or under `CCSTATE_HOME`)? What is
    written there is private: 0600 files in 0700 folders (#23)."""
    path = os.path.abspath(os.fspath(path))
    if f"{os.sep}.ccstate{os.sep}" in path + os.sep:
        return True
    home = os.environ.get("CCSTATE_HOME") or ""
    return bool(home) and (path + os.sep).startswith(os.path.abspath(home) + os.sep)


def atomic_write_text(
    path: StrPath, text: str, *, durable: bool = True, private: bool = False
) -> None:
    """Write `text` to a temp file beside `path`, then `os.replace` it into place.

    `durable` adds an fsync; heartbeats and caches skip it (losing one on a power cut is fine).
    `private` makes the file 0600 whatever it was before (state holding file or transcript
    text); otherwise an existing file keeps its mode.
    """
    path = os.fspath(path)
    folder, name = os.path.split(path)
    private = private or in_state(path)
    if private:
        ensure_private_dir(folder or ".")
    else:
        os.makedirs(folder or ".", exist_ok=True)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    mode = PRIVATE_FILE_MODE if private else _existing_mode(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
    try:
        if mode is not None:
            os.chmod(tmp, mode)  # keep an existing file's mode, or make it private
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return


def _existing_mode(path: str) -> int | None:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return None


def atomic_write_json(
    path: StrPath, data: Any, *, durable: bool = True, private: bool = False
) -> None:
    """`data` as compact JSON (state is read by programs; `python -m json.tool` shows it to a
    person), keys in the order the caller built them: an order can carry meaning (#14)."""
    atomic_write_text(path, fastjson.dumps(data) + "\n", durable=durable, private=private)


def read_json(path: StrPath, *, now: float | None = None) -> Any:
    """Parsed JSON from `path`, or None when absent.

    A corrupt file is renamed `<name>.corrupt-<ts>` and None is returned, so
    the caller starts fresh without losing the evidence.
    """
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return None
    try:
        return fastjson.loads(text)
    except ValueError:
        stamp = int(now if now is not None else time.time())
        try:
            os.replace(path, f"{path}.corrupt-{stamp}")
        except OSError:
            return None
        return None


class file_lock:  # used like a function: `with file_lock(path):`
    """Hold an exclusive lock on `<path>.lock`; StateError after `timeout` seconds.

    A class rather than a contextlib generator: contextlib is not free on the hot path.
    """

    def __init__(self, path: StrPath, timeout: float = 5.0) -> None:
        self.lock_path = os.fspath(path) + ".lock"
        self.timeout = timeout
        self._fd: int | None = None
        self._fallback: Any = None

    def _open(self) -> int:
        make_private_dirs(os.path.dirname(self.lock_path) or ".")  # only state is locked
        return os.open(self.lock_path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)

    def __enter__(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows has no flock: use the filelock package
            self._enter_filelock()
            return
        fd = self._open()
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._fd = fd
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise StateError(self._timeout_message()) from None
                time.sleep(0.01)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None
        if self._fallback is not None:  # pragma: no cover - Windows
            self._fallback.release()
            self._fallback = None

    def _enter_filelock(self) -> None:  # pragma: no cover - Windows
        import filelock

        lock = filelock.FileLock(self.lock_path, timeout=self.timeout)
        try:
            lock.acquire()
        except filelock.Timeout as exc:
            raise StateError(self._timeout_message()) from exc
        self._fallback = lock

    def _timeout_message(self) -> str:
        return f"{self.lock_path}: still locked after {self.timeout:g}s"


class dir_lock(file_lock):  # used like a function: `with dir_lock(folder):`
    """An exclusive `flock` on the directory itself: no lock file to leave behind (a project
    root shows every file in `git status`), and every writer agrees on it whatever its state
    dir (CCSTATE_HOME). Guards the shared files at the project root, e.g. DECISIONS.md."""

    def __init__(self, folder: StrPath, timeout: float = 5.0) -> None:
        super().__init__(folder, timeout)
        self.lock_path = os.fspath(folder)

    def _open(self) -> int:
        return os.open(self.lock_path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))

    def _enter_filelock(self) -> None:  # pragma: no cover - Windows: a lock file beside it
        self.lock_path = os.path.join(self.lock_path, ".ccstate.lock")
        super()._enter_filelock()


def sweep_temp_files(path: StrPath) -> list[str]:
    """Remove `atomic_write_text` temp files of `path` left by killed writers. Only call it
    while holding the lock every writer of `path` takes: then no live writer owns one."""
    folder, name = os.path.split(os.fspath(path))
    removed: list[str] = []
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return removed
    for other in names:
        if other.startswith(f".{name}.") and other.endswith(".tmp"):
            try:
                os.unlink(os.path.join(folder, other))
            except OSError:
                continue
            removed.append(other)
    return removed


def file_stamp(path: StrPath) -> list[int] | None:
    """[inode, size, mtime_ns, ctime_ns] of `path`, None when it is absent or unreadable.

    What a cache of something derived from one file is keyed by: an atomic replace (every
    ccstate write, git checkout, most editors) gives a new inode, an in-place write a new
    mtime and ctime, so any change shows with one stat.
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def open_regular(path: StrPath) -> int:
    """A read-only descriptor of `path`, which must be a regular file; OSError otherwise (a
    FIFO, a device, a folder). Never blocks: a FIFO opened for reading waits for a writer, so
    it is opened non-blocking and refused by its `fstat` (#12, #37)."""
    import stat  # loaded with os: no import cost

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{os.fspath(path)}: not a regular file")
    except BaseException:
        os.close(fd)
        raise
    os.set_blocking(fd, True)
    return fd
