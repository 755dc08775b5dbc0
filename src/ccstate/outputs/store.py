"""The originals a digest names: `<state>/out/<sha256>.txt`, content-addressed, private.

A digest ends with the path of the complete original output, byte for byte, so the model can
Read what the digest left out. Files are 0600 in a 0700 folder (an output can hold anything a
command printed), written atomically, never rewritten (same bytes, same name; a repeat only
marks the file recently used), and bounded like the ledger's blobs (ccstate/capped.py): every
write keeps the folder within `outputs.store_max_mb` on disk, dropping the least recently used;
`prune` checks the size ledger at SessionStart `startup` and `clear`.

Standard library only, os.path only: the PostToolUse hook imports this module.
"""

from __future__ import annotations

import os

from ccstate import capped, store

OUT_DIR = "out"
SUFFIX = ".txt"
NAME_HEX = 16  # of the sha256: 64 bits name a file; a different size under a name lengthens it
MAX_ORIGINAL_BYTES = 64 << 20  # a larger output is not kept, so it is not digested either
STORE_MAX_BYTES = 64 << 20  # `outputs.store_max_mb`'s default, for callers without a config


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


def keep(
    state: str, data: bytes, path: str | None = None, *, max_bytes: int = STORE_MAX_BYTES
) -> str:
    """The path holding `data` (written now unless it already exists): `path_for`'s, unless
    the caller got it already. The folder stays within `max_bytes` on disk. OSError when it
    cannot be written, StateError when the folder stays locked."""
    path = path or path_for(state, data)
    capped.put(out_dir(state), os.path.basename(path), data, max_bytes=max_bytes)
    return path


def prune(state: str, *, max_bytes: int) -> list[str]:
    """Make sure the folder fits in `max_bytes` on disk (its size ledger answers; a scan only
    when it is stale or the cap was lowered). Returns the names dropped."""
    return capped.check(out_dir(state), max_bytes)
