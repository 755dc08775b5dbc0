"""Numbered decision records in DECISIONS.md: the model, parse, render.

The format (docs/DECISIONS-FORMAT.md) is plain markdown a person can edit. Parsing
is tolerant: it never raises and collects problems with their line numbers, so the
capsule still lists what it can and `lint` reports everything; writers
(edit.py) refuse a file with errors and name the line. Standard library only, no
dataclasses or typing at run time: SessionStart parses the file when the capsule's
summary cache (capsule.py) misses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ccstate import paths
from ccstate.errors import CcstateError
from ccstate.record import Record

TYPE_CHECKING = False  # typing costs ~3 ms to import; this runs at every SessionStart
if TYPE_CHECKING:
    from typing import Literal

    Status = Literal["active", "superseded", "reverted", "unknown"]
    Level = Literal["error", "warning"]


SECTIONS = ("Context", "Decision", "Consequences")
FIELDS = ("status", "date", "supersedes")
STATUSES = "active, superseded by D<n>, reverted"

ID_RE = re.compile(r"\bD([1-9]\d*)\b")
_ENTRY_HEADING = re.compile(r"^D([1-9]\d*):\s+(\S.*?)\s*$")
_BROKEN_ID = re.compile(r"^(?:D\d\w*|decision)\s*[:.\-\u2013\u2014]\s*(?=\S)", re.IGNORECASE)
_FIELD = re.compile(r"^[-*]\s+([A-Za-z][\w -]*?)\s*:\s*(.*?)\s*$")
LABEL_RE = re.compile(r"^\*\*(context|decision|consequences)(?::\*\*|\*\*\s*:)\s*(.*?)\s*$", re.I)
_STATUS = re.compile(r"^(?:(active)|(reverted)|superseded\s+by\s+D([1-9]\d*))$", re.IGNORECASE)
_ID_TOKEN = re.compile(r"^D([1-9]\d*)$", re.IGNORECASE)
MARKER_RE = re.compile(r"^<!--\s*ccstate:\s*next-id=(\S*?)\s*-->\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_BLOCK_START = re.compile(r"^\s{0,3}([-*+>#|]|\d+[.)]\s|```|~~~)")
CONFLICT = ("<<<<<<<", "|||||||", "=======", ">>>>>>>")


class Decision(Record):
    """One entry's content; `number` is 0 when its heading carries no valid ID.

    A `- Status:` that is not one of STATUSES gives status "unknown" (never "active": an
    entry whose state nobody can tell is not listed as in force); `raw_status` keeps it.
    """

    __slots__ = (
        "consequences",
        "context",
        "date",
        "decision",
        "extra",
        "number",
        "raw_status",
        "status",
        "superseded_by",
        "supersedes",
        "title",
    )
    number: int
    title: str
    status: Status
    superseded_by: int | None
    date: str
    supersedes: tuple[int, ...]
    context: str
    decision: str
    consequences: str
    extra: tuple[tuple[str, str], ...]
    raw_status: str

    def __init__(
        self,
        number: int,
        title: str,
        status: Status = "active",
        superseded_by: int | None = None,
        date: str = "",
        supersedes: tuple[int, ...] = (),
        context: str = "",
        decision: str = "",
        consequences: str = "",
        extra: tuple[tuple[str, str], ...] = (),
        raw_status: str = "",
    ) -> None:
        self._init(
            number=number,
            title=title,
            status=status,
            superseded_by=superseded_by,
            date=date,
            supersedes=supersedes,
            context=context,
            decision=decision,
            consequences=consequences,
            extra=extra,
            raw_status=raw_status,
        )

    @property
    def id(self) -> str:
        return f"D{self.number}"

    @property
    def status_text(self) -> str:
        if self.status == "unknown":
            return f"{self.raw_status!r} (not a status)"
        return f"superseded by D{self.superseded_by}" if self.superseded_by else self.status

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "superseded_by": f"D{self.superseded_by}" if self.superseded_by else None,
            "date": self.date,
            "supersedes": [f"D{n}" for n in self.supersedes],
            "context": self.context,
            "decision": self.decision,
            "consequences": self.consequences,
        }


class Problem(Record):
    __slots__ = ("fixable", "level", "line", "message")
    line: int  # 1-based
    level: Level
    message: str
    fixable: bool

    def __init__(self, line: int, level: Level, message: str, fixable: bool = False) -> None:
        self._init(line=line, level=level, message=message, fixable=fixable)


class Entry(Record):
    """A parsed entry and where it sits: lines[start] is its heading, lines[end-1] its last."""

    __slots__ = ("decision", "end", "field_lines", "start")
    decision: Decision
    start: int
    end: int
    field_lines: dict[str, int]  # 'status' / 'date' / 'supersedes' -> line index

    def __init__(
        self, decision: Decision, start: int, end: int, field_lines: dict[str, int]
    ) -> None:
        self._init(decision=decision, start=start, end=end, field_lines=field_lines)


class Log(Record):
    __slots__ = ("entries", "lines", "markers", "preamble_end", "problems")
    lines: tuple[str, ...]
    preamble_end: int
    entries: tuple[Entry, ...]
    markers: tuple[tuple[int, int | None], ...]  # (line index, value or None when malformed)
    problems: tuple[Problem, ...]

    def __init__(
        self,
        lines: tuple[str, ...],
        preamble_end: int,
        entries: tuple[Entry, ...],
        markers: tuple[tuple[int, int | None], ...],
        problems: tuple[Problem, ...],
    ) -> None:
        self._init(
            lines=lines,
            preamble_end=preamble_end,
            entries=entries,
            markers=markers,
            problems=problems,
        )

    @property
    def next_id(self) -> int:
        """The next unused ID: above every marker and every ID in the file."""
        values = [v for _i, v in self.markers if v is not None]
        return max([1, *values, *(e.decision.number + 1 for e in self.entries)])

    @property
    def preamble(self) -> str:
        return "\n".join(self.lines[: self.preamble_end])

    def decisions(self) -> list[Decision]:
        return [e.decision for e in self.entries if e.decision.number]

    def find(self, number: int) -> list[Entry]:
        return [e for e in self.entries if e.decision.number == number]


# --------------------------------------------------------------------------- parse


def parse_id(text: str) -> int | None:
    """`D7`, `d7` or `7` -> 7; anything else -> None."""
    match = _ID_TOKEN.match(text.strip()) or re.match(r"^([1-9]\d*)$", text.strip())
    return int(match.group(1)) if match else None


def parse_log(text: str) -> Log:
    """Parse DECISIONS.md; never raises. Problems carry 1-based line numbers."""
    lines = tuple(text.splitlines())
    problems: list[Problem] = []
    markers: list[tuple[int, int | None]] = []
    headings: list[int] = []
    skip: set[int] = set()  # marker and conflict lines: not part of any entry's text
    in_fence, conflict_at = False, None
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
        if in_fence or _FENCE.match(line):
            continue
        if line.startswith(CONFLICT) and (conflict_at is not None or line.startswith("<<<")):
            skip.add(i)
            if line.startswith("<<<"):
                conflict_at = i
                problems.append(Problem(i + 1, "error", _CONFLICT_MSG, fixable=True))
            elif line.startswith(">>>"):
                conflict_at = None
        elif (marker := MARKER_RE.match(line)) is not None:
            skip.add(i)
            value = marker.group(1)
            markers.append((i, int(value) if value.isdigit() and int(value) > 0 else None))
            if markers[-1][1] is None:
                problems.append(Problem(i + 1, "error", _BAD_MARKER.format(value), fixable=True))
        elif line.startswith("##") and not line.startswith("###"):
            headings.append(i)
    entries = []
    for k, start in enumerate(headings):
        stop = headings[k + 1] if k + 1 < len(headings) else len(lines)
        entry, found = _parse_entry(lines, start, stop, skip)
        entries.append(entry)
        problems.extend(found)
    if in_fence:
        opened = max(i for i, line in enumerate(lines) if _FENCE.match(line))
        problems.append(Problem(opened + 1, "error", "this code fence is never closed"))
    problems.sort(key=lambda p: p.line)
    first = headings[0] if headings else len(lines)
    return Log(lines, first, tuple(entries), tuple(markers), tuple(problems))


_CONFLICT_MSG = (
    "unresolved merge conflict; resolve it, "
    "or run 'ccstate decisions lint --fix' to keep both sides"
)
_BAD_MARKER = "next-id marker {!r} is not a positive whole number, e.g. <!-- ccstate: next-id=8 -->"


def _parse_entry(
    lines: Sequence[str], start: int, stop: int, skip: set[int]
) -> tuple[Entry, list[Problem]]:
    text = lines[start][2:].strip()
    problems: list[Problem] = []
    match = _ENTRY_HEADING.match(text)
    if match:
        number, title = int(match.group(1)), match.group(2)
    else:
        number, title = 0, _BROKEN_ID.sub("", text) or text
        problems.append(Problem(start + 1, "error", _bad_heading(lines[start]), fixable=True))
    heading = f"D{number}" if number else f"the entry {lines[start].strip()!r}"
    end = stop
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    fields: dict[str, str] = {}
    field_lines: dict[str, int] = {}
    extra: list[tuple[str, str]] = []
    texts: dict[str, list[str]] = {}
    section: str | None = None
    in_fence = False
    for i in range(start + 1, end):
        line = lines[i]
        if i in skip:
            continue
        label = None if in_fence else LABEL_RE.match(line)
        if _FENCE.match(line):
            in_fence = not in_fence
        if label is not None:
            section = label.group(1).capitalize()
            if section in texts:
                message = f"a second **{section}:** in {heading}; merge the two"
                problems.append(Problem(i + 1, "error", message))
            texts[section] = [label.group(2)]
        elif section is not None:
            texts[section].append(line)
        elif line.strip():
            found = _parse_field(line, i, fields, field_lines, extra, heading)
            if found:
                problems.append(found)
    decision, found_problems = _build(
        number, title, fields, field_lines, extra, texts, start, heading
    )
    problems.extend(found_problems)
    return Entry(decision, start, end, field_lines), problems


def _bad_heading(line: str) -> str:
    return (
        f"heading {line.strip()!r} is not a decision entry; write it as '## D<n>: <title>' "
        "('ccstate decisions lint --fix' numbers it)"
    )


def _parse_field(
    line: str,
    i: int,
    fields: dict[str, str],
    field_lines: dict[str, int],
    extra: list[tuple[str, str]],
    heading: str,
) -> Problem | None:
    match = _FIELD.match(line)
    if match is None:
        return Problem(
            i + 1,
            "error",
            f"unexpected text in {heading}: put it under **Context:**, **Decision:** or "
            "**Consequences:**, or write a field as '- Status: active'",
        )
    key, value = match.group(1), match.group(2)
    lower = key.lower()
    if lower not in FIELDS:
        extra.append((key, value))
        return None
    if lower in fields:
        return Problem(i + 1, "error", f"a second '- {key}:' line in {heading}; keep one")
    fields[lower], field_lines[lower] = value, i
    return None


def _build(
    number: int,
    title: str,
    fields: dict[str, str],
    field_lines: dict[str, int],
    extra: list[tuple[str, str]],
    texts: dict[str, list[str]],
    start: int,
    heading: str,
) -> tuple[Decision, list[Problem]]:
    problems: list[Problem] = []
    status: Status = "active"
    superseded_by = None
    raw_status = fields.get("status")
    match = _STATUS.match(raw_status) if raw_status is not None else None
    if raw_status is None:
        problems.append(
            Problem(
                start + 1,
                "error",
                f"{heading} has no '- Status:' line; add one, e.g. '- Status: active'",
            )
        )
    elif match is None:
        status = "unknown"
        message = f"status {raw_status!r} in {heading} is not one of: " + STATUSES
        problems.append(Problem(field_lines["status"] + 1, "error", message))
    elif match.group(2):
        status = "reverted"
    elif match.group(3):
        status, superseded_by = "superseded", int(match.group(3))
    raw = fields.get("supersedes", "")
    tokens = [t for t in re.split(r"[,\s]+", raw) if t]
    if any(_ID_TOKEN.match(t) is None for t in tokens):
        message = f"'- Supersedes: {raw}' in {heading} must list IDs, e.g. '- Supersedes: D3, D5'"
        problems.append(Problem(field_lines["supersedes"] + 1, "error", message))
    supersedes = tuple(int(m.group(1)) for t in tokens if (m := _ID_TOKEN.match(t)))
    text = {name: "\n".join(body).strip() for name, body in texts.items()}
    decision = Decision(
        number=number,
        title=title,
        status=status,
        superseded_by=superseded_by,
        date=fields.get("date", ""),
        supersedes=supersedes,
        context=text.get("Context", ""),
        decision=text.get("Decision", ""),
        consequences=text.get("Consequences", ""),
        extra=tuple(extra),
        raw_status=(raw_status or "") if status == "unknown" else "",
    )
    return decision, problems


def require_clean(log: Log, path: Path) -> None:
    """CcstateError naming the first line with an error; writers call this first.

    When `lint --fix` cannot repair every error, the first one it cannot repair is named
    (with "edit it by hand"), so the message never sends the user to a fix that refuses.
    """
    errors = [p for p in log.problems if p.level == "error"]
    if not errors:
        return
    by_hand = [p for p in errors if not p.fixable]
    first = by_hand[0] if by_hand else errors[0]
    fix = (
        "edit it by hand ('ccstate decisions lint --fix' cannot), then rerun"
        if by_hand
        else ("then rerun")
    )
    more = f"; {len(errors) - 1} more error(s)" if len(errors) > 1 else ""
    raise CcstateError(
        f"{path}:{first.line}: {first.message}; {fix}{more} "
        "(`ccstate decisions lint` lists every problem)"
    )


# --------------------------------------------------------------------------- render


def render_entry(decision: Decision) -> list[str]:
    """The canonical lines of one entry (parse_log reads them back to the same Decision)."""
    lines = [f"## {decision.id}: {decision.title}", "", f"- Status: {decision.status_text}"]
    if decision.date:
        lines.append(f"- Date: {decision.date}")
    if decision.supersedes:
        lines.append("- Supersedes: " + ", ".join(f"D{n}" for n in decision.supersedes))
    lines += [f"- {key}: {value}" for key, value in decision.extra]
    for name in SECTIONS:
        text = getattr(decision, name.lower())
        if not text:
            continue
        lines.append("")
        if _BLOCK_START.match(text.splitlines()[0]):
            lines += [f"**{name}:**", *text.splitlines()]
        else:
            lines += [f"**{name}:** " + text.splitlines()[0], *text.splitlines()[1:]]
    return lines


def render_log(preamble: str, decisions: Iterable[Decision]) -> str:
    """A whole canonical file: the preamble, then each entry, one blank line apart."""
    blocks = [preamble.rstrip("\n"), *("\n".join(render_entry(d)) for d in decisions)]
    return "\n\n".join(b for b in blocks if b) + "\n"


def marker_line(next_id: int) -> str:
    return f"<!-- ccstate: next-id={next_id} -->"


def template_text() -> str:
    """templates/DECISIONS.md: the header `ccstate init` writes (no decisions)."""
    from importlib import resources

    folder = resources.files("ccstate").joinpath("templates")
    return folder.joinpath("DECISIONS.md").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- read


def read_log(project: Path) -> Log | None:
    """The parsed file (problems included), or None when there is none."""
    path = paths.decisions_path(project)
    try:
        return parse_log(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise CcstateError(f"{path}: cannot be read ({exc})") from exc


def unique_entry(log: Log, number: int, path: Path) -> Entry:
    """The one entry with this ID, or a CcstateError saying why not."""
    found = log.find(number)
    if not found:
        highest = max((d.number for d in log.decisions()), default=0)
        have = f"highest ID: D{highest}" if highest else "it has no decisions yet"
        raise CcstateError(f"{path}: D{number} is not in the file ({have})")
    if len(found) > 1:
        where = ", ".join(str(e.start + 1) for e in found)
        raise CcstateError(
            f"{path}: D{number} appears {len(found)} times (lines {where}); run "
            "'ccstate decisions lint --fix' to renumber"
        )
    return found[0]
