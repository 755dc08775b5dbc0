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

from ccstate import gitinfo, store
from ccstate.handoff import passed as handoff_passed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ccstate.config import Config
    from ccstate.store import StrPath

SCHEMA_VERSION = 1
HANDOFF_DIR = "handoff"
DAY = 86_400
# When a handoff is written (handoff/store.py `persist`, `skip_trivial`): said the same way
# by the capsule, `ccstate handoff show --list` and the SessionEnd heartbeat.
WRITTEN_WHEN = "at compaction, and at session end unless the session only read and talked"
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
    sessions = index["sessions"]
    if session and valid_entry(sessions.get(session)):
        return sessions[session]
    items = [(key, e) for key, e in sessions.items() if valid_entry(e)]
    on_branch = [item for item in items if item[1].get("branch") == branch]
    pool = on_branch or items
    return max(pool, key=_newest)[1] if pool else None


def _newest(item: tuple[str, dict[str, Any]]) -> tuple[int, str]:
    """Order of recency: the write sequence, then the session id (a damaged index may repeat a
    seq; the order in which the sessions are listed must not decide)."""
    return int(item[1]["seq"]), item[0]


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
    from ccstate.transcript.sessions import match_session

    return match_session(given, known_sessions(state)) or given


def valid_entry(entry: Any) -> bool:
    """An index entry the capsule can use (a hand-edited or damaged index must not crash it)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("seq"), int):
        return False
    gist = entry.get("gist", [])
    pairs = isinstance(gist, list) and all(isinstance(g, list) and len(g) == 2 for g in gist)
    return pairs and isinstance(entry.get("path", ""), str)


def record_start(project: StrPath, state: StrPath, session_id: str) -> None:
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
    project: StrPath,
    state: StrPath,
    config: Config,
    source: str | None,
    *,
    session_id: str | None = None,
    now: float | None = None,
) -> list[str]:
    """Capsule lines about the handoff to continue from. Pure over the files; no clock text.

    Staleness is worded so the text changes only when its condition flips: HEAD moved,
    another branch, or the age crossing `handoff.stale_days` (needs `now`; 0 turns it off).
    The entry comes from the index summary (`lookup`): two stats and a small file, however
    many handoffs the index holds. No handoff: no lines (#42). The headline points to the
    file only when it holds something these lines do not say, and says what (gist.py).
    """
    head = gitinfo.read_head(project)
    branch = head.branch if head else None
    session = session_id if source in RESUMING else None
    entry, others, summary = _lookup(state, branch, session)
    lines = []
    if entry is not None:
        lines.append(_headline(entry, state, project))
        lines += stale_reasons(entry, head, now, int(config.get("handoff.stale_days")))
        said = "adds" in entry  # the headline names the todos and errors the file holds
        gist = [(k, t) for k, t in entry.get("gist", []) if t and not (said and k == "open")]
        lines += [f"  - {key}: {text}" for key, text in gist]
        if others:
            lines.append(
                f"  - {others} other session handoff(s) on this branch: "
                "`ccstate handoff show --list`"
            )
    lines += handoff_passed.capsule_line(summary.get("tests") if summary else None, branch)
    return _hide_env_values(project, lines) if lines else []


def _hide_env_values(project: StrPath, lines: list[str]) -> list[str]:
    """The lines with the values of the project's .env files hidden (the gist was redacted when
    written; a value added since must not leak). Without such a file nothing changes, and the
    start pays for no pathlib import and no glob."""
    import fnmatch

    from ccstate.secrets import envfile

    try:
        candidates = fnmatch.filter(os.listdir(project), envfile.ENV_FILE_GLOB)
    except OSError:
        candidates = [""]  # cannot tell: let redact look
    if not candidates:
        return lines
    from pathlib import Path

    from ccstate.secrets import redact

    literals_only = redact.for_project(Path(project), patterns=False)
    return [literals_only.redact(line) for line in lines]


# --------------------------------------------------------------------------- index summary
# What the capsule needs from index.json, in <state>/cache/handoff.json, keyed by the index's
# stamp (store.file_stamp): per branch, how many handoffs and the newest one's session; the
# newest RECENT entries in full. The writer (store.persist) refreshes it with the index; a
# reader that finds another stamp reads the index and writes it. What the lines also depend on
# (HEAD, the clock, the config, the project's secrets) is read live, never cached.

SUMMARY_VERSION = 2  # 2: the last passing test command per branch (#39.2), two stamps
RECENT = 16


def summary_path(state: str | os.PathLike[str]) -> str:
    return os.path.join(state, "cache", "handoff.json")


def summarize(index: dict[str, Any], passed: dict[str, Any] | None = None) -> dict[str, Any]:
    """The summary of a parsed index and the passed-commands store (see above)."""
    items = sorted(
        ((key, e) for key, e in index["sessions"].items() if valid_entry(e)), key=_newest
    )
    branches: dict[str, list[Any]] = {}
    for key, entry in items:  # oldest first: the last one seen per branch is its newest
        slot = branches.setdefault(_branch_key(entry.get("branch")), [0, key])
        slot[0] += 1
        slot[1] = key
    return {
        "total": len(items),
        "newest": items[-1][0] if items else None,
        "branches": branches,
        "entries": dict(items[-RECENT:]),
        "tests": handoff_passed.capsule_rows(passed),
    }


def _branch_key(branch: Any) -> str:
    return json.dumps(branch)  # None (detached) and any damaged value stay distinct from names


def remember(state: str | os.PathLike[str], index: dict[str, Any]) -> None:
    """Cache the summary of `index`, just written to index.json (best effort)."""
    stamp = _stamp(state)
    if stamp is not None:
        _write_summary(state, stamp, summarize(index, handoff_passed.read_passed(state)))


def _stamp(state: str | os.PathLike[str]) -> list[Any] | None:
    """What the summary is keyed by: index.json's stamp and passed.json's (None: no index)."""
    index = store.file_stamp(index_path(state))
    if index is None:
        return None
    return [index, store.file_stamp(handoff_passed.passed_path(state))]


def _write_summary(
    state: str | os.PathLike[str], stamp: list[Any], summary: dict[str, Any]
) -> None:
    data = {"v": SUMMARY_VERSION, "stamp": stamp, "summary": summary}
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        store.atomic_write_text(summary_path(state), text, durable=False, private=True)
    except OSError:  # a read-only state dir: read the index next time
        return


def _read_summary(state: str | os.PathLike[str], stamp: list[Any]) -> dict[str, Any] | None:
    try:
        with open(summary_path(state), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("v") != SUMMARY_VERSION or data.get("stamp") != stamp:
        return None
    summary = data.get("summary")
    return summary if isinstance(summary, dict) else None


def lookup(
    state: str | os.PathLike[str], branch: str | None, session: str | None
) -> tuple[dict[str, Any] | None, int]:
    """(`choose(index, branch, session)`, how many other handoffs its branch has), from the
    summary when it matches the index; the index itself otherwise (and then the summary is
    written for next time). Both give the same answer."""
    entry, others, _summary = _lookup(state, branch, session)
    return entry, others


def _lookup(
    state: str | os.PathLike[str], branch: str | None, session: str | None
) -> tuple[dict[str, Any] | None, int, dict[str, Any] | None]:
    """`lookup`, and the summary it read or rebuilt (None: no index)."""
    stamp = _stamp(state)
    if stamp is None:
        return None, 0, None
    summary = _read_summary(state, stamp)
    if summary is not None:
        found = _from_summary(summary, branch, session)
        if found is not None:
            return (*found, summary)
    index = read_index(state)
    fresh = summarize(index, handoff_passed.read_passed(state))
    if summary is None and _stamp(state) == stamp:  # unchanged meanwhile
        _write_summary(state, stamp, fresh)
    entry = choose(index, branch, session)
    if entry is None:
        return None, 0, fresh
    return entry, fresh["branches"][_branch_key(entry.get("branch"))][0] - 1, fresh


def _from_summary(
    summary: dict[str, Any], branch: str | None, session: str | None
) -> tuple[dict[str, Any] | None, int] | None:
    """The answer, or None when the summary does not hold the entry (then read the index)."""
    entries, branches = summary["entries"], summary["branches"]
    if session and session in entries:
        key = session
    elif session and summary["total"] > len(entries):
        return None  # the session may have an older handoff: only the index can tell
    elif summary["newest"] is None:
        return None, 0
    else:
        slot = branches.get(_branch_key(branch))
        key = slot[1] if slot else summary["newest"]
    entry = entries.get(key)
    if not isinstance(entry, dict):
        return None
    return entry, branches[_branch_key(entry.get("branch"))][0] - 1


def _headline(entry: dict[str, Any], state: StrPath, project: StrPath) -> str:
    """The handoff's line: where it is from, and the file only when it adds something (an
    entry written before #42 has no `adds`: its file is named as before)."""
    where = f"branch {entry.get('branch')}" if entry.get("branch") else "detached HEAD"
    at = f" @ {str(entry.get('head'))[:7]}" if entry.get("head") else ""
    head = f"- handoff ({entry.get('event')}, session {str(entry.get('session'))[:8]}, {where}{at})"
    path = _shown(os.path.join(handoff_dir(state), str(entry.get("path", ""))), project)
    adds = entry.get("adds")
    if not isinstance(adds, list):
        return f"{head}: full handoff: {path}"
    if not adds:
        return f"{head}:"
    return f"{head}: {', '.join(str(a) for a in adds)} in {path}"


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


def _shown(path: StrPath, project: StrPath) -> str:
    """`path` relative to the project when inside it (shorter, and the same on every machine)."""
    rel = os.path.relpath(path, project)
    return os.fspath(path) if rel.startswith("..") else rel
