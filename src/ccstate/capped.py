"""Folders of content-addressed files held under a byte cap at all times, counted in disk blocks.

The read ledger's blobs (`ledger/blobs/`) and the digests' originals (`out/`) are such folders:
files named by their content's hash, written once, marked recently used by their mtime when
delivered again. `put` writes one and keeps the folder within its cap there and then, evicting
the least recently used files; the cap counts what the files occupy on disk (`st_blocks`, a
90 KB file takes 92 KiB, a 600-byte one 4 KiB), not their apparent size (#14).

No scan of the folder per write: a size ledger beside it, `<folder>.size`, holds one fixed-width
line, the folder's total bytes on disk, its file count and the folder's mtime when the line was
written. Every change to the folder is made under `<folder>.size.lock` and ends by rewriting
that line in place, so the line is current while the folder's mtime still equals the one it
names. Anything else (the size ledger lost or garbled, a file added or removed by hand or by an
older ccstate, a writer killed between its rename and its line) shows as a different mtime, and
the next `put` or `check` rebuilds the line with one scan. An eviction scans anyway (to find the
least recently used) and writes the line from what it found, so the count heals there too.
Evictions go down to three quarters of the cap: one scan per quarter of the cap written.

Standard library only, os.path only: the PostToolUse hook imports this module.
"""

from __future__ import annotations

import os
import time

from ccstate import store

SUFFIX = ".size"
RECORD_WIDTH = 96  # bytes of the size ledger's line, "\n" included: rewritten in place
MAGIC = "ccstate-capped 1"
BLOCK = 4096  # what a file is counted as when its filesystem reports no blocks yet
LOW_WATER = 0.75  # an eviction frees the folder down to this share of the cap
STALE_TEMP_SECONDS = 600  # a temp file older than this was left by a killed writer
LOCK_TIMEOUT = 2.0  # PostToolUse: then the caller serves in full (hooks time out at 10 s)


class TooLarge(OSError):
    """The file alone would not fit under the cap: not kept."""


def size_path(folder: str) -> str:
    return folder.rstrip(os.sep) + SUFFIX


def disk_bytes(st: os.stat_result) -> int:
    """What a file occupies on disk: its blocks (a filesystem that allocates lazily and reports
    none yet is counted by whole 4 KiB blocks of its size)."""
    blocks = st.st_blocks * 512
    return blocks if blocks or not st.st_size else -(-st.st_size // BLOCK) * BLOCK


class Record:
    """The size ledger's line: total bytes on disk, file count, the folder's mtime (ns)."""

    __slots__ = ("count", "stamp", "total")

    def __init__(self, total: int, count: int, stamp: int) -> None:
        self.total, self.count, self.stamp = total, count, stamp

    def line(self) -> bytes:
        text = f"{MAGIC} {self.total} {self.count} {self.stamp}"
        return text.ljust(RECORD_WIDTH - 1).encode("ascii") + b"\n"


def _parse(data: bytes) -> Record | None:
    parts = data.split()
    if len(data) != RECORD_WIDTH or len(parts) != 5 or b" ".join(parts[:2]) != MAGIC.encode():
        return None
    try:
        total, count, stamp = (int(p) for p in parts[2:])
    except ValueError:
        return None
    return Record(total, count, stamp) if total >= 0 and count >= 0 else None


def read_record(folder: str) -> Record | None:
    """The size ledger's line as written (None when absent or garbled); not checked against the
    folder (`current` does that)."""
    try:
        with open(size_path(folder), "rb") as fh:
            return _parse(fh.read(RECORD_WIDTH + 1))
    except OSError:
        return None


def current(folder: str) -> Record | None:
    """The size ledger's line when it still describes the folder (its mtime unchanged)."""
    record = read_record(folder)
    try:
        stamp = os.stat(folder).st_mtime_ns
    except OSError:
        return None
    return record if record is not None and record.stamp == stamp else None


def _write_record(folder: str, total: int, count: int) -> None:
    stamp = os.stat(folder).st_mtime_ns
    fd = os.open(size_path(folder), os.O_WRONLY | os.O_CREAT, store.PRIVATE_FILE_MODE)
    try:
        os.pwrite(fd, Record(total, count, stamp).line(), 0)
        os.ftruncate(fd, RECORD_WIDTH)  # whatever was longer (garbled) goes; never empty
    finally:
        os.close(fd)


def put(folder: str, name: str, data: bytes, *, max_bytes: int) -> list[str]:
    """Keep `data` as `folder/name` (0600 in a 0700 folder) and the folder within `max_bytes`
    on disk. A file already there is only marked recently used; the file just written is never
    the one evicted. Returns the names evicted. Raises TooLarge (an OSError) when `data` alone
    would not fit, OSError when it cannot be written, StateError when the folder stays locked."""
    path = os.path.join(folder, name)
    try:
        os.utime(path)  # already kept: mark it recently used
        return []
    except FileNotFoundError:
        pass
    if -(-len(data) // BLOCK) * BLOCK > max_bytes:
        raise TooLarge(f"{path}: {len(data):,} bytes do not fit in {max_bytes:,}")
    store.ensure_private_dir(folder)
    with store.file_lock(size_path(folder), timeout=LOCK_TIMEOUT):
        before = current(folder)
        tmp = f"{path}.{os.getpid()}.{time.monotonic_ns()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, store.PRIVATE_FILE_MODE)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                added = disk_bytes(os.fstat(fd))
            finally:
                os.close(fd)
            try:
                replaced = disk_bytes(os.stat(path))  # a writer without the lock got there
            except FileNotFoundError:
                replaced = -1
            os.replace(tmp, path)
        except BaseException:
            _unlink_quietly(tmp)
            raise
        if before is None:
            return _rebuild(folder, max_bytes, keep=name)
        if replaced >= 0:
            total, count = before.total - replaced + added, before.count
        else:
            total, count = before.total + added, before.count + 1
        if total > max_bytes:
            return _rebuild(folder, max_bytes, keep=name)
        _write_record(folder, total, count)
        return []


def check(folder: str, max_bytes: int) -> list[str]:
    """Make sure the size ledger is current and the folder within `max_bytes` (SessionStart):
    a stat and one short read, unless the line is stale or the cap was lowered (one scan).
    Returns the names evicted."""
    record = current(folder)
    if record is not None and record.total <= max_bytes:
        return []
    if not os.path.isdir(folder):
        return []
    with store.file_lock(size_path(folder), timeout=LOCK_TIMEOUT):
        record = current(folder)  # another process may have done it meanwhile
        if record is not None and record.total <= max_bytes:
            return []
        return _rebuild(folder, max_bytes)


def _rebuild(folder: str, max_bytes: int, keep: str = "") -> list[str]:
    """One scan (under the lock): count the folder, evict the least recently used down to
    LOW_WATER of the cap when it is over, write the size ledger. `keep`, the file just
    written, is never evicted."""
    entries: list[tuple[float, str, int]] = []
    now = time.time()
    with os.scandir(folder) as it:
        for entry in it:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            if entry.name.endswith(".tmp"):  # not kept yet: neither counted nor evicted
                if now - st.st_mtime > STALE_TEMP_SECONDS:
                    _unlink_quietly(entry.path)  # a killed writer's
                continue
            entries.append((st.st_mtime, entry.name, disk_bytes(st)))
    total = sum(size for _mtime, _name, size in entries)
    evicted: list[str] = []
    if total > max_bytes:
        goal = int(max_bytes * LOW_WATER)
        for _mtime, name, size in sorted(entries):
            if total <= goal:
                break
            if name == keep:
                continue
            try:
                os.unlink(os.path.join(folder, name))
            except FileNotFoundError:
                pass
            except OSError:
                continue
            total -= size
            evicted.append(name)
    _write_record(folder, total, len(entries) - len(evicted))
    return evicted


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return
