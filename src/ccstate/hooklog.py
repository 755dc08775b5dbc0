"""The hook log (size-bounded) and per-event heartbeats that `doctor` reads.

Standard library only; every function here swallows OSError, because a hook
that cannot log must still exit 0 with nothing on stdout.
"""

from __future__ import annotations

import os
import time

from ccstate import fastjson, paths, store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from ccstate.store import StrPath

DEFAULT_MAX_BYTES = 262_144
PAYLOAD_HEAD = 2048


def append_log(
    state: StrPath,
    line: str,
    *,
    details: str = "",
    max_bytes: int = DEFAULT_MAX_BYTES,
    now: float | None = None,
) -> None:
    """Append one stamped line (plus indented details) to hooks.log; keep one rotated copy."""
    log = paths.log_path_str(os.fspath(state))
    stamp = time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime(now if now is not None else time.time())
    )
    body = f"{stamp} {line}\n"
    if details:
        body += "".join(f"    {row}\n" for row in details.rstrip("\n").splitlines())
    if len(body) > max_bytes:  # one entry never outgrows the whole log
        body = body[: max_bytes - 12] + "\n[truncated]\n"
    try:
        store.ensure_private_dir(os.path.dirname(log))
        if os.path.exists(log) and os.path.getsize(log) + len(body) > max_bytes:
            os.replace(log, log + ".1")
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, store.PRIVATE_FILE_MODE)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            if os.fstat(fd).st_mode & 0o777 != store.PRIVATE_FILE_MODE:
                os.fchmod(fd, store.PRIVATE_FILE_MODE)  # a log from before #12
            fh.write(body)
    except OSError:
        pass


def write_heartbeat(
    state: StrPath, event: str, outcome: str, *, now: float, detail: Mapping[str, Any] | None = None
) -> None:
    """Record the last run of `event`: time, outcome ('ok', 'output', 'error: …') and detail."""
    record = {"event": event, "time": now, "outcome": outcome, "detail": dict(detail or {})}
    try:
        folder = paths.heartbeat_dir_str(os.fspath(state))
        store.atomic_write_json(
            os.path.join(folder, f"{event}.json"), record, durable=False, private=True
        )
    except OSError:
        return


def read_heartbeats(state: Path) -> dict[str, dict[str, Any]]:
    """Last heartbeat per event name; unreadable files are skipped."""
    beats: dict[str, dict[str, Any]] = {}
    folder = paths.heartbeat_dir(state)
    if not folder.is_dir():
        return beats
    for path in sorted(folder.glob("*.json")):
        try:
            data = fastjson.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("event"), str):
            beats[data["event"]] = data
    return beats
