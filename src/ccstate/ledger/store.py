"""The read ledger on disk: one locked JSON file per context, a content-addressed blob store.

    <state>/ledger/<session_id>/main.json           the main thread
    <state>/ledger/<session_id>/agent-<id>.json     each subagent
    <state>/ledger/blobs/<sha256>                   delivered text, for diffs and partial re-reads
    <state>/ledger/blobs.size                       the blob store's size ledger (ccstate/capped.py)

Everything fails open: a missing or corrupt ledger is a fresh one (the context gets full content),
a damaged blob reads as missing, a lock held too long raises StateError for the caller to log.
The blob store stays within `dedupe.store_max_mb` on disk at every write (`capped.put` evicts the
least recently delivered text); a Read whose delivered text is no longer kept is served in full.
Session boundaries (new epochs, pruning, the capsule's line) are lifecycle.py's.
Hot path (PostToolUse): standard library only, os.path rather than pathlib.
"""

from __future__ import annotations

import os
import stat

from ccstate import capped, fastjson, store
from ccstate.ledger import witness
from ccstate.ledger.core import (
    SCHEMA_VERSION,
    Ledger,
    Segment,
    new_epoch,
    with_meta,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import TracebackType
    from typing import Any

LOCK_TIMEOUT = 2.0  # PostToolUse: then serve the full content (hooks time out at 10 s)
MAX_BLOB_BYTES = 4 << 20  # larger deliveries are not kept: their re-reads come back in full
MAX_HASH_BYTES = 2 << 20  # larger files get no file sha (a whole-file Read stops at 256 KiB)
STORE_MAX_BYTES = 64 << 20  # `dedupe.store_max_mb`'s default, for callers without a config
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def ledger_dir(state: str) -> str:
    return os.path.join(state, "ledger")


def blob_dir(state: str) -> str:
    return os.path.join(state, "ledger", "blobs")


def context_path(state: str, session_id: str, agent_id: str | None) -> str:
    name = f"agent-{_safe(agent_id)}.json" if agent_id else "main.json"
    return os.path.join(ledger_dir(state), _safe(session_id), name)


def _safe(name: str) -> str:
    if name and len(name) <= 80 and set(name) <= _SAFE and not name.startswith("."):
        return name
    return store.sha256_hex(name.encode("utf-8", "surrogatepass"))[:32]


class open_context:  # used like a function: `with open_context(...) as ctx:`
    """Lock and load one context's ledger. Read `ledger`, assign the new one, `keep` text the
    context received; on a clean exit the blobs are written first, then the ledger.

    With `verify`, the epoch's witnesses are checked first (`verify_epoch`): a ledger they do
    not vouch for starts a new epoch, and `reset` says why."""

    def __init__(
        self,
        state: str,
        session_id: str,
        agent_id: str | None,
        *,
        now: float,
        timeout: float = LOCK_TIMEOUT,
        verify: bool = False,
        transcript: str = "",
        pid: str = "",
        store_max_bytes: int = STORE_MAX_BYTES,
    ) -> None:
        self.state = state
        self.store_max_bytes = store_max_bytes
        self.path = context_path(state, session_id, agent_id)
        self.now = now
        self.ledger = self.original = Ledger()
        self.problems: list[str] = []
        self.reset = ""
        self._verify = (transcript, pid) if verify else None
        self._blobs: list[tuple[str, str]] = []
        self._lock = store.file_lock(self.path, timeout=timeout)

    def __enter__(self) -> open_context:
        self._lock.__enter__()
        try:
            self.ledger, self.problems = load_ledger(self.path, now=self.now)
            self.original = self.ledger
            if self._verify is not None:
                folder = os.path.dirname(self.path)
                transcript, pid = self._verify
                self.ledger, self.reset = verify_epoch(
                    self.ledger, folder, transcript, pid, now=self.now
                )
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None and self.ledger is not self.original:
                for text, sha in self._blobs:  # first: a ledger never names text not written
                    write_blob(self.state, text, max_bytes=self.store_max_bytes, sha=sha)
                if self._verify is not None:
                    self.ledger = with_meta(self.ledger, last_seen=self.now)
                store.atomic_write_json(
                    self.path, to_json(self.ledger), durable=False, private=True
                )
        finally:
            self._lock.__exit__(exc_type, exc, tb)

    def load(self, sha: str) -> str | None:
        """The text kept under `sha`; None when it is not (evicted: served in full, nothing to
        log) or damaged (logged)."""
        text, damaged = _read_blob(self.state, sha)
        if damaged:
            self.problems.append(f"blob {sha[:12]} damaged")
        return text

    def kept(self, sha: str) -> bool:
        """Is the text under `sha` still in the blob store (one stat)?"""
        return has_blob(self.state, sha)

    def keep(self, text: str, sha: str = "") -> None:
        """Keep `text` (whose sha256 is `sha`, when the caller has it) in the blob store."""
        self._blobs.append((text, sha))


def verify_epoch(
    ledger: Ledger, folder: str, transcript: str, pid: str, *, now: float
) -> tuple[Ledger, str]:
    """(the ledger, or a new epoch of it, and why) after asking every witness whether the
    context may have lost Read results since the ledger's last event (ledger/witness.py)."""
    meta = ledger.meta
    reasons = []
    generation = witness.read_generation(folder)
    if generation is None:
        reasons.append("session generation unreadable")
    elif generation != meta.get("generation", ""):
        reasons.append("new session generation (compaction or resume)")
    idle = witness.idle_reason(meta.get("last_seen"), now)
    if idle:
        reasons.append(idle)
    if pid and meta.get("pid") and pid != meta.get("pid"):
        reasons.append("Claude Code restarted (resume)")
    seen = meta.get("witness")
    why, position = witness.scan(
        transcript, seen if isinstance(seen, dict) else {}, must_scan=bool(ledger.paths)
    )
    if why:
        reasons.append(why)
    reason = "; ".join(reasons) if ledger.reads or ledger.paths or ledger.writes else ""
    fresh = new_epoch(ledger, f"witness: {reason}") if reason else ledger
    token = generation if generation is not None else "?unreadable"
    return with_meta(fresh, generation=token, witness=position, pid=pid or meta.get("pid", "")), (
        reason
    )


def load_ledger(path: str, *, now: float) -> tuple[Ledger, list[str]]:
    """The ledger at `path` (fresh when absent); a corrupt file is set aside and reported."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return Ledger(), []
    except (OSError, UnicodeDecodeError) as exc:
        return Ledger(), [f"{path}: unreadable ({exc}); starting a fresh ledger"]
    try:
        return from_json(fastjson.loads(text)), []
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        aside = f"{path}.corrupt-{int(now)}"
        try:
            os.replace(path, aside)
        except OSError:
            aside = "(could not be moved)"
        return Ledger(), [f"{path}: corrupt ({type(exc).__name__}: {exc}); set aside as {aside}"]


def to_json(ledger: Ledger) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "epoch": ledger.epoch,
        "epoch_reason": ledger.epoch_reason,
        "reads": ledger.reads,
        "paths": {
            path: [[s.start, s.end, s.sha, s.read_no, s.args] for s in segments]
            for path, segments in ledger.paths.items()
        },
        "pending": list(ledger.pending) if ledger.pending else None,
        "history": list(ledger.history),
        "stats": dict(ledger.stats),
        "files": {path: dict(info) for path, info in ledger.files.items()},
        "shell_reads": ledger.shell_reads,
        "writes": dict(ledger.writes),
        "unheld": list(ledger.unheld),
        "meta": dict(ledger.meta),
    }


def from_json(data: Any) -> Ledger:
    """Strict: anything unexpected raises, and the caller treats the file as corrupt. An older
    schema is migrated (`_migrate`)."""
    if isinstance(data, dict) and data.get("schema_version") == 1:
        return _migrate_v1(data)
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"not a schema {SCHEMA_VERSION} ledger")
    meta = data["meta"]
    if not isinstance(meta, dict):
        raise ValueError("bad meta")
    return _parse(data, meta)


def _migrate_v1(data: dict[str, Any]) -> Ledger:
    """Schema 1 had no witnesses (#12): nothing proves its epoch is current, so keep history,
    counters and the stat cache, and start a new epoch."""
    old = _parse(data, {})
    if not old.reads and not old.paths:
        return old
    return new_epoch(old, "schema upgrade")


def _parse(data: dict[str, Any], meta: dict[str, Any]) -> Ledger:
    paths: dict[str, tuple[Segment, ...]] = {}
    for path, rows in data["paths"].items():
        segments = []
        for start, end, sha, read_no, args in rows:
            ok = isinstance(start, int) and isinstance(end, int) and 1 <= start <= end
            if not ok or not isinstance(sha, str) or len(sha) != 64:
                raise ValueError(f"bad segment for {path}")
            segments.append(Segment(start, end, sha, int(read_no), str(args)))
        paths[str(path)] = tuple(segments)
    pending = data["pending"]
    return Ledger(
        epoch=int(data["epoch"]),
        epoch_reason=str(data["epoch_reason"]),
        reads=int(data["reads"]),
        paths=paths,
        pending=tuple(str(p) for p in pending[:3]) if pending else None,
        history=tuple(dict(h) for h in data["history"]),
        stats={str(k): int(v) for k, v in data["stats"].items()},
        files={str(k): dict(v) for k, v in data["files"].items()},
        shell_reads=int(data.get("shell_reads", 0)),
        meta=meta,
        writes={str(k): int(v) for k, v in data.get("writes", {}).items()},  # absent: none
        unheld=tuple(str(p) for p in data.get("unheld", ())),
    )


# --------------------------------------------------------------------------- blobs


def write_blob(state: str, text: str, *, max_bytes: int = STORE_MAX_BYTES, sha: str = "") -> str:
    """Keep `text` under its sha256 (`sha`, when the caller computed it already), the store
    within `max_bytes` on disk (least recently delivered text evicted first). No fsync: a torn
    blob fails its hash check and is skipped."""
    data = text.encode("utf-8", "surrogatepass")
    sha = sha or store.sha256_hex(data)
    if len(data) > MAX_BLOB_BYTES:
        return sha
    try:
        capped.put(blob_dir(state), sha, data, max_bytes=max_bytes)
    except capped.TooLarge:  # like a blob over MAX_BLOB_BYTES: its re-reads come back in full
        return sha
    return sha


def read_blob(state: str, sha: str) -> str | None:
    """The text kept under `sha`, or None when absent or damaged."""
    return _read_blob(state, sha)[0]


def _read_blob(state: str, sha: str) -> tuple[str | None, bool]:
    """(the text kept under `sha` or None, whether it was there but damaged)."""
    try:
        with open(os.path.join(blob_dir(state), _safe(sha)), "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return None, False
    except OSError:
        return None, True
    if store.sha256_hex(data) != sha:
        return None, True
    return data.decode("utf-8", "surrogatepass"), False


def has_blob(state: str, sha: str) -> bool:
    try:
        os.stat(os.path.join(blob_dir(state), _safe(sha)))
    except OSError:
        return False
    return True


def file_sha(path: str, cache: Mapping[str, Any] | None) -> tuple[str, list[int] | None]:
    """(sha256 of the file on disk, its stat stamp); a matching stamp in `cache` skips hashing.
    Regular files only, read at most MAX_HASH_BYTES: a FIFO, `/dev/zero` or a socket never
    blocks the hook (#12); they get no sha."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return "", None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return "", None
        stamp = [st.st_mtime_ns, st.st_size, st.st_ino]
        if cache and cache.get("stamp") == stamp and isinstance(cache.get("sha"), str):
            return str(cache["sha"]), stamp
        if st.st_size > MAX_HASH_BYTES:
            return "", stamp
        data = os.read(fd, MAX_HASH_BYTES + 1)
        while len(data) <= MAX_HASH_BYTES and (more := os.read(fd, MAX_HASH_BYTES + 1)):
            data += more
        if len(data) > MAX_HASH_BYTES:
            return "", stamp
        return store.sha256_hex(data), stamp
    except OSError:
        return "", None
    finally:
        os.close(fd)
