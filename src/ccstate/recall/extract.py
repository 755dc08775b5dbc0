"""One source's moments, from where its last read stopped, redacted, as `docs` rows.

Runs in the index's worker processes: everything here is per file and needs no database.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ccstate.recall.sources import Source
from ccstate.recall.text import parts
from ccstate.secrets import redact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.recall import moments as moments_mod

# moments, notes and reader are imported where a source is read (`load`): a query whose
# update finds nothing new never needs them (about 15 ms of every `ccstate recall`).


def load() -> None:
    """Import what reading a source takes (the index calls it before forking workers)."""
    from ccstate.recall import moments, notes, reader  # noqa: F401


PARTS_SCAN = 800  # body characters whose identifiers are split (long code: the first part)
Row = tuple[str, str, int, int, str, str, str, str, str]  # kind .. parts, as `docs` holds them


@dataclass(frozen=True)
class Job:
    source: Source
    offset: int  # > 0: carry on from here (a grown transcript)
    line: int
    state: str  # the extractor's JSON state at `offset`


@dataclass
class Extracted:
    rows: list[Row]
    offset: int = 0
    line: int = 0
    state: str = ""
    stopped: str = ""
    oversize: int = 0


def extract(
    job: Job,
    *,
    redactor: redact.Redactor,
    deadline: float | None = None,
    skip_sessions: frozenset[str] = frozenset(),
) -> Extracted:
    """The moments of one source from where its job starts, redacted, as rows for `docs`."""
    from ccstate.recall import notes

    src = job.source
    try:
        if src.kind == "transcript":
            return _extract_transcript(job, redactor, deadline)
        text = src.path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return Extracted([], job.offset, job.line, job.state, "unreadable")
    if src.kind == "handoff":
        found: Iterable[moments_mod.Moment] = notes.handoff_moments(text, src.session)
    elif src.kind == "progress":
        found = (
            m
            for m in notes.progress_moments(text)
            if not any(s.startswith(m.session) for s in skip_sessions)
        )
    else:
        from ccstate.decisions import log as decisions_log

        found = notes.decision_moments(decisions_log.parse_log(text))
    return Extracted([_row(m, redactor, m.session) for m in found])


def _extract_transcript(job: Job, redactor: redact.Redactor, deadline: float | None) -> Extracted:
    from ccstate.recall import moments as moments_mod
    from ccstate.recall import reader

    src = job.source
    state = json.loads(job.state) if job.state else None
    scan = moments_mod.TranscriptMoments(src.session, state, redactor)
    cursor = reader.Cursor(job.offset, job.line)
    rows: list[Row] = []
    records = reader.iter_records(
        src.path, cursor, deadline=deadline, skip=scan.skip_line, wanted=reader.WANTED_ALL
    )
    for line, record in records:
        scan.feed(line, record)
        if scan.out:
            rows += [_row(m, redactor, src.session) for m in scan.drain()]
    if not cursor.stopped:
        scan.finish()
        rows += [_row(m, redactor, src.session) for m in scan.drain()]
    # The state holds raw text (pending calls, open errors, the last answer): redacted too.
    # Each distinct string once (recent edits often name the same file).
    done: dict[str, str] = {}
    state_text = json.dumps(_redacted(scan.state(), redactor, done), separators=(",", ":"))
    return Extracted(rows, cursor.offset, cursor.line, state_text, cursor.stopped, cursor.oversize)


def _redacted(value: Any, redactor: redact.Redactor, done: dict[str, str]) -> Any:
    if isinstance(value, str):
        found = done.get(value)
        if found is None:
            found = done[value] = redactor.redact(value)
        return found
    if isinstance(value, list):
        return [_redacted(v, redactor, done) for v in value]
    if isinstance(value, dict):
        # keys too (#23): a failed call waits under a key made of its command's first words
        return {
            _redacted(k, redactor, done): _redacted(v, redactor, done) for k, v in value.items()
        }
    return value


def _row(m: moments_mod.Moment, redactor: redact.Redactor, session: str) -> Row:
    # Each alone (#23): joined, a rule that looks across lines (gitleaks' `curl ... -u`, a
    # Kubernetes secret's 300 characters) would read the title and the body as one text.
    title = redactor.redact(m.title)
    body = m.body if m.redacted else redactor.redact(m.body)  # cut from a redacted text
    return (
        m.kind,
        session or m.session,
        m.line,
        m.end_line,
        m.ts,
        m.branch,
        title,
        body,
        parts(title + "\n" + body[:PARTS_SCAN]),
    )
