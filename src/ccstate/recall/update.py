"""Keep the recall index current: for the session at hand (hooks) or for everything (CLI).

SessionEnd and PreCompact index the session's transcript (and its subagents'), its
handoff, the progress log and DECISIONS.md, within what is left of the hook's budget;
a transcript the budget cut short is read on from where it stopped next time. The CLI
updates everything before it searches (only what changed is read) and rebuilds on
`--reindex`.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path

from ccstate.config import Config
from ccstate.errors import CcstateError
from ccstate.recall import index, sources, writer
from ccstate.secrets import redact
from ccstate.transcript.sessions import subagent_transcripts

MIN_SECONDS = 0.5  # less than this left: skip (the next update catches up)
NO_TIME = "skipped: no time left in the hook"
CATCH_UP_SECONDS = 3.0  # then older transcripts not indexed yet, a slice per hook run


def max_bytes(config: Config) -> int:
    return int(config.get("recall.max_mb")) << 20


def refresh(
    project: Path,
    state: Path,
    config: Config,
    *,
    environ: Mapping[str, str] = os.environ,
    full: bool = False,
    jobs: int | None = None,
    timeout: float = 10.0,
) -> tuple[sqlite3.Connection, writer.Report]:
    """Open the index and bring it up to date with every source of the project."""
    con = index.connect(state, timeout=timeout, replace_unusable=full)
    try:
        if full:
            writer.forget_stamps(con)
        todo = sources.project_sources(project, state, environ)
        workers = jobs if jobs is not None else _cpus()
        report = writer.update(
            con,
            todo,
            redactor=redact.for_project(project),
            max_bytes=max_bytes(config),
            jobs=workers,
            full=full,
        )
        if report.read or report.pruned_sessions or not index.summary_path(state).exists():
            _after(con, project, state, config)
        else:  # nothing new, but a model named since the last update still needs its vectors
            _vectors(con, project, config)
    except BaseException:
        con.close()
        raise
    return con, report


def _cpus() -> int:
    """The CPUs this process may run on (its affinity, not the host's count, in a container)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows
        return os.cpu_count() or 1


def update_for_hook(
    project: Path,
    state: Path,
    config: Config,
    transcript_path: str,
    *,
    deadline: float,
) -> dict[str, object]:
    """The hooks' entry: index the session at hand by `deadline` (time.monotonic(): the
    hook's share for recall, hooks/budget.py); describe the outcome for the heartbeat. What
    the deadline cut short is read on from where it stopped next time."""
    if not config.get("recall.enabled"):
        return {"recall": "disabled"}
    if deadline - time.monotonic() < MIN_SECONDS:
        return {"recall": NO_TIME}
    try:
        con = index.connect(state, timeout=2.0)
    except CcstateError as exc:
        return {"recall": f"skipped: {exc}"}
    try:
        report = _session_and_catch_up(con, project, state, config, transcript_path, deadline)
        semantic_off = _after(con, project, state, config, deadline)
    except (sqlite3.OperationalError, CcstateError) as exc:  # locked by a reindex
        return {"recall": f"skipped: {exc}"}
    finally:
        con.close()
    detail: dict[str, object] = {
        "recall": f"{report.moments} moments from {report.read} files",
        "recall_ms": round(report.seconds * 1000),
    }
    if semantic_off:
        detail["recall_semantic"] = f"off: {semantic_off}"
    if report.stopped:
        detail["recall_stopped"] = report.stopped[:3]
    return detail


def _session_and_catch_up(
    con: sqlite3.Connection,
    project: Path,
    state: Path,
    config: Config,
    transcript_path: str,
    deadline: float,
) -> writer.Report:
    """The session's transcripts and the state files, then a slice of older transcripts."""
    mine = []
    if transcript_path:
        main = Path(transcript_path)
        files = [main, *subagent_transcripts(main)] if main.is_file() else []
        mine = [sources.transcript_source(p) for p in files]
    mine += sources.state_sources(project, state)
    redactor, limit = redact.for_project(project), max_bytes(config)
    report = writer.update(con, mine, redactor=redactor, max_bytes=limit, deadline=deadline)
    done = {s.path for s in mine}
    others = [s for s in sources.project_sources(project, state) if s.path not in done]
    catch_up = min(deadline, time.monotonic() + CATCH_UP_SECONDS)
    if others and time.monotonic() < catch_up:
        more = writer.update(con, others, redactor=redactor, max_bytes=limit, deadline=catch_up)
        report.read += more.read
        report.moments += more.moments
        report.seconds += more.seconds
    return report


def _after(
    con: sqlite3.Connection,
    project: Path,
    state: Path,
    config: Config,
    deadline: float | None = None,
) -> str:
    """The summary, then the configured model's vectors for new moments (those `deadline`
    leaves time for, in a hook); '' or why semantic ranking is off (no numpy, a missing or
    broken model folder): BM25 still has every moment."""
    index.write_summary(state, index.stats(con))
    return _vectors(con, project, config, deadline)


def _vectors(
    con: sqlite3.Connection, project: Path, config: Config, deadline: float | None = None
) -> str:
    name = str(config.get("recall.embedding_model"))
    if not name:
        return ""
    from ccstate.recall import embed

    try:
        embed.update_vectors(con, embed.load_model(name, project), deadline)
    except CcstateError as exc:
        return str(exc)
    return ""
