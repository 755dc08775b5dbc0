"""Lines alike but for a name, and repeated blocks of lines (pure; for the line digest).

Two lines are alike when their words (`lines.parts`: ids, dates, times and durations stood
in) are the same but for at most one, which is a name: `src/a.ts 53ms (unchanged)` and
`src/b.ts 9ms (unchanged)`. A run of such lines is said as its first line and one marker
listing the other lines' names (only when that is worth it: a plain list of paths is not
shortened by listing its paths). A block of 2 to MAX_PERIOD lines repeated line by line
(`> Task :model:compileJava` / two `Note:` lines / a blank line, then the same for the next
module) is said as its first block and one marker with the count and each block's name.

Both work on the line digest's run keys (digest.py): None for a line kept for its own sake
(never touched here), "" for a blank line, "pass"/"noise" for quiet lines, "shape:..." for
any other line, "again:..." for a repeat of something shown already. They set the key of
each line the marker replaces to "names:<first line>:<word index>" or
"blocks:<first line>:<lines per block>", and the first line or block's keys to None.
"""

from __future__ import annotations

from ccstate.outputs import lines as L

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    Keys = list[str | None]

QUIET = frozenset({"pass", "noise"})
MAX_PERIOD = 4  # lines in a repeated block
NAMES_SAVED = 0.25  # a marker that lists the names must keep at least this share out
MARKER_CHARS = 70  # about what a marker says besides the names


class Parts:
    """`lines.parts` of each line, computed when first asked for."""

    __slots__ = ("cache", "lines")

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.cache: dict[int, list[str]] = {}

    def __getitem__(self, i: int) -> list[str]:
        got = self.cache.get(i)
        if got is None:
            got = self.cache[i] = L.parts(self.lines[i])
        return got


# --------------------------------------------------------------------------- blocks


def block_runs(lines: Sequence[str], keys: Keys, min_run: int) -> None:
    """Blocks of 2 to MAX_PERIOD lines repeated at least `min_run` times, each line like the
    same line of the first block (quiet with quiet, blank with blank, else alike), the last
    block maybe cut short. A paragraph that repeats an earlier one may be such a block: the
    marker then names each block's topic."""
    blocks = _Blocks(lines, keys, min_run)
    worded = blocks.worded
    n = len(lines)
    i = 0
    while i < n:
        if keys[i] is None or worded[min(n, i + MAX_PERIOD)] == worded[i]:
            i += 1  # kept, or no line with words within reach: no block starts here
            continue
        period, end = blocks.run_at(i)
        if not period:
            i += 1
            continue
        for j in range(i, i + period):
            keys[j] = None  # the first block stays, as the example
        for j in range(i + period, end):
            keys[j] = f"blocks:{i}:{period}"
        i = end


class _Blocks:
    __slots__ = ("kept", "keys", "min_run", "parts", "worded", "words")

    def __init__(self, lines: Sequence[str], keys: Keys, min_run: int) -> None:
        self.keys = keys
        self.min_run = min_run
        self.parts = Parts(lines)
        # running counts: kept lines, and lines with words (not kept, blank or quiet)
        self.kept = kept = [0]
        self.worded = worded = [0]
        for key in keys:
            kept.append(kept[-1] + (key is None))
            worded.append(worded[-1] + (key is not None and key != "" and key not in QUIET))
        # words in a plain line's key (its shape): lines of different lengths are not alike
        self.words = [k.count(" ") if k is not None and _plain(k) else -1 for k in keys]

    def alike(self, a: int, b: int) -> bool:
        """Line b may stand for line a: both may go, and blank, quiet or alike in words."""
        ka, kb = self.keys[a], self.keys[b]
        if ka is None or kb is None:
            return False
        if ka == kb:
            return True  # the same shape, or both blank, or both quiet of a kind
        if ka == "" or kb == "" or ka in QUIET or kb in QUIET:
            return ka == kb or (ka in QUIET and kb in QUIET)
        wa, wb = self.words[a], self.words[b]
        if wa != wb and wa >= 0 and wb >= 0:
            return False
        return L.name_at(self.parts[a], self.parts[b]) is not None

    def run_at(self, i: int) -> tuple[int, int]:
        """(period, end) of the run of blocks starting at line i; (0, i) when there is none."""
        n = len(self.keys)
        kept, worded = self.kept, self.worded
        repeats = True  # lines i+1 .. i+p-1 are all like line i
        for p in range(2, MAX_PERIOD + 1):
            if i + p * self.min_run > n:
                break
            repeats = repeats and self.alike(i, i + p - 1)
            if repeats:
                continue  # one line repeated: a plain run
            if kept[i + p] != kept[i] or worded[i + p] == worded[i]:
                continue  # a kept line; or blank and quiet lines alone: the plain runs' job
            if not self.alike(i, i + p):
                continue
            end = i + p
            while end < n and self.alike(i + (end - i) % p, end):
                end += 1
            if end - i >= p * self.min_run:
                return p, end
        return 0, i


def block_names(lines: Sequence[str], start: int, end: int, first: int, period: int) -> str:
    """The name each block in start..end-1 has where the first block that differs from the
    block at `first` differs from it ("" when none does)."""
    where = None
    for b in range(start, end, period):
        for t in range(min(period, end - b)):
            k = L.name_at(L.parts(lines[first + t]), L.parts(lines[b + t]))
            if k is not None and k >= 0:
                where = (t, k)
                break
        if where:
            break
    if where is None:
        return ""
    t, k = where
    return listed(
        [_name(lines[b + t].split()[k]) for b in range(start, end, period) if b + t < end]
    )


# --------------------------------------------------------------------------- names


def name_runs(lines: Sequence[str], keys: Keys, min_run: int) -> None:
    """Runs of at least `min_run` alike lines, not all of one shape (the plain runs collapse
    those), whose names are worth listing."""
    n = len(lines)
    parts = Parts(lines)
    plain = [_plain(key) for key in keys]
    i = 0
    while i + min_run <= n:
        if not (plain[i] and plain[i + 1]):
            i += 1
            continue
        a, b = keys[i], keys[i + 1]
        if a == b or not (a and b and a.count(" ") == b.count(" ")):
            i += 1  # one shape (a plain run), or lines of different lengths
            continue
        k = L.name_at(parts[i], parts[i + 1])
        if k is None or k < 0:
            i += 1
            continue
        j = i + 2
        while j < n and plain[j] and L.name_at(parts[i], parts[j]) in (-1, k):
            j += 1
        if j - i < min_run:
            i += 1
            continue
        if not _names_pay(lines, i, j, k):
            i = j  # a part of it would not pay either
            continue
        keys[i] = None
        for m in range(i + 1, j):
            keys[m] = f"names:{i}:{k}"
        i = j


def run_names(lines: Sequence[str], start: int, end: int, k: int) -> str:
    """The names (word k) of the lines start..end-1, listed."""
    return listed([_name(lines[j].split()[k]) for j in range(start, end)])


def _names_pay(lines: Sequence[str], first: int, end: int, k: int) -> bool:
    """Whether listing the names of the lines after `first` keeps NAMES_SAVED of them out."""
    replaced = sum(len(lines[j]) + 1 for j in range(first + 1, end))
    said = len(run_names(lines, first + 1, end, k)) + MARKER_CHARS
    return said < replaced * (1 - NAMES_SAVED)


def _plain(key: str | None) -> bool:
    return key is not None and key.startswith("shape:")


def listed(names: list[str]) -> str:
    """Names in their order: a name repeated in a row said once with its count, paths in a
    row that share a folder written as the folder and braces (`src/lib/{a.ts,b.ts}`)."""
    return ", ".join(listed_items(names))


def listed_items(names: list[str]) -> list[str]:
    """`listed`, item by item."""
    out: list[str] = []
    i = 0
    while i < len(names):
        name = names[i]
        j = i + 1
        while j < len(names) and names[j] == name:
            j += 1
        if j - i > 1:
            out.append(f"{name} ({j - i}x)")
            i = j
            continue
        folder = name[: name.rfind("/") + 1]
        while folder and j < len(names) and _in_folder(names[j], folder):
            j += 1
        if j - i > 1:
            out.append(folder + "{" + ",".join(n[len(folder) :] for n in names[i:j]) + "}")
        else:
            out.append(name)
        i = j
    return out


def _in_folder(name: str, folder: str) -> bool:
    rest = name[len(folder) :]
    return name.startswith(folder) and "/" not in rest and "," not in rest and "{" not in rest


def _name(word: str) -> str:
    """A name as a marker lists it: without the punctuation that ends it in the line."""
    return word.rstrip(",;:") or word
