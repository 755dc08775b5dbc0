"""A cache of per-file scans for `ccstate report`: unchanged transcripts are not read again.

One JSON Lines file (`<user cache dir>/report-scans.jsonl`): a header line with the code stamp,
then one line per transcript (its absolute path, size and mtime, and its `FileScan`); a later
line for a path wins. A report appends the lines of the files it scanned, so one changed
transcript costs one line, not a rewrite of the whole cache; the file is rewritten compactly
(orjson) when it is new, when its code stamp changed (ccstate's version, the scanner's code,
the notice prefixes) or when more than half its lines are stale. A line cut short by a crash
is skipped. Safe to delete at any time.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import fields
from pathlib import Path
from typing import Any

from ccstate import __version__, store
from ccstate.report.composition import Composition
from ccstate.report.usage import Compaction, FileScan, Turn
from ccstate.transcript.runs import fast_loads

CACHE_VERSION = 3  # 2: Turn line/last/events/effort, hook runs, context sizes (#16); 3: #26
CACHE_NAME = "report-scans.jsonl"
_LEGACY_NAME = "report-scans.json"  # one JSON document rewritten whole (before #14), removed
MAX_ENTRIES = 5000  # the most recently modified transcripts are kept
_SLACK = 64  # stale lines always tolerated before a rewrite
# the scanner's code, relative to the ccstate package
_SCANNER_FILES = (
    "report/usage.py",
    "report/composition.py",
    "report/scan_cache.py",
    "report/timeline.py",
    "transcript/lines.py",
    "transcript/runs.py",
    "transcript/content.py",
    "transcript/sessions.py",
    "ledger/text.py",
)


def stamp(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def code_stamp(prefixes: tuple[str, ...]) -> str:
    """What a cached scan depends on besides the file: ccstate and its scanner code."""
    here = Path(__file__).parents[1]
    from ccstate.ledger.text import NOTE_TAG

    parts = [__version__, str(CACHE_VERSION), *prefixes, NOTE_TAG]
    for name in _SCANNER_FILES:
        parts.append(str(stamp(here / name)))
    return "|".join(parts)


class ScanCache:
    def __init__(self, path: Path, prefixes: tuple[str, ...]) -> None:
        self.path = path
        self.code = code_stamp(prefixes)
        self.entries: dict[str, dict[str, Any]] = {}  # path -> {"path", "stamp", "scan"}
        self.fresh: list[dict[str, Any]] = []  # entries put since the load: to append
        self.lines = 0  # entry lines in the file, stale ones included
        self.valid = False  # the file exists and starts with this code's header
        try:
            data = path.read_bytes()
        except OSError:
            return
        loads = fast_loads()  # orjson: ~2x json on this file
        lines = data.split(b"\n")
        try:
            header = loads(lines[0])
        except ValueError:
            return
        if not (isinstance(header, dict) and header.get("code") == self.code):
            return
        self.valid = True
        for line in lines[1:]:
            if not line:
                continue
            try:
                entry = loads(line)
            except ValueError:  # cut short by a crash, or glued to such a line
                continue
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                self.entries[entry["path"]] = entry
                self.lines += 1

    def get(self, file: Path) -> FileScan | None:
        entry = self.entries.get(str(file.resolve()))
        if entry is None or entry.get("stamp") != stamp(file):
            return None
        try:
            scan = from_json(dict(entry["scan"]))  # a copy: from_json takes its keys apart
        except (KeyError, TypeError, ValueError):
            return None
        scan.path = str(file)  # as the caller named it
        return scan

    def put(self, file: Path, scan: FileScan) -> None:
        file_stamp = stamp(file)
        if file_stamp is not None:
            entry: dict[str, Any] = {"path": str(file.resolve()), "stamp": file_stamp}
            entry["scan"] = to_json(scan)
            self.entries[entry["path"]] = entry
            self.fresh.append(entry)

    def save(self) -> None:
        """Append the entries put since the load, or rewrite the file when it is new, of
        another code, or mostly stale; a read-only cache dir is no error."""
        if not self.fresh:
            return
        live, lines = len(self.entries), self.lines + len(self.fresh)
        try:
            if self.valid and live <= MAX_ENTRIES and lines <= 2 * live + _SLACK:
                self._append()
            else:
                lines = self._rewrite()
        except OSError:
            return
        self.lines, self.fresh = lines, []

    def _append(self) -> None:
        body = b"".join(_dumps(entry) + b"\n" for entry in self.fresh)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND)  # gone meanwhile: no cache, no error
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":  # a line cut short: end it
                body = b"\n" + body
            with memoryview(body) as view:  # one write, as a rule: appends do not interleave
                done = 0
                while done < len(body):
                    done += os.write(fd, view[done:])
        finally:
            os.close(fd)

    def _rewrite(self) -> int:
        newest = sorted(self.entries.values(), key=lambda e: -e["stamp"][1])[:MAX_ENTRIES]
        self.entries = {e["path"]: e for e in newest}
        header = _dumps({"code": self.code})
        body = b"".join([header, b"\n", *(_dumps(e) + b"\n" for e in newest)])
        store.atomic_write_text(self.path, body.decode(), durable=False, private=True)
        self.valid = True
        legacy = self.path.with_name(_LEGACY_NAME)
        if legacy != self.path:
            legacy.unlink(missing_ok=True)
        return len(newest)


def _dumps(data: Any) -> bytes:
    try:
        import orjson
    except ImportError:  # the same lines, slower
        import json

        return json.dumps(data, separators=(",", ":")).encode()
    return orjson.dumps(data)


def to_json(scan: FileScan) -> dict[str, Any]:
    data = {f.name: getattr(scan, f.name) for f in fields(scan)}
    data["turns"] = [list(t) for t in scan.turns.values()]
    data["compactions"] = [c._asdict() for c in scan.compactions]
    data["composition"] = {k: v for k, v in vars(scan.composition).items()}
    return data


def from_json(data: dict[str, Any]) -> FileScan:
    turns = [Turn(*row) for row in data.pop("turns")]
    data["hook_runs"] = [tuple(run) for run in data.get("hook_runs", ())]
    compactions = [Compaction(**c) for c in data.pop("compactions")]
    comp = Composition()
    for name, value in data.pop("composition").items():
        current = getattr(comp, name)
        setattr(comp, name, Counter(value) if isinstance(current, Counter) else value)
    scan = FileScan(**data)
    scan.turns = {t.message_id: t for t in turns}
    scan.compactions = compactions
    scan.composition = comp
    return scan


def default_path(environ: Any = os.environ) -> Path:
    from ccstate import paths

    return paths.user_cache_dir(environ) / CACHE_NAME
