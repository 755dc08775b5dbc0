"""Linter reports in ESLint's "stylish" format (also Biome's and oxlint's default), grouped by
rule (pure). RTK's lint filter does the same; read there, written here.

    /repo/src/a.ts
      27:3   warning  'x' is defined but never used  @typescript-eslint/no-unused-vars
      37:18  error    Unexpected any                  @typescript-eslint/no-explicit-any

Every error row stays as it is, under its file's line. Warnings become one line per rule and
message shape, with the count, the number of files and the first locations. Other lines (the
npm banner, the "✖ 250 problems" summary) stay where they are. None when the output is not
mostly such a report.
"""

from __future__ import annotations

import re

from ccstate.outputs import lines as L
from ccstate.outputs import listing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_ROW = re.compile(r"\A\s+(\d+):(\d+)\s+(warning|error)\s+(.*?)(?:\s{2,}(\S+))?\s*\Z")
MIN_ROWS = 10
EXAMPLES = 3
MARK = "[ccstate: "


def group_warnings(lines: Sequence[str]) -> tuple[list[str], list[int]] | None:
    """The report with its warnings grouped by rule, and each line's number in the original
    (a group line: its first warning's); or None."""
    rows = [_ROW.match(line) for line in lines]
    count = sum(1 for r in rows if r)
    nonblank = sum(1 for line in lines if line.strip())
    if count < MIN_ROWS or count * 2 < nonblank:
        return None
    groups: dict[tuple[str, str], list[str]] = {}  # (rule, message shape) -> locations
    first_message: dict[tuple[str, str], str] = {}
    first_row = last_row = -1
    out: list[str] = []
    numbers: list[int] = []
    where = -1  # index in `out` where the groups go
    file = ""
    pending_header: tuple[str, int] | None = None
    for i, (line, row) in enumerate(zip(lines, rows, strict=True)):
        if row is None:
            if line.strip() and not line[0].isspace() and _is_header(lines, rows, i):
                file, pending_header = line.strip(), (line, i + 1)
                continue
            out.append(line)
            numbers.append(i + 1)
            continue
        first_row = i if first_row < 0 else first_row
        last_row = i
        number, column, level, message, rule = row.groups()
        if level == "error" or L.is_failure_line(line):
            if pending_header is not None:
                out.append(pending_header[0])
                numbers.append(pending_header[1])
                pending_header = None
            out.append(line)
            numbers.append(i + 1)
            continue
        if where < 0:
            where = len(out)
        key = (rule or "", L.shape(message, names=True))
        groups.setdefault(key, []).append(f"{file}:{number}:{column}")
        first_message.setdefault(key, message)
    if not groups:
        return None
    found_all = [loc for locs in groups.values() for loc in locs]
    shared = listing.common_folder([loc.rsplit(":", 2)[0] for loc in found_all])
    folder = shared[0] if shared is not None else ""
    head = (
        f"{MARK}{len(found_all)} warnings grouped by rule (lines {first_row + 1}-"
        f"{last_row + 1} of the complete output)"
        + (f"; paths below are in {folder}]" if folder else "]")
    )
    grouped = [head] + [
        _group_line(key[0], first_message[key], [loc[len(folder) :] for loc in found])
        for key, found in groups.items()
    ]
    out[where:where] = grouped
    numbers[where:where] = [first_row + 1] * len(grouped)
    return _without_blank_runs(out, numbers)


def _is_header(lines: Sequence[str], rows: list[re.Match[str] | None], i: int) -> bool:
    """A file line: the next line is a report row."""
    return i + 1 < len(lines) and rows[i + 1] is not None


def _group_line(rule: str, message: str, found: list[str]) -> str:
    """One rule's warnings: the first one's message (the others say the same of other
    names), how many, in how many files, the first locations."""
    files = len({loc.rsplit(":", 2)[0] for loc in found})
    more = f", … (+{len(found) - EXAMPLES})" if len(found) > EXAMPLES else ""
    by = f" ({rule})" if rule else ""
    like = " and the like" if len(found) > 1 else ""
    return (
        f'{MARK}{len(found)}x "{message}"{like}{by} in {files} file{"s" if files != 1 else ""}: '
        f"{', '.join(found[:EXAMPLES])}{more}]"
    )


def _without_blank_runs(out: list[str], numbers: list[int]) -> tuple[list[str], list[int]]:
    kept: list[str] = []
    kept_numbers: list[int] = []
    for line, number in zip(out, numbers, strict=True):
        if not line.strip() and kept and not kept[-1].strip():
            continue
        kept.append(line)
        kept_numbers.append(number)
    return kept, kept_numbers
