"""The originals a digest names: `<state>/out/<sha256>.txt`, content-addressed, private.

A digest ends with the path of the complete original output, byte for byte, so the model can
Read what the digest left out. Files are 0600 in a 0700 folder (an output can hold anything a
command printed), written atomically, never rewritten (same bytes, same name; a repeat only
marks the file recently used), and bounded like the ledger's blobs: `prune` drops the least
recently used beyond `outputs.store_max_mb`, at SessionStart `startup` and `clear`.

Standard library only, os.path only: the PostToolUse hook imports this module.
"""

from __future__ import annotations

import os
import time

from ccstate import store

OUT_DIR = "out"
SUFFIX = ".txt"
NAME_HEX = 16  # of the sha256: 64 bits name a file; a different size under a name lengthens it
MAX_ORIGINAL_BYTES = 64 << 20  # a larger output is not kept, so it is not digested either


def out_dir(state: str) -> str:
    return os.path.join(state, OUT_DIR)


def original_path(state: str, sha: str) -> str:
    return os.path.join(out_dir(state), sha + SUFFIX)


def path_for(state: str, data: bytes) -> str:
    """Where `data` is (or would be) kept: named by the first NAME_HEX hex digits of its
    sha256, or all 64 when a file of another size already has the short name."""
    sha = store.sha256_hex(data)
    short = original_path(state, sha[:NAME_HEX])
    try:
        taken = os.stat(short).st_size != len(data)
    except OSError:
        taken = False
    return original_path(state, sha) if taken else short


def read_original(path: str) -> bytes | None:
    """The file Claude Code persisted a long output to, or None when it cannot be read or is
    larger than MAX_ORIGINAL_BYTES."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_ORIGINAL_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= MAX_ORIGINAL_BYTES else None


def keep(state: str, data: bytes, path: str | None = None) -> str:
    """The path holding `data` (written now unless it already exists): `path_for`'s, unless
    the caller got it already."""
    path = path or path_for(state, data)
    try:
        os.utime(path)  # already kept: mark it recently used
        return path
    except FileNotFoundError:
        pass
    folder = out_dir(state)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)  # also when it existed: outputs are private
    tmp = f"{path}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return path


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return


def prune(state: str, *, max_bytes: int) -> list[str]:
    """Drop the least recently used originals until the folder fits in `max_bytes`."""
    try:
        with os.scandir(out_dir(state)) as it:
            entries = [(e.stat().st_mtime, e.stat().st_size, e.path, e.name) for e in it]
    except OSError:
        return []
    entries = [e for e in entries if e[3].endswith(SUFFIX)]
    total = sum(size for _mtime, size, _path, _name in entries)
    removed: list[str] = []
    for _mtime, size, path, name in sorted(entries):
        if total <= max_bytes:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        removed.append(name)
    return removed
