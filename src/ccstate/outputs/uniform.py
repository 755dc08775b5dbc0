"""Runs of Grep matches or paths of one shape, said once (pure; for the Grep and Glob digests).

A Grep or a Glob can bring back hundreds of rows that differ only in a path, a number or one
word: `lib/m07.py:12:# TODO: parse 1.2`, `lib/m08.py:3:# TODO: load 4.0`, ... A run of at
least MIN_RUN such rows keeps its first row and becomes one marker with the count, the line
numbers, the files (folders and numbered names written compactly: `lib/m{07..49}.py`; for a
path list every path, so nothing is left out but the order's repetition) and the values the
word takes. Every row that differs in kind stays as it is, and so does every
failure line (`lines.is_failure_line`), however alike. The original is on disk as always.

Two Grep rows are alike when their texts (the path and line number aside) have the same words
with numbers stood in (`lines.shape`), but for at most one word, the same in every row of the
run; a context row (`path-12-text`) is alike only with context rows. A word that takes more
than MAX_VALUES values, most of them different (function names, test names), is data, not a
shape: such a run is left to the other digests. Two paths are alike when their folders and
names, numbers stood in, are the same but for one of them.

Standard library only: the PostToolUse hook imports this module.
"""

from __future__ import annotations

import re

from ccstate.outputs import alike, listing
from ccstate.outputs import lines as L

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

MIN_RUN = 4  # rows of one shape before they collapse
MAX_VALUES = 12  # values of the varying word a marker lists, and a shape may take freely
FILES_CHARS = 400  # characters of the file list in one marker
VALUES_CHARS = 200
MARK = "[ccstate: "
_NUMBERED = re.compile(r"\A(.*?)(\d+)(\D*)\Z")  # a name's last number, with what surrounds it
_RANGE = re.compile(r"([^{}]*)\{(\d+)\.\.(\d+)\}([^{}]*)")
_GROUP = re.compile(r"([^{}]*/)\{([^{}]*)\}")


class _Row:
    """One row: its file (the path for Glob), its template (words with numbers stood in; empty
    for a row kept for its own sake) and its words as written, aligned with the template."""

    __slots__ = ("file", "values", "words")

    def __init__(self, file: str, words: list[str], values: list[str]) -> None:
        self.file = file
        self.words = words
        self.values = values


def grep_runs(content: str, exists: Callable[[str], bool] | None = None) -> str | None:
    """Grep's content-mode output with its runs of alike rows collapsed; None when it has none
    (or is not numbered grep output). `exists`, when given, must accept each path."""
    rows = content.split("\n")
    parsed: list[_Row | None] = []
    previous: str | None = None
    for row in rows:
        if row == listing.SEPARATOR or listing.is_raw(row):
            parsed.append(None)  # kept, and a run may go on across it
            continue
        split = listing.split_row(row, previous, exists)
        if split is None:
            return None
        path, rest = split
        previous = path
        sep = ":" if re.match(r"\d+:", rest) else "-"
        text = rest.split(sep, 1)[1] if sep in rest else rest
        if L.is_failure_line(text):
            parsed.append(_Row(path, [], []))
        else:
            parsed.append(_Row(path, [sep, *L.shape(text).split()], [sep, *text.split()]))
    return _collapse(rows, parsed, "matches", free=False)


def path_runs(content: str) -> str | None:
    """A path list (Glob, `find`) said compactly, losslessly: the paths in a row under one
    folder as `folder/{a.ts,b.ts}`, numbered names in a row as `w{000..099}/index.tsx`, one
    group a line (`expand_paths` gives the list back); None when nothing groups. A path with
    a brace or a comma in it stays on its own line, as it is."""
    rows = content.split("\n")
    out: list[str] = []
    group: list[str] = []
    for row in [*rows, ""]:
        plain = not listing.is_raw(row) and not any(c in row for c in "{},")
        if plain and not L.is_failure_line(row):
            group.append(row)
            continue
        unique = len(set(group)) == len(group)  # (a repeat would be said "a (2x)")
        out += compact_items(group) if len(group) > 1 and unique else group
        group = []
        out.append(row)
    out.pop()  # the "" added above
    return "\n".join(out) if len(out) < len(rows) else None


def expand_paths(text: str) -> list[str]:
    """The path list back from `path_runs`' result: each line's braces expanded."""
    out: list[str] = []
    for line in text.split("\n"):
        out += _expand(line)
    return out


def _expand(item: str) -> list[str]:
    ranged = _RANGE.fullmatch(item)
    if ranged:
        pre, low, high, post = ranged.groups()
        width = len(low) if low.startswith("0") or high.startswith("0") else 0
        step = 1 if int(high) >= int(low) else -1
        return [f"{pre}{n:0{width}d}{post}" for n in range(int(low), int(high) + step, step)]
    grouped = _GROUP.fullmatch(item)
    if grouped:
        folder, names = grouped.groups()
        return [folder + name for name in names.split(",")]
    return [item]


def _collapse(
    rows: Sequence[str], parsed: Sequence[_Row | None], what: str, *, free: bool
) -> str | None:
    """The rows with each run worth it replaced by its first row and a marker. `free`: the
    varying word may take any number of values (the paths are listed anyway)."""
    out: list[str] = []
    n = len(rows)
    i = 0
    collapsed = False
    while i < n:
        row = parsed[i]
        end, k = _run_end(parsed, i) if row is not None and row.words else (i + 1, -1)
        members = [j for j in range(i + 1, end) if parsed[j] is not None]
        if len(members) + 1 >= MIN_RUN and not (free or _is_shape(parsed, i, members, k)):
            out.extend(rows[i:end])  # data, not a shape: no part of it is one either
            i = end
            continue
        if len(members) + 1 >= MIN_RUN:
            marker = _marker(rows, parsed, i, members, k, what, free)
            if len(marker) < sum(len(rows[j]) + 1 for j in range(i + 1, end)):
                out.append(rows[i])
                out.append(marker)
                collapsed = True
                i = end
                continue
        out.append(rows[i])
        i += 1
    return "\n".join(out) if collapsed else None


def _run_end(parsed: Sequence[_Row | None], start: int) -> tuple[int, int]:
    """(one past the run's last row, the index of the word that varies or -1): the rows after
    `start` alike with it, blank rows and `--` between them going with the run."""
    first = parsed[start]
    assert first is not None
    k = -1
    end = last = start + 1
    while end < len(parsed):
        row = parsed[end]
        if row is None:
            end += 1
            continue
        where = _differs(first.words, row.words)
        if where is None or (where >= 0 and k >= 0 and where != k):
            break
        if where >= 0:
            k = where
        end += 1
        last = end
    return last, k


def _differs(a: list[str], b: list[str]) -> int | None:
    """Where two templates differ when they differ in one word: its index; -1 when equal;
    None when they differ more (or one of them is a row kept for its own sake)."""
    if len(a) != len(b) or not a or not b:
        return None
    if a == b:
        return -1
    at = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return at[0] if len(at) == 1 and at[0] > 0 else None  # (word 0: match vs context row)


def _is_shape(parsed: Sequence[_Row | None], first: int, members: list[int], k: int) -> bool:
    """Whether a Grep run is of one shape: its word takes few values, or repeats them."""
    if k < 0:
        return True
    values = _values(parsed, [first, *members], k)
    return len(values) <= MAX_VALUES or 2 * len(values) <= len(members) + 1


def _values(parsed: Sequence[_Row | None], at: list[int], k: int) -> list[str]:
    """The distinct values word k takes in the rows `at`, in their order."""
    seen: dict[str, None] = {}
    for j in at:
        row = parsed[j]
        if row is not None and k < len(row.values):
            seen.setdefault(alike._name(row.values[k]), None)
    return list(seen)


def _marker(
    rows: Sequence[str],
    parsed: Sequence[_Row | None],
    first: int,
    members: list[int],
    k: int,
    what: str,
    free: bool,
) -> str:
    span = f"lines {members[0] + 1}-{members[-1] + 1}" if len(members) > 1 else "line"
    head = f"{MARK}{len(members)} more {what} like the one above ({span})"
    files = _distinct(row.file for j in members if (row := parsed[j]) is not None)
    if free:  # a path list: the paths are the data, all of them listed, compactly
        return f"{head}: {compact(files)}]"
    count = f"{len(files)} files" if len(files) > 1 else "1 file"
    text = f"{head} in {count}: {_cut(compact(files), FILES_CHARS)}"
    if k >= 0:  # the word that varies, named by its value in the row shown
        values = _values(parsed, [first, *members], k)
        shown = ", ".join(values[:MAX_VALUES])
        more = f", … (+{len(values) - MAX_VALUES})" if len(values) > MAX_VALUES else ""
        text += f"; {_example(values[0])} varies: {_cut(shown, VALUES_CHARS)}{more}"
    return text + "]"


def _example(word: str) -> str:
    return '"' + (word if len(word) <= 40 else word[:39] + "…") + '"'


def _distinct(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    at = text.rfind(", ", 0, limit)
    return (text[:at] if at > 0 else text[:limit]) + ", …"


def compact(names: list[str]) -> str:
    """`compact_items`, joined: for a marker."""
    return ", ".join(compact_items(names))


def compact_items(names: list[str]) -> list[str]:
    """Names in their order, numbered names in a row written as a range (`m{07..49}.py`,
    the same width or no leading zeros), then names in a row under one folder with braces
    (`alike.listed_items`)."""
    items: list[str] = []
    plain: list[str] = []  # names since the last range, grouped by folder when one comes
    i = 0
    while i < len(names):
        j = _range_end(names, i)
        if j - i >= 3:
            pre, low, post = _NUMBERED.match(names[i]).groups()  # type: ignore[union-attr]
            high = _NUMBERED.match(names[j - 1]).group(2)  # type: ignore[union-attr]
            items += [*alike.listed_items(plain), f"{pre}{{{low}..{high}}}{post}"]
            plain = []
            i = j
        else:
            plain.append(names[i])
            i += 1
    return items + alike.listed_items(plain)


def _range_end(names: list[str], start: int) -> int:
    """One past the last name of the numbered run that starts at `start`: the same name but
    for its last number, which goes up (or down) by one from name to name, written at one
    width or without leading zeros (Glob lists by modification time, newest first or last)."""
    match = _NUMBERED.match(names[start])
    if match is None:
        return start + 1
    pre, digits, post = match.groups()
    number, width, step = int(digits), len(digits), 0
    j = start + 1
    while j < len(names):
        other = _NUMBERED.match(names[j])
        if other is None or other.group(1) != pre or other.group(3) != post:
            break
        got = other.group(2)
        padded = len(got) == width or not (got.startswith("0") or digits.startswith("0"))
        if not padded or (step == 0 and abs(int(got) - number) != 1):
            break
        step = step or int(got) - number
        if int(got) != number + step:
            break
        number, j = number + step, j + 1
    return j
