"""Grep results and path lists, said once per file or folder (pure, lossless).

Grep's content mode repeats the file's path on every line (`/repo/src/a.ts:41:  code`,
`/repo/src/a.ts-42-  more`); `grep_headings` writes each path once, above its lines, as
ripgrep's `--heading` does (`41:  code`, `42-  more`). `common_folder` lifts the folder every
path of a list shares into one line. Both are checked by rebuilding the original from the
result: anything that does not round-trip is left alone.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_NUMBERED = re.compile(r"([:-])(\d+)\1")
_ROW = re.compile(r"(\d+)([:-])(.*)\Z", re.DOTALL)
_FILELIKE = re.compile(r"[\w-]\.\w{1,10}\Z")
# Lines kept as they are: blank, or an older Claude Code's "... [N lines truncated] ..."
_RAW = re.compile(r"\s*\Z|\.\.\. \[[^\]\n]*\] \.\.\.\Z")
SEPARATOR = "--"
MARKER = "[ccstate: "
MAX_TAIL = 4  # rows after a cut-off row, kept as they are
MIN_FOLDER = 12  # characters; a shorter shared folder is not worth a line


def grep_headings(content: str, exists: Callable[[str], bool] | None = None) -> str | None:
    """`path:N:text` / `path-N-text` lines regrouped under one heading line per path, or
    None when the content is not numbered grep output or would not round-trip. `exists`
    (when given) must accept each path: a file name can hold "-12-" too. A last row cut
    mid-line (an older Claude Code's 30,000-character cut) stays as it is, with what
    follows it."""
    rows = content.split("\n")
    out: list[str] = []
    current = None
    stop = len(rows)
    for n, row in enumerate(rows):
        if row == SEPARATOR or _RAW.match(row):
            out.append(row)
            continue
        split = split_row(row, current, exists)
        if split is None and n and len(rows) - n <= MAX_TAIL:
            stop = n
            break
        if split is None:
            return None
        path, rest = split
        if path != current:
            out.append(path)
            current = path
        out.append(rest)
    text = "\n".join(out)
    if expand_headings(text) != "\n".join(rows[:stop]):
        return None
    text = "\n".join([text, *rows[stop:]])
    return text if len(text) < len(content) else None


def split_row(
    row: str, previous: str | None, exists: Callable[[str], bool] | None
) -> tuple[str, str] | None:
    """(path, "N:text") for one numbered row; the path the previous row had wins a tie, then
    the first that looks like a file name (has an extension), then the first."""
    cuts = [m.start() for m in _NUMBERED.finditer(row)]
    if previous is not None and len(previous) in cuts and row.startswith(previous):
        return previous, row[len(previous) + 1 :]
    cuts = [c for c in cuts if c and (exists is None or exists(row[:c]))]
    if not cuts:
        return None
    cut = next((c for c in cuts if _FILELIKE.search(row[:c])), cuts[0])
    return row[:cut], row[cut + 1 :]


def expand_headings(text: str) -> str:
    """The original grep output back from `grep_headings`' result (a digest's own marker lines
    left out)."""
    out: list[str] = []
    path = ""
    for row in text.split("\n"):
        if row.startswith(MARKER):
            continue
        if row == SEPARATOR or _RAW.match(row):
            out.append(row)
            continue
        match = _ROW.match(row)
        if match is None:
            path = row
            continue
        number, sep, rest = match.groups()
        out.append(f"{path}{sep}{number}{sep}{rest}")
    return "\n".join(out)


def heading_numbers(text: str) -> tuple[list[str], list[int], set[int]]:
    """The rows of `grep_headings`' result, each one's line number in the original output (a
    heading: the number of the line after it), and the indexes of the heading rows."""
    rows = text.split("\n")
    numbers: list[int] = []
    headings: set[int] = set()
    line = 1
    for i, row in enumerate(rows):
        if row != SEPARATOR and not _RAW.match(row) and not _ROW.match(row):
            headings.add(i)
            numbers.append(line)
            continue
        numbers.append(line)
        line += 1
    return rows, numbers, headings


def is_raw(row: str) -> bool:
    """A blank line, or an older Claude Code's "... [N lines truncated] ..."."""
    return bool(_RAW.match(row))


def common_folder(paths: list[str]) -> tuple[str, list[str]] | None:
    """(shared folder with its trailing "/", the paths below it) when every path starts with
    one folder at least MIN_FOLDER characters long; else None. Blank lines and an older
    Claude Code's "... [N lines truncated] ..." stay as they are."""
    real = [p for p in paths if not _RAW.match(p)]
    if len(real) < 2:
        return None
    first = real[0]
    end = len(first)
    for path in real[1:]:
        end = min(end, len(path))
        i = 0
        while i < end and path[i] == first[i]:
            i += 1
        end = i
    folder = first[: first.rfind("/", 0, end) + 1] if "/" in first[:end] else ""
    if len(folder) < MIN_FOLDER:
        return None
    return folder, [p if _RAW.match(p) else p[len(folder) :] for p in paths]
