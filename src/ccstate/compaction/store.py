"""Per-session compaction records: what PreCompact asked the summary to keep, the capsule
SessionStart(compact) sent, and per compaction what the summary kept and lost (#26).

One JSON file per session, `<state>/compaction/<session>.json` (0600 in a 0700 folder: it holds
paths and commands), read-modify-written under its lock:

    {"schema_version": 1, "session": "...",
     "asked": {"trigger", "items": [[kind, key, text], ...], "handoff", "custom", "time",
               "fires", "used"},
     "capsule": "<the text SessionStart(compact) sent>",
     "compactions": [{"n", "trigger", "time", "asked", "kept", "lost", "in_capsule",
                      "reminded", "reminder", "summary_chars", "note"}, ...]}

PreCompact may fire several times for one compaction: the same block marks the record
once more (`fires`), nothing else changes. PostCompact settles the newest unused `asked`
against the summary; without one it records the compaction as unchecked and says why.
Standard library only: PostToolUse records a delivery here.
"""

from __future__ import annotations

import os

from ccstate import store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

SCHEMA_VERSION = 1
MAX_KEPT = 100  # compactions kept per session (the newest)
DIR = "compaction"


def record_path(state: str, session: str) -> str:
    return os.path.join(state, DIR, _safe(session) + ".json")


def _safe(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:120]
    return cleaned.lstrip(".") or "_"


def read(state: str, session: str) -> dict[str, Any]:
    data = store.read_json(record_path(state, session))
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        return {"schema_version": SCHEMA_VERSION, "session": session, "compactions": []}
    if not isinstance(data.get("compactions"), list):
        data["compactions"] = []
    return data


def _write(state: str, session: str, data: dict[str, Any]) -> None:
    store.ensure_state_dir(state)
    store.atomic_write_json(record_path(state, session), data, private=True)


def ask(
    state: str,
    session: str,
    *,
    trigger: str,
    items: Sequence[Sequence[str]],
    handoff: str,
    custom: bool,
    now: float,
) -> bool:
    """Record what PreCompact asked for; False when it repeats the unused record (a second
    PreCompact for the same compaction)."""
    path = record_path(state, session)
    store.ensure_state_dir(state)
    with store.file_lock(path):
        data = read(state, session)
        asked = data.get("asked")
        wanted = [list(i) for i in items]
        if isinstance(asked, dict) and not asked.get("used") and asked.get("items") == wanted:
            asked["fires"] = int(asked.get("fires") or 1) + 1
            _write(state, session, data)
            return False
        data["asked"] = {
            "trigger": trigger,
            "items": wanted,
            "handoff": handoff,
            "custom": custom,
            "time": int(now),
            "fires": 1,
            "used": False,
        }
        data.pop("capsule", None)
        _write(state, session, data)
    return True


def note_capsule(state: str, session: str, text: str) -> None:
    """SessionStart(compact) ran between PreCompact and PostCompact: what it sent the model."""
    path = record_path(state, session)
    store.ensure_state_dir(state)
    with store.file_lock(path):
        data = read(state, session)
        data["capsule"] = text
        _write(state, session, data)


def settle(
    state: str, session: str, decide: Callable[[dict[str, Any] | None, str], dict[str, Any]]
) -> dict[str, Any]:
    """Append one compaction's entry, numbered here: `decide(asked, capsule)` makes it from the
    newest unused `asked` record (None: PostCompact without a PreCompact) and the text the
    SessionStart(compact) capsule sent ("" when none), under the record's lock."""
    path = record_path(state, session)
    store.ensure_state_dir(state)
    with store.file_lock(path):
        data = read(state, session)
        found = data.get("asked")
        asked = found if isinstance(found, dict) and not found.get("used") else None
        if asked is not None:
            asked["used"] = True
        entry = decide(asked, str(data.pop("capsule", "") or ""))
        history = data["compactions"]
        entry["n"] = int(history[-1].get("n") or len(history)) + 1 if history else 1
        history.append(entry)
        data["compactions"] = history[-MAX_KEPT:]
        _write(state, session, data)
    return entry


def update(state: str, session: str, n: int, **changes: Any) -> None:
    """Change compaction `n`'s entry (its check's outcome, its reminder's fate)."""
    path = record_path(state, session)
    with store.file_lock(path):
        data = read(state, session)
        for entry in data["compactions"]:
            if entry.get("n") == n:
                entry.update(changes)
        _write(state, session, data)


def handoff_entries(state: str, session: str) -> list[tuple[str, str]]:
    """(text, provenance) per checked compaction, for the handoff's Compactions section."""
    entries = []
    for entry in read(state, session)["compactions"]:
        text = describe(entry)
        if text:
            entries.append((text, f"compaction {entry.get('n')}"))
    return entries


def describe(entry: dict[str, Any]) -> str:
    """One line: the trigger, kept of asked, what was lost and what became of it."""
    trigger = entry.get("trigger") or "unknown"
    asked = entry.get("asked")
    if not isinstance(asked, int):
        return f"{trigger} compaction {entry.get('n')}: not checked ({entry.get('note') or '?'})"
    kept, lost = entry.get("kept") or [], entry.get("lost") or []
    head = f"{trigger} compaction {entry.get('n')}: the summary kept {len(kept)} of {asked}"
    if not lost:
        return head
    tail = f"; lost {', '.join(str(k) for k in lost[:8])}" + (" …" if len(lost) > 8 else "")
    fate = {
        "pending": "a reminder waits for the next hook",
        "delivered": f"reminded at {entry.get('reminded')}",
        "echoed": "the block itself was echoed to the model after /compact",
        "none": "the capsule carried them",
        "replaced": "the next compaction's check replaced its reminder",
    }.get(str(entry.get("reminder")), "")
    return head + tail + (f" ({fate})" if fate else "")


def all_records(state: str) -> dict[str, dict[str, Any]]:
    """session -> record, every session this state dir holds (`ccstate report`)."""
    folder = os.path.join(state, DIR)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return {}
    out = {}
    for name in names:
        if name.endswith(".json"):
            data = store.read_json(os.path.join(folder, name))
            if isinstance(data, dict) and isinstance(data.get("session"), str):
                out[data["session"]] = data
    return out


MATCH_SECONDS = 600.0  # a record and a transcript's compaction this far apart are not one


def match(times: Sequence[float | None], entries: Sequence[dict[str, Any]]) -> list[int | None]:
    """For each compaction of a transcript (its time, or None), the index of this session's
    record entry of it: the nearest unused one within MATCH_SECONDS; by order when a time is
    unknown. `ccstate report` shows the fidelity through it."""
    used: set[int] = set()
    out: list[int | None] = []
    for position, when in enumerate(times):
        best: int | None = None
        if when is None:
            best = position if position < len(entries) and position not in used else None
        else:
            gaps = [
                (abs(float(e.get("time") or 0) - when), i)
                for i, e in enumerate(entries)
                if i not in used
            ]
            near = min(gaps, default=None)
            best = near[1] if near is not None and near[0] <= MATCH_SECONDS else None
        if best is not None:
            used.add(best)
        out.append(best)
    return out
