"""`ccstate decisions lint`: find what is wrong in DECISIONS.md, and repair a merge.

`lint_log` reports duplicate or malformed IDs, dangling references, status
contradictions and next-id marker trouble. `fix_text` repairs what a merge of two
branches leaves behind: conflict blocks (both sides kept), clashing IDs (the later
entry renumbered, references that meant it rewritten), unnumbered entries and the
marker. It never drops an entry and refuses anything it cannot repair safely.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ccstate import paths, store
from ccstate.decisions.edit import LOCK_TIMEOUT_S, Patch, set_marker
from ccstate.decisions.log import CONFLICT, ID_RE, Decision, Entry, Log, Problem, parse_log
from ccstate.errors import CcstateError

_FIX = "'ccstate decisions lint --fix'"


def lint_log(log: Log) -> list[Problem]:
    """Every problem in the file, by line: parse problems first, then the semantic checks."""
    found = list(log.problems)
    found += _check_ids(log)
    found += _check_marker(log)
    by_number: dict[int, list[Entry]] = {}
    for entry in log.entries:
        by_number.setdefault(entry.decision.number, []).append(entry)
    for entry in log.entries:
        if entry.decision.number:
            found += _check_entry(entry, by_number)
    return sorted(found, key=lambda p: (p.line, p.level != "error", p.message))


def _check_ids(log: Log) -> list[Problem]:
    first: dict[int, int] = {}
    found = []
    for entry in log.entries:
        number = entry.decision.number
        if not number:
            continue
        if number in first:
            found.append(
                Problem(
                    entry.start + 1,
                    "error",
                    f"D{number} is used twice (first at line {first[number]}); "
                    f"{_FIX} renumbers this one and the references that mean it",
                    fixable=True,
                )
            )
        else:
            first[number] = entry.start + 1
    return found


def _check_marker(log: Log) -> list[Problem]:
    valid = [(i, v) for i, v in log.markers if v is not None]
    highest = max((d.number for d in log.decisions()), default=0)
    if not log.markers:
        return [
            Problem(
                1,
                "warning",
                "no '<!-- ccstate: next-id=N -->' marker: the ID of a deleted last entry could be "
                f"reused; {_FIX} adds it",
                fixable=True,
            )
        ]
    found = [
        Problem(i + 1, "error", f"a second next-id marker; {_FIX} keeps the highest", fixable=True)
        for i, _v in log.markers[1:]
    ]
    if valid and max(v for _i, v in valid) <= highest:
        line, value = valid[0]
        found.append(
            Problem(
                line + 1,
                "error",
                f"next-id={value} but D{highest} exists; {_FIX} sets it to {highest + 1}",
                fixable=True,
            )
        )
    return found


def _check_entry(entry: Entry, by_number: dict[int, list[Entry]]) -> list[Problem]:
    d, line = entry.decision, entry.start + 1
    found: list[Problem] = []

    def error(message: str) -> None:
        found.append(Problem(line, "error", message))

    def warn(message: str) -> None:
        found.append(Problem(line, "warning", message))

    if d.superseded_by is not None:
        target = by_number.get(d.superseded_by, [])
        if d.superseded_by == d.number:
            error(f"{d.id} is superseded by itself")
        elif not target:
            error(f"{d.id} is superseded by D{d.superseded_by}, which is not in the file")
        elif d.superseded_by < d.number:
            error(f"{d.id} is superseded by D{d.superseded_by}, an older decision")
        elif len(target) == 1 and target[0].decision.status == "reverted":
            error(
                f"{d.id} is superseded by D{d.superseded_by}, which is reverted; set {d.id} "
                "'- Status: active' (a revert brings back what it superseded)"
            )
        elif len(target) == 1 and d.number not in target[0].decision.supersedes:
            warn(f"D{d.superseded_by} supersedes {d.id} but does not list it in '- Supersedes:'")
    for old in d.supersedes:
        target = by_number.get(old, [])
        if old == d.number:
            error(f"{d.id} supersedes itself")
        elif not target:
            error(f"{d.id} supersedes D{old}, which is not in the file")
        elif len(target) == 1 and d.status != "reverted":
            have = target[0].decision
            if have.superseded_by != d.number:
                error(
                    f"{d.id} supersedes D{old}, but D{old} is {have.status_text}; give D{old} "
                    f"'- Status: superseded by {d.id}' or drop D{old} from {d.id}'s Supersedes"
                )
    mentioned = {int(n) for text in _prose(d) for n in ID_RE.findall(text)}
    for number in sorted(mentioned - set(by_number) - {0}):
        warn(f"{d.id} mentions D{number}, which is not in the file")
    if d.date and not _is_date(d.date):
        warn(f"{d.id} has date {d.date!r}; write it as YYYY-MM-DD")
    if not d.date:
        warn(f"{d.id} has no '- Date: YYYY-MM-DD' line")
    if not d.decision:
        warn(f"{d.id} has no **Decision:** text")
    return found


def _prose(d: Decision) -> tuple[str, ...]:
    return (d.title, d.context, d.decision, d.consequences)


def _is_date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", text))


# --------------------------------------------------------------------------- fix


@dataclass(frozen=True)
class Fixed:
    text: str
    changes: tuple[str, ...]


def fix_file(project: Path, state: Path) -> tuple[str, ...]:
    """`lint --fix` on the project's DECISIONS.md, under the writers' lock; what it changed."""
    path = paths.decisions_path(project)
    with store.dir_lock(project, timeout=LOCK_TIMEOUT_S):
        store.sweep_temp_files(path)
        text = path.read_text(encoding="utf-8")
        fixed = fix_text(text, str(path))
        if fixed.text != text:
            store.atomic_write_text(path, fixed.text)
    return fixed.changes


def fix_text(text: str, name: str = paths.DECISIONS_NAME) -> Fixed:
    """Repair a merged file; CcstateError (naming the line) when it cannot be done safely."""
    lines, origin, changes = _union_conflicts(text.splitlines(), name)
    log = parse_log("\n".join(lines) + "\n")
    for problem in log.problems:
        if problem.level == "error" and not problem.fixable:
            raise CcstateError(
                f"{name}:{origin[problem.line - 1]}: {problem.message}; "
                "--fix cannot repair this, edit it by hand"
            )
    patch = Patch(log.lines)
    renames = _renumber(log)
    next_id = log.next_id
    for index, entry in enumerate(log.entries):
        if index in renames:
            old = f"D{entry.decision.number}" if entry.decision.number else "unnumbered entry"
            title = entry.decision.title
            changes.append(f"{old} ({title!r}) is now D{renames[index]}")
            next_id = max(next_id, renames[index] + 1)
    rewritten = _rewrite_references(log, patch, renames)
    if rewritten:
        ids = [f"D{renames.get(i, log.entries[i].decision.number)}" for i in rewritten]
        changes.append("references to renumbered decisions updated in " + ", ".join(ids))
    cramped = [i for i, e in enumerate(log.entries) if e.start and log.lines[e.start - 1].strip()]
    for index in cramped:  # a union merge glues theirs to ours: one blank line between entries
        patch.insert_after(log.entries[index].start - 1, [""])
    if cramped:
        ids = [f"D{renames.get(i, log.entries[i].decision.number)}" for i in cramped]
        changes.append("blank line added before " + ", ".join(ids))
    values = [v for _i, v in log.markers if v is not None]
    if len(log.markers) != 1 or values != [next_id]:
        set_marker(log, patch, next_id)
        changes.append(f"next-id marker set to {next_id}")
    return Fixed(patch.text() if changes else text, tuple(changes))


def _union_conflicts(lines: Sequence[str], name: str) -> tuple[list[str], list[int], list[str]]:
    """Keep ours then theirs for every conflict block (a union merge); drop diff3 bases.

    Returns the lines, the original 1-based line number of each, and what was done.
    """
    out: list[str] = []
    origin: list[int] = []
    changes: list[str] = []
    side: str | None = None
    opened = 0
    theirs_at = 0
    for number, line in enumerate(lines, 1):
        if line.startswith(CONFLICT[0]):
            side, opened = "ours", number
        elif side and line.startswith(CONFLICT[1]):
            side = "base"
        elif side and line.startswith(CONFLICT[2]):
            side, theirs_at = "theirs", len(out)
        elif side and line.startswith(CONFLICT[3]):
            side = None
            changes.append(
                f"lines {opened}-{number}: merge conflict resolved by keeping both sides"
            )
        elif side != "base":
            first_of_theirs = side == "theirs" and len(out) == theirs_at
            if first_of_theirs and out and out[-1].strip() and line.startswith("##"):
                out.append("")  # keep entries apart when theirs starts right after ours
                origin.append(number)
            out.append(line)
            origin.append(number)
    if side is not None:
        raise CcstateError(
            f"{name}:{opened}: merge conflict never closed by '>>>>>>>'; fix by hand"
        )
    return out, origin, changes


def _renumber(log: Log) -> dict[int, int]:
    """Entry index -> new number: the later twin of a clashing ID and the rest of its run
    (so a branch's entries keep their order), and unnumbered entries."""
    seen: set[int] = set()
    renames: dict[int, int] = {}
    next_id = log.next_id
    segments = _segments(log)
    renumbering: int | None = None  # the segment being renumbered from its first clash on
    for index, entry in enumerate(log.entries):
        number = entry.decision.number
        clash = not number or number in seen
        if clash or renumbering == segments[index]:
            renames[index] = next_id
            next_id += 1
            if number:
                renumbering = segments[index]
        seen.add(number)
    return renames


def _segments(log: Log) -> list[int]:
    """Runs of rising IDs: after a merge, each branch's new entries form their own run."""
    segment, highest, out = 0, 0, []
    for entry in log.entries:
        number = entry.decision.number
        if number and number <= highest:
            segment, highest = segment + 1, number
        highest = max(highest, number)
        out.append(segment)
    return out


def _rewrite_references(log: Log, patch: Patch, renames: dict[int, int]) -> list[int]:
    """Point every reference at the entry it meant; returns the indexes of entries changed."""
    if not renames:
        return []
    entries = log.entries
    clashing = {entries[i].decision.number for i in renames} - {0}
    segments = _segments(log)
    changed = []
    for index, entry in enumerate(entries):
        kinds = {v: k for k, v in entry.field_lines.items()}
        for i in range(entry.start, entry.end):
            kind = kinds.get(i, "prose")

            def swap(match: re.Match[str], index: int = index, kind: str = kind) -> str:
                number = int(match.group(1))
                if number not in clashing:
                    return match.group(0)
                target = _resolve(entries, segments, index, number, kind)
                return f"D{renames.get(target, number)}"

            line = patch.lines[i]
            if i == entry.start:  # the heading: its own ID is renumbered, its title rewritten
                title = ID_RE.sub(swap, entry.decision.title)
                new = line
                if index in renames or title != entry.decision.title:
                    new = f"## D{renames.get(index, entry.decision.number)}: {title}"
                if title != entry.decision.title:
                    changed.append(index)
            else:
                new = ID_RE.sub(swap, line)
                if new != line:
                    changed.append(index)
            patch.replace(i, new)
    return sorted(set(changed))


def _resolve(
    entries: Sequence[Entry], segments: list[int], index: int, number: int, kind: str
) -> int:
    """Which of the entries numbered `number` a reference from entries[index] means."""
    candidates = [i for i, e in enumerate(entries) if e.decision.number == number]
    me = entries[index].decision.number
    if kind == "status":
        preferred = [i for i in candidates if me in entries[i].decision.supersedes]
    elif kind == "supersedes":
        preferred = [i for i in candidates if entries[i].decision.superseded_by == me]
    else:
        preferred = []
    if len(preferred) == 1:
        return preferred[0]
    same = [i for i in candidates if segments[i] == segments[index]]
    before = [i for i in candidates if i < index]
    return (same or before[-1:] or candidates)[0]
