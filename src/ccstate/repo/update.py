"""Keep the code index current: re-read only what changed, within a time bound.

What changed: the paths the session noted (PostToolUse, `notes.py`) first, then every file
git lists whose size or mtime differs from its stamp (a `git pull`, another editor), and
files git no longer lists are forgotten. One `git ls-files` and one lstat per file: no file
is read unless it changed. Files are parsed in batches (in forked workers when there are
many), each batch committed, so a bounded run keeps what it did and says how far it got;
the next run carries on.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from ccstate import fanout
from ccstate.errors import CcstateError, StateError
from ccstate.repo import files, index, notes
from ccstate.repo.chunks import Parsed, parse_file
from ccstate.repo.files import Entry

LOCKED = "another process is indexing (`ccstate doctor` shows how far it got)"
BATCH = 256  # files parsed between two commits
PARALLEL_FROM = 64  # fewer changed files than this are parsed in this process


@dataclass
class Progress:
    listed: int = 0  # files git lists
    indexed: int = 0  # files read and parsed by this run
    skipped: int = 0  # files newly recorded as skipped
    removed: int = 0
    pending: int = 0  # changed files this run left for the next one (its time ran out)
    seconds: float = 0.0
    error: str = ""  # why nothing was indexed (not git, locked)
    locked: bool = False  # another process holds the index (the background indexer)
    stopped: list[str] = field(default_factory=list)

    def line(self) -> str:
        """One line for stderr, the heartbeat, or `doctor`."""
        if self.error:
            return f"code index: {self.error}"
        done = f"code index: {self.indexed} file(s) read, {self.removed} removed"
        more = f"; {self.pending} of {self.listed} still to read" if self.pending else ""
        return f"{done} in {self.seconds:.2f}s{more}"


def refresh(
    project: Path,
    state: Path,
    *,
    max_bytes: int,
    deadline: float | None = None,
    jobs: int = 1,
    full: bool = False,
    lock_timeout: float = 10.0,
) -> Progress:
    """Bring the index up to date (`deadline`: `time.monotonic()` after which no batch starts)."""
    started = time.monotonic()
    try:
        listed = files.tracked(project)  # first: a folder that is not git gets no state at all
    except files.NotGit as exc:
        return Progress(error=str(exc))
    try:
        with index.lock(state, lock_timeout):
            con = index.connect(state)
            try:
                progress = _refresh(con, project, state, listed, max_bytes, deadline, jobs, full)
            finally:
                con.close()
    except StateError:
        return Progress(error=LOCKED, locked=True)
    progress.seconds = time.monotonic() - started
    return progress


def _refresh(
    con: sqlite3.Connection,
    project: Path,
    state: Path,
    listed: list[str],
    max_bytes: int,
    deadline: float | None,
    jobs: int,
    full: bool,
) -> Progress:
    noted = _noted(project, notes.take(str(state)))
    todo, skips, gone = _plan(con, project, listed, noted, full)
    progress = Progress(listed=len(listed))
    with index.transaction(con):
        for path in gone:
            index.remove(con, path)
        for entry in skips:
            index.put(con, entry, None)
        if gone or skips:
            index.bump_generation(con)
    progress.removed, progress.skipped = len(gone), len(skips)
    _read(con, project, todo, progress, max_bytes, deadline, jobs)
    if progress.pending:  # what was noted and not read: noted again for the next run
        for path in noted:
            notes.note_path(str(state), str(project / path))
    with index.transaction(con):
        index.set_meta(con, "listed", str(progress.listed))
        index.set_meta(con, "pending", str(progress.pending))
        head = files.head(project)
        if head != index.meta(con, "churn_head"):  # a commit, a pull, a checkout
            index.set_churn(con, files.churn(project) if head else {}, head)
    return progress


def _noted(project: Path, paths: list[str]) -> list[str]:
    """Noted absolute paths as project-relative ones (those outside the project dropped)."""
    root = os.path.realpath(project)
    out = []
    for raw in paths:
        full = os.path.realpath(raw) if os.path.isabs(raw) else os.path.join(root, raw)
        rel = os.path.relpath(full, root)
        if not rel.startswith(".."):
            out.append(rel.replace(os.sep, "/"))
    return out


def _plan(
    con: sqlite3.Connection, project: Path, listed: list[str], noted: list[str], full: bool
) -> tuple[list[Entry], list[Entry], list[str]]:
    """(files to read, noted ones first; files to record as skipped; paths to forget)."""
    known = index.stamps(con)
    listed_set = set(listed)
    first = [p for p in noted if p in listed_set]
    todo: list[Entry] = []
    skips: list[Entry] = []
    root = str(project)
    present = set()
    for path in dict.fromkeys([*first, *listed]):
        was = known.get(path)
        if not full and was is not None and path not in first and _unchanged(root, path, was):
            present.add(path)
            continue  # one lstat: the stamp it had, with the reason it had
        entry = files.vetted(root, path)
        if entry.skip == "gone":
            continue
        present.add(path)
        if entry.skip:
            if was is None or was[2] != entry.skip:
                skips.append(entry)
        elif full or path in first or was is None or was[:2] != (entry.size, entry.mtime_ns):
            todo.append(entry)
    gone = sorted(p for p in known if p not in present)
    return todo, skips, gone


def _unchanged(root: str, path: str, was: tuple[int, int, str]) -> bool:
    """Is the file where it was, with the size and mtime it was stamped with?"""
    if was[0] < 0:
        return False  # skipped by its name or kind: vetted again (cheap, and rare)
    try:
        st = os.lstat(os.path.join(root, path))
    except OSError:
        return False
    return (st.st_size, st.st_mtime_ns) == was[:2] and not stat.S_ISLNK(st.st_mode)


def _read(
    con: sqlite3.Connection,
    project: Path,
    todo: list[Entry],
    progress: Progress,
    max_bytes: int,
    deadline: float | None,
    jobs: int,
) -> None:
    """Parse and store `todo` a batch at a time, each batch one transaction."""
    for at in range(0, len(todo), BATCH):
        if deadline is not None and time.monotonic() > deadline:
            progress.pending = len(todo) - at
            progress.stopped.append("time budget")
            return
        batch = todo[at : at + BATCH]
        full = index.used_bytes(con) > max_bytes
        parsed = _parse_all(project, batch, jobs) if not full else []
        with index.transaction(con):
            for entry, (got, why) in zip(batch, parsed or [(None, "")] * len(batch), strict=True):
                if full:
                    why = "the index is full (find.max_mb)"
                index.put(con, entry, got, why)
                progress.indexed += got is not None
                progress.skipped += got is None
            index.flush(con)
            index.bump_generation(con)


def _parse_all(project: Path, batch: list[Entry], jobs: int) -> list[tuple[Parsed | None, str]]:
    work = [(project, entry) for entry in batch]
    if jobs > 1 and len(batch) >= PARALLEL_FROM:
        return fanout.fan_out(parse_one, work, jobs)
    return [parse_one(item) for item in work]


def parse_one(item: tuple[Path, Entry]) -> tuple[Parsed | None, str]:
    """One file read and parsed, or None and why it is skipped (runs in the workers)."""
    project, entry = item
    text, data, why = files.read_text(project, entry)
    if why:
        return None, why
    return parse_file(entry.path, text, data), ""


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def ensure_index(state: Path) -> None:
    """CcstateError when there is no index yet (for `--no-update`)."""
    if not index.index_path(state).exists():
        raise CcstateError(f"No code index in {index.folder(state)}; run 'ccstate find' once")
