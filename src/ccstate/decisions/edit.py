"""Change DECISIONS.md: record, supersede, revert, under one lock, one atomic write.

Edits are surgical (`Patch`: only the lines that change), so text a person wrote
by hand is never reformatted. The lock is `store.dir_lock` on the folder that holds
DECISIONS.md (a flock on the directory: beside what it protects, the same for every
writer whatever its CCSTATE_HOME, and no lock file in the work tree), so concurrent
writers get unique, monotonic IDs. Temp files of killed writers are swept under it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ccstate import paths, store
from ccstate.decisions import capsule
from ccstate.decisions.log import (
    CONFLICT,
    LABEL_RE,
    MARKER_RE,
    Decision,
    Entry,
    Log,
    marker_line,
    parse_log,
    render_entry,
    require_clean,
    template_text,
    unique_entry,
)
from ccstate.errors import CcstateError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")
    # (file bytes or None, its text, its path) -> (new text, result, the new text's summary)
    Edit = Callable[[bytes | None, str, Path], tuple[str, T, dict[str, Any] | None]]

LOCK_TIMEOUT_S = 15.0


class Patch:
    """Line edits that keep every other line (and so every hand edit) as it was."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)
        self.after: dict[int, list[str]] = {}  # index -> lines inserted after it (-1: at the top)
        self.deleted: set[int] = set()

    def replace(self, index: int, line: str) -> None:
        self.lines[index] = line

    def insert_after(self, index: int, lines: Iterable[str]) -> None:
        self.after.setdefault(index, []).extend(lines)

    def text(self) -> str:
        out = list(self.after.get(-1, []))
        for i, line in enumerate(self.lines):
            if i not in self.deleted:
                out.append(line)
            out.extend(self.after.get(i, []))
        while out and not out[-1].strip():
            out.pop()
        return "\n".join(out) + "\n"


def set_marker(log: Log, patch: Patch, next_id: int) -> None:
    """Point the next-id marker at `next_id`: the first marker kept, others dropped."""
    if log.markers:
        first, *others = (i for i, _v in log.markers)
        patch.replace(first, marker_line(next_id))
        patch.deleted.update(others)
        return
    title = next((i for i in range(log.preamble_end) if log.lines[i].startswith("# ")), None)
    if title is None:
        patch.insert_after(-1, [marker_line(next_id), ""])
    else:
        patch.insert_after(title, ["", marker_line(next_id)])


def append_entry(patch: Patch, decision: Decision) -> None:
    """Add the entry at the end, one blank line after what precedes it."""
    while patch.lines and not patch.lines[-1].strip() and len(patch.lines) - 1 not in patch.after:
        patch.lines.pop()
    last = len(patch.lines) - 1
    before = patch.after.get(last) or patch.lines[last:]
    gap = [""] if before and before[-1].strip() else []
    patch.insert_after(last, [*gap, *render_entry(decision)])


def set_status(patch: Patch, entry: Entry, status_text: str) -> None:
    patch.replace(entry.field_lines["status"], f"- Status: {status_text}")


def add_supersedes(patch: Patch, entry: Entry, number: int) -> None:
    listed = (*entry.decision.supersedes, number)
    line = "- Supersedes: " + ", ".join(f"D{n}" for n in sorted(set(listed)))
    if "supersedes" in entry.field_lines:
        patch.replace(entry.field_lines["supersedes"], line)
    else:
        after = entry.field_lines.get("date", entry.field_lines["status"])
        patch.insert_after(after, [line])


def edit_log(project: Path, state: Path, change: Callable[[Log, Patch, Path], T]) -> T:
    """Lock, read (the template when the file is absent), refuse errors, change, write once."""
    return _rewrite(project, state, lambda _data, text, path: _parsed_edit(text, path, change))


def _rewrite(project: Path, state: Path, edit: Edit[T]) -> T:
    """Under the lock: read, `edit` (new text, result, its summary if known), write when
    changed, and cache the file's summary for the capsule (decisions/capsule.py)."""
    path = paths.decisions_path(project)
    store.ensure_state_dir(state)
    with store.dir_lock(project, timeout=LOCK_TIMEOUT_S):
        store.sweep_temp_files(path)
        data, text = _read(path)
        new_text, result, summary = edit(data, text, path)
        if new_text != text:
            store.atomic_write_text(path, new_text)
        if data is not None or new_text != text:
            summary = summary or capsule.summarize(parse_log(new_text))
            capsule.remember(state, str(path), new_text, summary)
    return result


def _parsed_edit(
    text: str, path: Path, change: Callable[[Log, Patch, Path], T]
) -> tuple[str, T, dict[str, Any] | None]:
    log = parse_log(text)
    require_clean(log, path)
    patch = Patch(log.lines)
    result = change(log, patch, path)
    new_text = patch.text()
    return new_text, result, capsule.summarize(log) if new_text == text else None


def _read(path: Path) -> tuple[bytes | None, str]:
    """(the file's bytes, its text with newlines as `read_text` gives them); the template's
    text and None when there is no file."""
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except FileNotFoundError:
        return None, template_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise CcstateError(f"{path}: cannot be read ({exc})") from exc
    return data, text.replace("\r\n", "\n").replace("\r", "\n")


def _append_unparsed(
    state: Path, data: bytes | None, text: str, make: Callable[[int], Decision]
) -> tuple[str, Decision, dict[str, Any]] | None:
    """`text` with the entry `make(next ID)` added after the last line and the next-id marker
    moved on, from the cached summary alone: the same text a parse and a `Patch` would give.
    None when the cache does not vouch for exactly these bytes, the file has errors, not
    exactly one next-id marker, or line breaks other than newlines (then the caller parses)."""
    cached = capsule.read_cache(state)
    if data is None or cached is None or cached.get("sha") != capsule.digest(data):
        return None
    summary = cached["summary"]
    marker = summary.get("marker")
    if summary.get("errors") or not isinstance(marker, int) or _OTHER_BREAKS.search(text):
        return None
    start = 0
    for _ in range(marker):  # the marker sits in the preamble: a few lines down
        start = text.find("\n", start) + 1
        if not start:
            return None
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    if not MARKER_RE.match(text[start:end]):
        return None
    number = int(summary["next_id"])
    made = make(number)
    text = text[:start] + marker_line(number + 1) + text[end:]
    last = text.find("\n", len(text.rstrip()))  # trailing blank lines go, as append_entry drops
    kept = text if last < 0 else text[:last]
    new_text = kept + "\n\n" + "\n".join(render_entry(made)) + "\n"
    listed = [[number, capsule.stored_title(made.title)], *summary["active"]]
    listed = listed[: capsule.MAX_LISTED]
    new_summary = {
        **summary,
        "active": listed,
        "active_count": summary["active_count"] + 1,
        "decisions": summary["decisions"] + 1,
        "next_id": number + 1,
    }
    return new_text, made, new_summary


# str.splitlines breaks lines at these too; the parse-free append handles newlines only
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def new_decision(
    number: int,
    title: str,
    decision: str,
    *,
    date: str,
    context: str = "",
    consequences: str = "",
    supersedes: Sequence[int] = (),
) -> Decision:
    """A Decision from user input; CcstateError names the option that would not read back."""
    values = {"title": title, "decision": decision, "context": context}
    values["consequences"] = consequences
    clean = {
        key: "\n".join(v.rstrip() for v in value.strip().splitlines())
        for key, value in values.items()
    }
    if not clean["title"] or "\n" in clean["title"]:
        raise CcstateError('the title must be one non-empty line, e.g. "Use SQLite for the cache"')
    if not clean["decision"]:
        raise CcstateError("--decision must say what was decided")
    for key, value in clean.items():
        for k, line in enumerate(value.splitlines(), 1):
            if _reserved(line):
                raise CcstateError(
                    f"--{key} line {k} ({line.strip()!r}) would not read back as part of "
                    "this entry: lines starting with '##', '**Context:**', '**Decision:**', "
                    "'**Consequences:**', '<!-- ccstate:' or a git conflict marker are reserved"
                )
    made = Decision(
        number=number,
        title=clean["title"],
        date=date,
        supersedes=tuple(sorted(set(supersedes))),
        context=clean["context"],
        decision=clean["decision"],
        consequences=clean["consequences"],
    )
    probe = parse_log("\n".join(render_entry(made)))
    if probe.problems or probe.entries[0].decision != made:
        raise CcstateError(
            "the text would not read back unchanged; close every ``` code fence and retry"
        )
    return made


def _reserved(line: str) -> bool:
    return bool(
        (line.startswith("##") and not line.startswith("###"))
        or LABEL_RE.match(line)
        or MARKER_RE.match(line)
        or line.startswith(CONFLICT)
    )


def record(
    project: Path,
    state: Path,
    title: str,
    decision: str,
    *,
    date: str,
    context: str = "",
    consequences: str = "",
    supersedes: Sequence[int] = (),
) -> Decision:
    """Append a new decision with the next ID (and supersede the given ones) under the lock."""

    def make(number: int) -> Decision:
        return new_decision(
            number,
            title,
            decision,
            date=date,
            context=context,
            consequences=consequences,
            supersedes=supersedes,
        )

    def change(log: Log, patch: Patch, path: Path) -> Decision:
        number = log.next_id
        made = make(number)
        for old in made.supersedes:
            entry = unique_entry(log, old, path)
            _require_active(entry, path, f"it cannot be superseded by D{number}")
            set_status(patch, entry, f"superseded by D{number}")
        set_marker(log, patch, number + 1)
        append_entry(patch, made)
        return made

    def edit(data: bytes | None, text: str, path: Path) -> tuple[str, Decision, Any]:
        if not supersedes:  # superseding edits other entries: that takes a parse
            appended = _append_unparsed(state, data, text, make)
            if appended is not None:
                return appended
        return _parsed_edit(text, path, change)

    return _rewrite(project, state, edit)


def supersede(project: Path, state: Path, old: int, new: int) -> None:
    """Mark `old` superseded by the existing, newer, active `new` (and list it there)."""

    def change(log: Log, patch: Patch, path: Path) -> None:
        if old >= new:
            raise CcstateError(f"D{old} can only be superseded by a newer decision (got D{new})")
        old_entry, new_entry = unique_entry(log, old, path), unique_entry(log, new, path)
        _require_active(old_entry, path, f"it cannot be superseded by D{new}")
        _require_active(new_entry, path, f"it cannot supersede D{old}")
        set_status(patch, old_entry, f"superseded by D{new}")
        add_supersedes(patch, new_entry, old)

    edit_log(project, state, change)


def revert(project: Path, state: Path, number: int) -> list[int]:
    """Mark `number` reverted; what it superseded becomes active again (returned)."""

    def change(log: Log, patch: Patch, path: Path) -> list[int]:
        entry = unique_entry(log, number, path)
        _require_active(entry, path, "only an active decision can be reverted")
        set_status(patch, entry, "reverted")
        revived = []
        for old in entry.decision.supersedes:
            for old_entry in log.find(old):
                if old_entry.decision.superseded_by == number:
                    set_status(patch, old_entry, "active")
                    revived.append(old)
        return revived

    return edit_log(project, state, change)


def _require_active(entry: Entry, path: Path, why: str) -> None:
    if entry.decision.status != "active":
        raise CcstateError(f"{path}: {entry.decision.id} is {entry.decision.status_text}; {why}")
