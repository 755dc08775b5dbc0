"""The test, build, lint and type commands that passed, per branch, newest first (#39.2).

`.ccstate/handoff/passed.json` (0600 in a 0700 folder), beside the handoff index:

    {"schema_version": 1, "seq": 7,
     "branches": {"main": [{"command": "python3 -m pytest -q", "tool": "pytest",
                            "kind": "test", "session": "5e55104e-...",
                            "time": "2026-03-01T10:59:00Z", "seq": 7}, ...]}}

The handoff writer (PreCompact, SessionEnd, `ccstate handoff write`) records every check its
scan proved passed (checks.py): the command that ran the tool (`Verdict.ran`: `cd web &&
npm test`, without `2>&1 | tail -5`), redacted, under its own lock, written atomically.
One entry per (command, tool): a command that passes again moves to the front.
Bounded: `MAX_PER_BRANCH` entries per branch, the `MAX_BRANCHES` most recently used
branches. `seq` orders entries across branches ("newest" is never a clock). Reading never
raises: a missing or corrupt file is an empty store.

For a caller (the capsule, a generated `workflow.md`): `last_passing(data, branch, kind)`
and `passing_commands(data, branch, kinds)`, pure over `read_passed(state)`.
"""

from __future__ import annotations

import json
import os

from ccstate import store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from ccstate.handoff.checks import Check
    from ccstate.secrets.redact import Redactor

SCHEMA_VERSION = 1
FILE = "passed.json"
MAX_PER_BRANCH = 20
MAX_BRANCHES = 20
MAX_COMMAND = 300  # a longer line is a script, not a command to name
KINDS = ("test", "build", "lint", "type")
_RUN = ("kind", "session", "time")  # what tells one run of a command from another


def passed_path(state: str | os.PathLike[str]) -> str:
    return os.path.join(state, "handoff", FILE)


def empty() -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "seq": 0, "branches": {}}


def read_passed(state: str | os.PathLike[str]) -> dict[str, Any]:
    """The store, or an empty one when absent, unreadable or damaged (never raises)."""
    try:
        with open(passed_path(state), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return empty()
    return parse(data)


def parse(data: Any) -> dict[str, Any]:
    """A usable store from parsed JSON: entries a caller cannot use are dropped."""
    if not isinstance(data, dict) or not isinstance(data.get("branches"), dict):
        return empty()
    branches = {
        str(name): [e for e in entries if _valid(e)]
        for name, entries in data["branches"].items()
        if isinstance(entries, list)
    }
    seq = data.get("seq")
    return {
        "schema_version": SCHEMA_VERSION,
        "seq": seq if isinstance(seq, int) else 0,
        "branches": branches,
    }


def _valid(entry: Any) -> bool:
    keys = ("command", "tool", "kind", "session", "time")
    return (
        isinstance(entry, dict)
        and all(isinstance(entry.get(k), str) for k in keys)
        and isinstance(entry.get("seq"), int)
    )


def branch_name(branch: str | None) -> str:
    """The store's key for a branch (a detached HEAD has its own)."""
    return branch or "(detached HEAD)"


def merge(data: dict[str, Any], branch: str | None, found: list[dict[str, str]]) -> dict[str, Any]:
    """`data` with `found` (oldest first: command, tool, kind, session, time) put at the
    front of `branch`, each (command, tool) once, within the bounds (pure)."""
    seq = int(data.get("seq", 0))
    name = branch_name(branch)
    entries = list(data["branches"].get(name, []))
    for item in found:
        same = (item["command"], item["tool"])
        if any(
            (e["command"], e["tool"]) == same and all(e[k] == item[k] for k in _RUN)
            for e in entries
        ):
            continue  # this very run is recorded already (PreCompact fires more than once)
        seq += 1
        entries = [e for e in entries if (e["command"], e["tool"]) != same]
        entries.insert(0, {**item, "seq": seq})
    branches = {**data["branches"], name: entries[:MAX_PER_BRANCH]}
    newest = sorted(branches, key=lambda b: max((e["seq"] for e in branches[b]), default=0))
    kept = {b: branches[b] for b in newest[-MAX_BRANCHES:]}
    return {"schema_version": SCHEMA_VERSION, "seq": seq, "branches": kept}


def found_in(
    checks: Iterable[Check], session: str, when: str, redactor: Redactor
) -> list[dict[str, str]]:
    """The passed checks of a scan as store entries, oldest first; commands redacted."""
    out = []
    for check in sorted(checks, key=lambda c: c.line):
        if check.verdict.outcome != "passed" or check.verdict.kind not in KINDS:
            continue
        command = " ".join(redactor.redact(check.verdict.ran or check.command).split())
        if not command or len(command) > MAX_COMMAND:
            continue
        out.append(
            {
                "command": command,
                "tool": check.verdict.tool,
                "kind": check.verdict.kind,
                "session": session,
                "time": check.time or when,
            }
        )
    return out


def record(state: str | os.PathLike[str], branch: str | None, found: list[dict[str, str]]) -> bool:
    """Put `found` into the store under its lock; False when nothing changed or the store
    could not be written (fail-open: a handoff is never lost for it)."""
    if not found:
        return False
    from ccstate.errors import StateError

    path = passed_path(state)
    try:
        with store.file_lock(path, timeout=5.0):
            old = parse(store.read_json(path))
            new = merge(old, branch, found)
            if new == old:
                return False
            store.atomic_write_json(path, new, private=True)
    except (OSError, StateError):
        return False
    return True


def passing_commands(
    data: dict[str, Any], branch: str | None, kinds: Iterable[str] = KINDS
) -> list[dict[str, Any]]:
    """The branch's passed commands of `kinds`, newest first (pure)."""
    wanted = set(kinds)
    return [e for e in data["branches"].get(branch_name(branch), []) if e["kind"] in wanted]


def last_passing(
    data: dict[str, Any], branch: str | None, kind: str = "test", *, any_branch: bool = False
) -> tuple[str, dict[str, Any]] | None:
    """(branch, entry) of the last command of `kind` that passed on `branch`; with
    `any_branch`, on any branch when this one has none (pure)."""
    mine = passing_commands(data, branch, (kind,))
    if mine:
        return branch_name(branch), mine[0]
    if not any_branch:
        return None
    others = [
        (name, e)
        for name, entries in data["branches"].items()
        for e in entries
        if e["kind"] == kind
    ]
    return max(others, key=lambda pair: pair[1]["seq"]) if others else None


# --------------------------------------------------------------------------- the capsule
# SessionStart reads no store: the index summary (index.py, `cache/handoff.json`) carries
# `capsule_rows` of this store, and `capsule_line` words the one line from them.

MAX_CAPSULE_COMMAND = 200  # a longer command is not worth a capsule line


def capsule_rows(data: dict[str, Any] | None) -> dict[str, list[Any]]:
    """Per branch: [command, session, branch, seq] of its newest passed test command."""
    out: dict[str, list[Any]] = {}
    for name, entries in ((data or {}).get("branches") or {}).items():
        test = next((e for e in entries if e.get("kind") == "test"), None)
        if test is not None:
            out[name] = [test["command"], test["session"], name, test["seq"]]
    return out


def capsule_line(rows: Any, branch: str | None) -> list[str]:
    """`- tests: `pytest -q` passed (session 5e55104e)`: the last test command that passed on
    this branch, else on another (named); [] when no test passed."""
    rows = {k: v for k, v in rows.items() if _row(v)} if isinstance(rows, dict) else {}
    if not rows:
        return []
    mine = rows.get(branch_name(branch))
    command, session, name, _seq = mine or max(rows.values(), key=lambda row: row[3])
    if len(command) > MAX_CAPSULE_COMMAND:
        return []
    where = "" if mine else f", branch {name}"
    return [f"- tests: `{command}` passed (session {session[:8]}{where})"]


def _row(row: Any) -> bool:
    return (
        isinstance(row, list)
        and len(row) == 4
        and all(isinstance(v, str) for v in row[:3])
        and isinstance(row[3], int)
    )
