"""Where a handoff scan its deadline stopped goes on next time (#37).

A hook's scan ends at its share of the hook's budget; on a transcript too long for one budget
a scan that started over every time would never see the end. So when a scan is stopped, what
it had gathered is kept in `handoff/scans/<session>.json` with where it stopped (the byte
offset of the first line it did not read, that line's number less one), and the next scan of
the same transcript starts there. Once a scan went on from a saved point, where it ended is
saved as well, so the hooks after it read only what the transcript gained.

What is kept is redacted first, like every byte ccstate writes (#23, #37): the scan holds
texts raw so redaction sees a secret at its cap whole, and the file would otherwise hold them.
A redacted text a later record must match exactly (a queued prompt delivered after the stop, a
command whose first words were a secret) may then not match: the handoff counts that prompt
twice or keeps that error. The calls still waiting for their result keep only the inputs the
scan reads (`PENDING_KEYS`), each cut to `scan.KEEP`.

A saved point is used only for the same file (device and inode), no shorter than the offset,
whose bytes before the offset are the ones seen then (a digest of the last `TAIL` of them) and
only by the ccstate that wrote it (`VERSION`); anything else, or a file that does not parse,
and the scan starts from the top. At most `KEEP_FILES` are kept, the oldest removed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from pathlib import Path
from typing import Any

from ccstate import store
from ccstate.handoff.checks import Check, Verdict
from ccstate.handoff.scan import KEEP, Problem, Prompt, Scan, Todo, Touch
from ccstate.secrets.redact import Redactor

VERSION = 1
TAIL = 4096  # bytes before the offset whose digest must match
KEEP_FILES = 20
PENDING_KEYS = (
    "command",
    "file_path",
    "notebook_path",
    "path",
    "subject",
    "description",
    "taskId",
    "status",
)
_PROMPTS = ("first_prompt", "latest_prompt", "sidechain_prompt", "recap")
_PLAIN = ("session_id", "branch", "cwd", "first_time", "last_time")
_COUNTS = ("records", "last_line", "compactions", "prompt_count")


def folder(state: Path) -> Path:
    return state / "handoff" / "scans"


def path_for(state: Path, session: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session)[:120]
    return folder(state) / f"{safe or 'session'}.json"


def load(state: Path, session: str, transcript: Path) -> tuple[Scan, tuple[int, int]] | None:
    """The saved scan of `transcript` and where it goes on, or None (start from the top)."""
    target = path_for(state, session)
    try:
        saved = store.read_json(target)
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or saved.get("version") != VERSION:
        return None
    try:
        offset, line = int(saved["offset"]), int(saved["line"])
        if saved["file"] != _identity(transcript) or offset <= 0:
            return None
        if saved["tail"] != _tail_digest(transcript, offset):
            return None
        return from_json(saved["scan"]), (offset, line)
    except (KeyError, TypeError, ValueError, OSError):
        return None


def save(
    state: Path,
    session: str,
    transcript: Path,
    scan: Scan,
    where: tuple[int, int],
    redactor: Redactor,
) -> None:
    """Keep `scan`, redacted, with where the next scan of `transcript` goes on."""
    offset, line = where
    if offset <= 0:
        return
    data = {
        "version": VERSION,
        "file": _identity(transcript),
        "offset": offset,
        "line": line,
        "tail": _tail_digest(transcript, offset),
        "scan": _redacted(to_json(scan), redactor),
    }
    target = path_for(state, session)
    store.ensure_private_dir(target.parent)
    store.atomic_write_json(target, data, durable=False, private=True)
    _prune(target.parent)


def forget(state: Path, session: str) -> None:
    with contextlib.suppress(OSError):
        path_for(state, session).unlink()


def to_json(scan: Scan) -> dict[str, Any]:
    """The scan as JSON values; `from_json` gives an equal Scan back."""
    out: dict[str, Any] = {name: getattr(scan, name) for name in (*_PLAIN, *_COUNTS)}
    for name in _PROMPTS:
        found = getattr(scan, name)
        out[name] = dataclasses.asdict(found) if found is not None else None
    out["titles"] = {k: dataclasses.asdict(v) for k, v in scan.titles.items()}
    out["touches"] = [dataclasses.asdict(t) for t in scan.touches.values()]
    out["checks"] = [
        [key, {**dataclasses.asdict(c), "verdict": dataclasses.asdict(c.verdict)}]
        for key, c in scan.checks.items()
    ]
    out["commits"] = [[sha, subject, line] for sha, (subject, line) in scan.commits.items()]
    out["todos"] = [dataclasses.asdict(t) for t in scan.todos]
    out["tasks"] = [[key, dataclasses.asdict(t)] for key, t in scan.tasks.items()]
    out["problems"] = [[key, dataclasses.asdict(p)] for key, p in scan.problems.items()]
    out["cited"] = dict(scan.cited)
    out["added"] = dict(scan.added)
    out["pending"] = [
        [tool_id, name, _pending_input(tool_input), line]
        for tool_id, (name, tool_input, line) in scan._pending.items()
    ]
    out["queued"] = [[text, line] for text, line in scan._queued]
    out["delivered"] = list(scan._delivered)
    return out


def from_json(data: dict[str, Any]) -> Scan:
    scan = Scan()
    for name in _PLAIN:
        setattr(scan, name, str(data[name]))
    for name in _COUNTS:
        setattr(scan, name, int(data[name]))
    for name in _PROMPTS:
        found = data[name]
        setattr(scan, name, Prompt(**found) if found is not None else None)
    scan.titles = {k: Prompt(**v) for k, v in data["titles"].items()}
    scan.touches = {t["path"]: Touch(**t) for t in data["touches"]}
    scan.checks = {
        key: Check(**{**c, "verdict": Verdict(**c["verdict"])}) for key, c in data["checks"]
    }
    scan.commits = {sha: (subject, int(line)) for sha, subject, line in data["commits"]}
    scan.todos = [Todo(**t) for t in data["todos"]]
    scan.tasks = {key: Todo(**t) for key, t in data["tasks"]}
    scan.problems = {key: Problem(**p) for key, p in data["problems"]}
    scan.cited = {k: int(v) for k, v in data["cited"].items()}
    scan.added = {k: int(v) for k, v in data["added"].items()}
    scan._pending = {
        tool_id: (name, dict(tool_input), int(line))
        for tool_id, name, tool_input, line in data["pending"]
    }
    scan._queued = [(text, int(line)) for text, line in data["queued"]]
    scan._delivered = [str(text) for text in data["delivered"]]
    return scan


def _pending_input(tool_input: dict[str, Any]) -> dict[str, Any]:
    return {k: str(tool_input[k])[:KEEP] for k in PENDING_KEYS if k in tool_input}


def _redacted(value: Any, redactor: Redactor) -> Any:
    """Every string of `value`, keys too, through the redactor."""
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, dict):
        return {redactor.redact(k): _redacted(v, redactor) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, redactor) for v in value]
    return value


def _identity(transcript: Path) -> list[int]:
    info = os.stat(transcript)
    return [info.st_dev, info.st_ino]


def _tail_digest(transcript: Path, offset: int) -> str:
    """The digest of the `TAIL` bytes before `offset`; "" when the file is shorter."""
    fd = store.open_regular(transcript)
    with os.fdopen(fd, "rb") as fh:
        if os.fstat(fh.fileno()).st_size < offset:
            return ""
        start = max(0, offset - TAIL)
        fh.seek(start)
        data = fh.read(offset - start)
    return store.sha256_hex(data) if len(data) == offset - start else ""


def _prune(where: Path) -> None:
    with contextlib.suppress(OSError):  # a file another process removed first
        files = sorted(where.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[KEEP_FILES:]:
            old.unlink()
