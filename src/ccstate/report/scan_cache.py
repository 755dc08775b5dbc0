"""A cache of per-file scans for `ccstate report`: unchanged transcripts are not read again.

One JSON file (`<user cache dir>/report-scans.json`) maps a transcript's absolute path to its
`FileScan`, stamped with the file's size and mtime. The whole cache is dropped when ccstate's
version, the scanner's code or the notice prefixes change. Safe to delete at any time.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import fields
from pathlib import Path
from typing import Any

from ccstate import __version__, store, transcript
from ccstate.report.composition import Composition
from ccstate.report.usage import Compaction, FileScan, Turn

CACHE_VERSION = 2  # 2: Turn line/last/events/effort, hook runs, context sizes (#16)
CACHE_NAME = "report-scans.json"
MAX_ENTRIES = 5000  # the most recently modified transcripts are kept
# the scanner's code, relative to the ccstate package
_SCANNER_FILES = (
    "report/usage.py",
    "report/composition.py",
    "report/scan_cache.py",
    "report/timeline.py",
    "transcript.py",
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
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False
        try:
            data = transcript.fast_loads()(path.read_bytes())  # orjson: ~2x json on this file
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("code") == self.code:
            entries = data.get("entries")
            self.entries = entries if isinstance(entries, dict) else {}

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
            self.entries[str(file.resolve())] = {"stamp": file_stamp, "scan": to_json(scan)}
            self.dirty = True

    def save(self) -> None:
        """Write it back when something changed; a read-only cache dir is no error."""
        if not self.dirty:
            return
        newest = sorted(self.entries.items(), key=lambda kv: -kv[1]["stamp"][1])[:MAX_ENTRIES]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            store.atomic_write_json(self.path, {"code": self.code, "entries": dict(newest)})
        except OSError:
            return


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
