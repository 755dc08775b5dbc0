"""Write handoffs: scan, build, render, persist (PreCompact, SessionEnd and the CLI).

Persisting holds one lock (`handoff/index.json.lock`) around: the session's handoff
(.md + .json), the index entry, and one progress-log entry. A write whose content
equals the session's last one changes nothing (PreCompact may fire 2-4 times for
one compaction). The progress log rotates into `archive/` past
`handoff.progress_max_bytes`; the index keeps the newest `handoff.keep_sessions`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccstate import gitinfo, paths, store
from ccstate.config import Config
from ccstate.errors import StateError
from ccstate.handoff import doc as handoff_doc
from ccstate.handoff import facts as handoff_facts
from ccstate.handoff import index as handoff
from ccstate.handoff import passed as handoff_passed
from ccstate.handoff import progress, resume
from ccstate.handoff.scan import Scan
from ccstate.secrets import redact
from ccstate.transcript.lines import Deadline, ReadStats, iter_numbered

SCAN_SECONDS = 20.0  # the CLI's; a hook's scan ends at its share of the hook's budget (#37)
SCAN_STOPPED = "transcript scan"  # how the note of a scan its deadline stopped starts
MAX_NOTES = 10
MAX_STARTS = 200
EMPTY_NOTE = (
    'the note is empty; pass the next step as text: ccstate handoff note "run the e2e tests"'
)
_DECISION_HEADING = re.compile(r"^#+\s*(D\d+)\b", re.M)


@dataclass(frozen=True)
class WriteResult:
    session: str
    path: Path | None  # the session's handoff (.md); None when skipped
    written: bool  # False: identical to the last write, or skipped
    tokens: int  # estimated (chars / 3)
    text: str
    facts: dict[str, Any] = dataclasses.field(default_factory=dict)  # handoff/facts.py
    adds: tuple[str, ...] = ()  # what the file holds beyond the capsule's lines (gist.py)
    stopped: str = ""  # where the transcript scan stopped at its deadline ("" = it did not)


def scan_transcript(path: Path | None, deadline: float | None = None) -> tuple[Scan, str]:
    """Stream the transcript; (scan, note) where note says why the scan stopped early."""
    scan, note, _where = scan_from(path, deadline, None)
    return scan, note


def scan_from(
    path: Path | None,
    deadline: float | None,
    saved: tuple[Scan, tuple[int, int]] | None,
) -> tuple[Scan, str, tuple[int, int] | None]:
    """(scan, note, where a later scan goes on: where the deadline stopped this one, or the
    end of the last whole line; None when neither is known). `saved`: a scan to go on with."""
    scan, start = saved if saved is not None else (Scan(), (0, 0))
    if path is None or not path.is_file():
        note = "no transcript" if path is None else f"transcript not found: {path.name}"
        return scan, note, None
    stats = ReadStats()
    try:
        for line, record in iter_numbered(path, deadline, start, stats):
            scan.feed(line, record)
    except Deadline as exc:
        return scan, f"{SCAN_STOPPED} {exc}", (exc.offset, exc.line)
    except OSError as exc:  # e.g. a FIFO or a device where the transcript should be
        return scan, f"transcript not read: {exc.strerror or exc}", None
    return scan, "", stats.end


def write_handoff(
    project: Path,
    state: Path,
    config: Config,
    *,
    transcript: Path | None,
    event: str,
    now: float,
    session_id: str | None = None,
    scan_seconds: float = SCAN_SECONDS,
    compactions: Sequence[tuple[str, str]] = (),
) -> WriteResult:
    """Build this session's handoff from its transcript and git, and persist it (idempotent).
    The result carries the facts a compaction must keep (handoff/facts.py)."""
    deadline = time.monotonic() + scan_seconds
    key = session_id or (transcript.stem if transcript else "")
    saved = resume.load(state, key, transcript) if key and transcript else None
    scan, scan_note, where = scan_from(transcript, deadline, saved)
    session = session_id or scan.session_id or (transcript.stem if transcript else "manual")
    redactor = redact.for_project(project)
    stopped = scan_note if scan_note.startswith(SCAN_STOPPED) else ""
    if key and transcript and (stopped or saved is not None):
        # a transcript one budget did not cover: the next scan goes on where this one ended;
        # a failed write loses nothing but time (the next scan starts from the top)
        with contextlib.suppress(OSError):
            if where is not None:
                resume.save(state, key, transcript, scan, where, redactor)
            else:
                resume.forget(state, key)
    foreign = bool(scan.cwd) and not _inside(Path(scan.cwd), project)
    if foreign:  # a transcript from elsewhere: this repository's git says nothing about it
        snap = gitinfo.Snapshot(
            branch=scan.branch or None,
            head=None,
            note="transcript from another directory: git details omitted",
        )
    else:
        snap = gitinfo.snapshot(project, _session_base(project, state, session, scan))
    if scan_note:
        snap = gitinfo.Snapshot(
            snap.branch,
            snap.head,
            snap.head_subject,
            snap.base,
            snap.commits,
            snap.diffstat,
            snap.dirty,
            "; ".join(n for n in (snap.note, scan_note) if n),
        )
    meta = handoff_doc.Meta(
        project=project.name,
        session=session,
        event=event,
        written=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
        written_epoch=int(now),
        transcript=transcript.name if transcript else "",
        records=scan.records,
        last_line=scan.last_line,
        branch=snap.branch,
        head=snap.head,
        head_subject=redactor.redact(snap.head_subject),
        base=snap.base,
    )
    roots = [str(project)] + ([scan.cwd] if scan.cwd else [])
    notes = read_notes(state, session)
    doc = handoff_doc.build(
        scan,
        snap,
        notes,
        meta,
        redactor,
        known_decisions=_known_decisions(project),
        roots=roots,
        compactions=compactions,
    )
    found = handoff_passed.found_in(scan.checks.values(), session, meta.written, redactor)
    if found and (event != "SessionEnd" or doc.substantive()):
        handoff_passed.record(state, snap.branch, found)  # before the index: its summary reads it
    result = persist(state, config, doc, redactor, skip_trivial=event == "SessionEnd")
    facts = handoff_facts.steer_facts(scan, snap, notes, redactor, roots)
    return dataclasses.replace(result, facts=facts, stopped=stopped)


def write_for_hook(
    project: Path,
    state: Path,
    config: Config,
    session_id: str,
    transcript_path: str,
    *,
    event: str,
    now: float,
    scan_deadline: float,
    compactions: Sequence[tuple[str, str]] = (),
) -> tuple[dict[str, object], WriteResult]:
    """The hooks' entry: write, the transcript scanned until `scan_deadline` (time.monotonic(),
    the hook's share for the handoff); the outcome for the heartbeat (no free text), and the
    result."""
    started = time.monotonic()
    transcript = Path(transcript_path) if transcript_path else None
    result = write_handoff(
        project,
        state,
        config,
        transcript=transcript,
        event=event,
        now=now,
        session_id=session_id,
        scan_seconds=max(0.0, scan_deadline - started),
        compactions=compactions,
    )
    if result.path is None:
        skipped = "skipped: the session only read and talked (nothing to hand off)"
        return {"handoff": skipped}, result
    detail: dict[str, object] = {
        "handoff": os.path.relpath(result.path, state),
        "written": result.written,
        "tokens_est": result.tokens,
        "ms": round((time.monotonic() - started) * 1000),
    }
    return detail, result


def persist(
    state: Path,
    config: Config,
    doc: handoff_doc.Handoff,
    redactor: redact.Redactor,
    *,
    skip_trivial: bool = False,
) -> WriteResult:
    """Write the handoff, its index entry and a progress entry, under the index lock.

    `skip_trivial` (SessionEnd): a session that did nothing to hand off and has no handoff
    yet writes none, so a quick question does not push the last real handoff aside.
    """
    text = handoff_doc.render(doc, int(config.get("handoff.max_tokens")), redactor)
    session = doc.meta.session
    rel = os.path.join(
        "branches", handoff.branch_key(doc.meta.branch), handoff.safe_name(session) + ".md"
    )
    path = Path(handoff.handoff_dir(state)) / rel
    fingerprint = doc.fingerprint()
    store.ensure_state_dir(state)
    with store.file_lock(handoff.index_path(state), timeout=10.0):
        # store.read_json sets a corrupt index aside (index.json.corrupt-<ts>) and starts afresh
        index = handoff.parse_index(store.read_json(handoff.index_path(state)))
        old = index["sessions"].get(session)
        if skip_trivial and not isinstance(old, dict) and not doc.substantive():
            return WriteResult(session, None, False, 0, "")
        if isinstance(old, dict) and old.get("fingerprint") == fingerprint and path.is_file():
            tokens = handoff_doc.estimate_tokens(text)
            return WriteResult(session, path, False, tokens, text, adds=handoff_doc.adds(doc))
        index["seq"] = int(index.get("seq", 0)) + 1
        store.atomic_write_text(path, text, private=True)
        store.atomic_write_json(path.with_suffix(".json"), doc.to_json(), private=True)
        if isinstance(old, dict) and old.get("path") not in (None, rel):
            _remove(Path(handoff.handoff_dir(state)) / str(old["path"]))
        index["sessions"][session] = _entry(doc, rel, int(index["seq"]), fingerprint)
        progress.append(state, config, progress.entry(doc, rel))
        _prune(state, index, int(config.get("handoff.keep_sessions")))
        store.atomic_write_json(handoff.index_path(state), index, private=True)
        handoff.remember(state, index)  # the capsule's summary of it (index.py)
    tokens = handoff_doc.estimate_tokens(text)
    return WriteResult(session, path, True, tokens, text, adds=handoff_doc.adds(doc))


def _entry(doc: handoff_doc.Handoff, rel: str, seq: int, fingerprint: str) -> dict[str, Any]:
    m = doc.meta
    return {
        "seq": seq,
        "session": m.session,
        "branch": m.branch,
        "head": m.head,
        "event": m.event,
        "written": m.written,
        "written_epoch": m.written_epoch,
        "path": rel,
        "fingerprint": fingerprint,
        "gist": [list(pair) for pair in doc.gist],
        "adds": list(handoff_doc.adds(doc)),  # what the file says beyond the gist (gist.py)
    }


def _prune(state: Path, index: dict[str, Any], keep: int) -> None:
    """Drop the oldest sessions' entries and files beyond `keep`; cap the start records."""
    sessions = index["sessions"]
    ordered = sorted(sessions, key=lambda s: int(sessions[s].get("seq", 0)), reverse=True)
    base = Path(handoff.handoff_dir(state))
    for session in ordered[keep:]:
        entry = sessions.pop(session)
        md = base / str(entry.get("path", ""))
        for path in (
            md,
            md.with_suffix(".json"),
            Path(handoff.notes_path(state, session)),
            Path(handoff.start_path(state, session)),
        ):
            _remove(path)
    starts = base / "starts"
    if starts.is_dir():
        files = sorted(starts.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for path in files[MAX_STARTS:]:
            _remove(path)


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError, IsADirectoryError):
        path.unlink()


def _session_base(project: Path, state: Path, session: str, scan: Scan) -> str | None:
    """HEAD at session start: recorded by SessionStart, else the reflog at the first record."""
    recorded = store.read_json(handoff.start_path(state, session))
    if isinstance(recorded, dict) and isinstance(recorded.get("head"), str):
        return str(recorded["head"])
    if scan.first_time:
        when = _parse_time(scan.first_time)
        if when is not None:
            return gitinfo.head_at(project, when)
    return None


def _parse_time(stamp: str) -> float | None:
    import calendar

    try:
        parsed = time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    return float(calendar.timegm(parsed))


def _known_decisions(project: Path) -> set[str]:
    try:
        text = paths.decisions_path(project).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    return set(_DECISION_HEADING.findall(text))


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True


# --------------------------------------------------------------------------- agent notes


def read_notes(state: Path, session: str) -> list[str]:
    data = store.read_json(handoff.notes_path(state, session))
    notes = data.get("notes") if isinstance(data, dict) else None
    return [str(n) for n in notes] if isinstance(notes, list) else []


def add_note(
    project: Path, state: Path, config: Config, session: str, text: str, *, now: float
) -> tuple[Path | None, int]:
    """Record a next-step note for `session` (redacted); re-render its handoff if it has one.

    Returns (handoff path or None, number of notes). Keeps the newest MAX_NOTES.
    """
    if not text.strip():
        raise StateError(EMPTY_NOTE)
    redactor = redact.for_project(project)
    text = " ".join(redactor.redact(text).split())  # redacted, then one line (#23)
    notes = [*read_notes(state, session), text][-MAX_NOTES:]
    with store.file_lock(handoff.notes_path(state, session), timeout=10.0):
        store.ensure_state_dir(state)
        store.atomic_write_json(
            handoff.notes_path(state, session), {"schema_version": 1, "notes": notes}, private=True
        )
    entry = handoff.read_index(state)["sessions"].get(session)
    if not isinstance(entry, dict):
        return None, len(notes)
    stored = store.read_json(
        (Path(handoff.handoff_dir(state)) / str(entry["path"])).with_suffix(".json")
    )
    if not isinstance(stored, dict):
        return None, len(notes)
    old_doc = handoff_doc.Handoff.from_json(stored)
    meta = dataclasses.replace(
        old_doc.meta,
        event="note",
        written=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
        written_epoch=int(now),
    )
    items = handoff_doc.note_items(notes, redactor)
    sections = tuple((k, items if k == "next" else v) for k, v in old_doc.sections)
    draft = handoff_doc.Handoff(meta, sections, ())
    doc = handoff_doc.Handoff(meta, sections, handoff_doc.make_gist(draft))
    return persist(state, config, doc, redactor).path, len(notes)


def set_compactions(
    state: Path, config: Config, session: str, entries: Sequence[tuple[str, str]], *, now: float
) -> Path | None:
    """Put `entries` (compaction/store.py `handoff_entries`) into the session's handoff and
    re-render it, the rest as written (PostCompact: the compaction came after the handoff).
    None when the session has no handoff."""
    entry = handoff.read_index(state)["sessions"].get(session)
    if not isinstance(entry, dict):
        return None
    stored = store.read_json(
        (Path(handoff.handoff_dir(state)) / str(entry["path"])).with_suffix(".json")
    )
    if not isinstance(stored, dict):
        return None
    old_doc = handoff_doc.Handoff.from_json(stored)
    redactor = redact.Redactor(patterns=False)  # the entries were redacted when they were made
    items = handoff_doc.compaction_items(entries, redactor)
    sections = dict(old_doc.sections)
    sections["compactions"] = items
    ordered = tuple((key, sections.get(key, ())) for key, _t, _c in handoff_doc.SECTIONS)
    meta = dataclasses.replace(
        old_doc.meta,
        event="PostCompact",
        written=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
        written_epoch=int(now),
    )
    draft = handoff_doc.Handoff(meta, ordered, ())
    doc = handoff_doc.Handoff(meta, ordered, handoff_doc.make_gist(draft))
    return persist(state, config, doc, redactor).path
