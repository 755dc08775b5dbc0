"""Handoff files, keyed per session and branch, and the SessionStart capsule section.

This module runs at every SessionStart, so it is light: standard library, no
dataclasses, no GitPython (HEAD is read from the files by `gitinfo.read_head`).
Writing a handoff (transcript scan, git, rendering) lives in `handoff_store`,
imported only by PreCompact, SessionEnd and the CLI.

Layout under the state dir (docs/HANDOFF.md):

    handoff/index.json                        one entry per session: seq, branch, HEAD, gist
    handoff/branches/<branch>/<session>.md    the current handoff of that session (+ .json)
    handoff/notes/<session>.json              next steps written by the agent
    handoff/starts/<session>.json             HEAD when the session started
    handoff/progress.md                       append-only log, rotated into handoff/archive/
"""

from __future__ import annotations

import json
import os
import re

from ccstate import gitinfo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from ccstate.config import Config

SCHEMA_VERSION = 1
HANDOFF_DIR = "handoff"
DAY = 86_400
# When a handoff is written (handoff/store.py `persist`, `skip_trivial`): said the same way
# by the capsule, `ccstate handoff show --list` and the SessionEnd heartbeat.
WRITTEN_WHEN = "at compaction, and at session end unless the session only read and talked"
NONE_YET = "- handoff: none yet (written to {state}/ " + WRITTEN_WHEN + ")"
RESUMING = ("compact", "resume")  # these sources continue a session: prefer its own handoff


def handoff_dir(state: str | os.PathLike[str]) -> str:
    return os.path.join(state, HANDOFF_DIR)


def index_path(state: str | os.PathLike[str]) -> str:
    return os.path.join(handoff_dir(state), "index.json")


def start_path(state: str | os.PathLike[str], session: str) -> str:
    return os.path.join(handoff_dir(state), "starts", safe_name(session) + ".json")


def notes_path(state: str | os.PathLike[str], session: str) -> str:
    return os.path.join(handoff_dir(state), "notes", safe_name(session) + ".json")


def safe_name(name: str) -> str:
    """A file name for a session id or branch: unsafe characters replaced, collisions avoided."""
    clean = re.sub(r"[^A-Za-z0-9._-]", "-", name).strip(".-") or "_"
    if clean != name:
        import hashlib  # rare (branch names with '/'); SessionStart does not pay for it

        clean = f"{clean[:80]}-{hashlib.sha1(name.encode('utf-8')).hexdigest()[:6]}"
    return clean[:120]


def branch_key(branch: str | None) -> str:
    return safe_name(branch) if branch else "_detached"


def read_index(state: str | os.PathLike[str]) -> dict[str, Any]:
    """The index, or an empty one when absent or unreadable (never raises)."""
    try:
        with open(index_path(state), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        data = None
    return parse_index(data)


def parse_index(data: Any) -> dict[str, Any]:
    """A usable index from parsed JSON: entries the capsule cannot use are dropped."""
    if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
        return {"schema_version": SCHEMA_VERSION, "seq": 0, "sessions": {}}
    seq = data.get("seq")
    sessions = {k: v for k, v in data["sessions"].items() if valid_entry(v)}
    return {**data, "seq": seq if isinstance(seq, int) else 0, "sessions": sessions}


def choose(
    index: dict[str, Any], branch: str | None, session: str | None = None
) -> dict[str, Any] | None:
    """The handoff to show: this session's own, else the newest on `branch`, else the newest."""
    entries = [e for e in index["sessions"].values() if valid_entry(e)]
    if session:
        own = index["sessions"].get(session)
        if valid_entry(own):
            return own
    on_branch = [e for e in entries if e.get("branch") == branch]
    pool = on_branch or entries
    return max(pool, key=lambda e: int(e["seq"])) if pool else None


def known_sessions(state: str | os.PathLike[str]) -> set[str]:
    """Sessions this project has seen: those with a handoff or a start record."""
    known = set(read_index(state)["sessions"])
    try:
        names = os.listdir(os.path.join(handoff_dir(state), "starts"))
    except OSError:
        names = []
    return known | {n[: -len(".json")] for n in names if n.endswith(".json")}


def match_known(state: str | os.PathLike[str], given: str) -> str:
    """The full id of the known session `given` starts (CcstateError when several); `given`
    itself when it matches none (a session that has neither handoff nor start record)."""
    from ccstate import transcript

    return transcript.match_session(given, known_sessions(state)) or given


def valid_entry(entry: Any) -> bool:
    """An index entry the capsule can use (a hand-edited or damaged index must not crash it)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("seq"), int):
        return False
    gist = entry.get("gist", [])
    pairs = isinstance(gist, list) and all(isinstance(g, list) and len(g) == 2 for g in gist)
    return pairs and isinstance(entry.get("path", ""), str)


def record_start(project: Path, state: Path, session_id: str) -> None:
    """Remember HEAD at a session's first SessionStart (diffstat base). One stat after that."""
    path = start_path(state, session_id)
    if not session_id or os.path.exists(path):
        return
    head = gitinfo.read_head(project)
    if head is None or head.sha is None:
        return
    from ccstate import store

    try:
        store.atomic_write_json(
            path, {"branch": head.branch, "head": head.sha}, durable=False, private=True
        )
    except OSError:
        return  # only the diffstat base is lost (the reflog stands in); the capsule must not be


def capsule_section(
    project: Path,
    state: Path,
    config: Config,
    source: str | None,
    *,
    session_id: str | None = None,
    now: float | None = None,
) -> list[str]:
    """Capsule lines about the handoff to continue from. Pure over the files; no clock text.

    Staleness is worded so the text changes only when its condition flips: HEAD moved,
    another branch, or the age crossing `handoff.stale_days` (needs `now`; 0 turns it off).
    """
    index = read_index(state)
    head = gitinfo.read_head(project)
    branch = head.branch if head else None
    entry = choose(index, branch, session_id if source in RESUMING else None)
    if entry is None:
        return [NONE_YET.format(state=_shown(state, project))]
    lines = [_headline(entry, state, project)]
    lines += stale_reasons(entry, head, now, int(config.get("handoff.stale_days")))
    lines += [f"  - {key}: {text}" for key, text in entry.get("gist", []) if text]
    others = sum(
        1
        for e in index["sessions"].values()
        if valid_entry(e) and e.get("branch") == entry.get("branch") and e is not entry
    )
    if others:
        lines.append(
            f"  - {others} other session handoff(s) on this branch: `ccstate handoff show --list`"
        )
    from ccstate import redact

    literals_only = redact.for_project(
        project, patterns=False
    )  # the gist was redacted when written
    return [literals_only.redact(line) for line in lines]


def _headline(entry: dict[str, Any], state: Path, project: Path) -> str:
    where = f"branch {entry.get('branch')}" if entry.get("branch") else "detached HEAD"
    at = f" @ {str(entry.get('head'))[:7]}" if entry.get("head") else ""
    path = os.path.join(handoff_dir(state), str(entry.get("path", "")))
    return (
        f"- handoff ({entry.get('event')}, session {str(entry.get('session'))[:8]}, {where}{at}): "
        f"full handoff: {_shown(path, project)}"
    )


def stale_reasons(
    entry: dict[str, Any], head: gitinfo.Head | None, now: float | None, stale_days: int
) -> list[str]:
    """Plain reasons not to trust the handoff blindly; [] when it is current."""
    reasons = []
    old_branch, old_head = entry.get("branch"), entry.get("head")
    if head is not None and old_branch and head.branch != old_branch:
        where = f"branch {head.branch}" if head.branch else "a detached HEAD"
        reasons.append(f"  - STALE: the handoff is from branch {old_branch}; you are on {where}")
    elif head is not None and old_head and head.sha and head.sha != old_head:
        reasons.append(
            f"  - STALE: HEAD moved since the handoff ({old_head[:7]} -> {head.sha[:7]}); "
            f"see `git log --oneline {old_head[:7]}..HEAD`"
        )
    epoch = entry.get("written_epoch")
    old = now is not None and isinstance(epoch, int) and now - epoch > stale_days * DAY
    if old and stale_days > 0:
        day = str(entry.get("written", ""))[:10]
        reasons.append(f"  - STALE: the handoff is older than {stale_days} days (written {day})")
    return reasons


def _shown(path: str | os.PathLike[str], project: Path) -> str:
    """`path` relative to the project when inside it (shorter, and the same on every machine)."""
    rel = os.path.relpath(path, project)
    return os.fspath(path) if rel.startswith("..") else rel
