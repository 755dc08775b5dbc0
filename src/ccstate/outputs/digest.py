"""The digest of a text output (pure): keep what a reader needs, collapse the repetitive rest.

Kept whole, never collapsed ("protected"):
- every error block: an error line (`lines.classify`), the two lines before it, and its
  continuation (deeper-indented lines, stack frames, further error lines), plus one line after;
- summary lines (test counts, build result, exit status, section banners);
- the first `HEAD` and the last `TAIL` lines.

Collapsed into one marker line that gives the count, the original line numbers and an example:
- runs of passing-test and progress lines (blank lines inside a run go with it);
- runs of at least `MIN_RUN` lines of one shape (`lines.shape`: numbers and names stood in for);
- a warning block whose first line has the shape of an earlier warning's (the locations are
  listed; a diagnostic drawn with a gutter, `│`/`|`/`└─`, is one block to its paragraph's
  end); repeats of what was shown already: an error block identical to an earlier one (the
  same error lines), stack frames an earlier kept block showed word for word, the body of a
  paragraph that repeats an earlier paragraph's.

After its first line or block, said in one marker with the count and the names (alike.py):
- runs of lines alike but for one name (`src/a.ts 53ms (unchanged)`), when listing the names
  is worth it; blocks of 2-4 lines repeated line by line (`> Task :x:compileJava` + notes).

Cut in the middle, with a marker naming how much: a line over `LONG_LINE` characters that is
not a failure line (minified HTML, JS or CSS; a one-line JSON blob).

Deterministic: the same lines give the same digest. `digest_lines` returns None when it would
not save enough; the caller then passes the output through untouched.
"""

from __future__ import annotations

from ccstate.outputs import alike
from ccstate.outputs import lines as L

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

HEAD = 5
TAIL = 8
BEFORE = 2  # context lines kept before an error line
AFTER = 1  # ... and after its block
MIN_RUN = 3  # non-blank lines of one kind before a run is collapsed
MAX_BLOCK = 400  # continuation lines of one error or warning block
MAX_PARAGRAPH = 40  # lines; a longer paragraph is not compared with others
EXAMPLE_CHARS = 80
MAX_LOCATIONS = 8
# A line longer than this (minified HTML or JS, a one-line JSON blob) keeps its head and tail.
# In the public transcripts every line over it is such a blob; the longest a test runner or a
# compiler printed is 1,345 characters (docs/OUTPUTS.md).
LONG_LINE = 2_000
LONG_HEAD = 600
LONG_TAIL = 200
MARK = "[ccstate: "
_QUIET = alike.QUIET
_LOCATION = None  # compiled on first use
_GUTTER_CHARS = L.GUTTER_CHARS


class Digest:
    """A digest: its lines, and what it did to the original's `total` lines."""

    __slots__ = ("kept", "markers", "omitted", "text", "total")

    def __init__(self, text: str, total: int, kept: int, omitted: int, markers: int) -> None:
        self.text = text
        self.total = total
        self.kept = kept
        self.omitted = omitted
        self.markers = markers

    def __repr__(self) -> str:
        return f"Digest(total={self.total}, kept={self.kept}, markers={self.markers})"


def digest_text(text: str, *, max_chars: int) -> Digest | None:
    """The digest of an output, or None when the text is not line-oriented enough to digest
    or collapsing saves nothing."""
    return digest_lines(L.normalize(text), max_chars=max_chars)


def digest_lines(
    lines: Sequence[str],
    *,
    max_chars: int,
    numbers: Sequence[int] | None = None,
    keep: Collection[int] = (),
) -> Digest | None:
    """The digest of these lines; `numbers` gives each line's number in the complete output
    when the lines are not all of it (a linter report already grouped), for the markers;
    the lines at the indexes in `keep` are protected too (a Grep result's file headings)."""
    n = len(lines)
    whole = bytearray(n)  # lines never cut (failure lines are not either)
    for i in keep:
        whole[i] = 1
    if n < HEAD + TAIL + MIN_RUN:  # too short to collapse: only long lines are cut
        out, cuts = cut_long_lines(lines, whole)
        text = "\n".join(out)
        return Digest(text, n, n, 0, cuts) if cuts and len(text) <= max_chars else None
    classes = L.classify_all(lines)
    shapes = _Shapes(lines)
    guard = _protected(lines, classes, shapes)
    for i in keep:
        guard[i] = 1
    plain = _run_keys(lines, classes, guard, shapes)
    keys = list(plain)
    alike.block_runs(lines, keys, MIN_RUN)
    alike.name_runs(lines, keys, MIN_RUN)
    numbers = numbers if numbers is not None else range(1, n + 1)
    out, kept, markers = _render(lines, classes, whole, keys, numbers)
    text = "\n".join(out)
    if len(text) > max_chars:  # too long still: every unprotected stretch becomes one line
        keys = [None if k is None else "" if k == "" else "rest" for k in plain]
        out, kept, markers = _render(lines, classes, whole, keys, numbers)
        text = "\n".join(out)
    if len(text) > max_chars or not markers:
        return None  # the protected lines alone are too long, or nothing collapsed
    return Digest(text, n, kept, n - kept, markers)


def cut_long_lines(lines: Sequence[str], whole: bytearray | None = None) -> tuple[list[str], int]:
    """The lines with each long one cut (`_cut`; not those marked in `whole`), and how many
    were cut."""
    out = [_cut(line, whole[i] if whole else 0) for i, line in enumerate(lines)]
    return out, sum(1 for a, b in zip(out, lines, strict=True) if a is not b)


def _cut(line: str, whole: int) -> str:
    """A line over LONG_LINE characters, unless it must stay whole (a failure line, or kept
    by the caller), with its middle left out and a marker naming how much."""
    if len(line) <= LONG_LINE or whole or L.is_failure_line(line):
        return line
    left = len(line) - LONG_HEAD - LONG_TAIL
    return f"{line[:LONG_HEAD]}…{MARK}{left:,} chars of this line left out]…{line[-LONG_TAIL:]}"


# --------------------------------------------------------------------------- what is kept


class _Shapes:
    """`lines.shape` of each line, computed when first asked for (most are asked for twice:
    paragraphs and runs)."""

    __slots__ = ("cache", "lines")

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.cache: dict[int, str] = {}

    def __getitem__(self, i: int) -> str:
        got = self.cache.get(i)
        if got is None:
            got = self.cache[i] = L.shape(self.lines[i])
        return got


def _protected(lines: Sequence[str], classes: list[str], shapes: _Shapes) -> bytearray:
    n = len(lines)
    guard = bytearray(n)
    for i in range(min(HEAD, n)):
        guard[i] = 1
    for i in range(max(0, n - TAIL), n):
        guard[i] = 1
    seen: set[tuple[str, ...]] = set()
    frames: set[str] = set()
    i = 0
    while i < n:
        kind = classes[i]
        if kind == "summary":
            guard[i] = 1
        if kind != "error":
            i += 1
            continue
        end = _block_end(lines, classes, i)
        # the same error lines, and the same shape of the rest (frames differ in line numbers)
        key = tuple(lines[j] if classes[j] == "error" else shapes[j] for j in range(i, end))
        if key in seen and end - i > 1:  # a repeated error block: keep the first only
            for j in range(max(0, i - BEFORE), end):  # its context goes with it
                if guard[j] != 1:
                    guard[j] = 2
        else:
            seen.add(key)
            for j in range(max(0, i - BEFORE), min(n, end + AFTER)):
                if guard[j] != 2:
                    guard[j] = 1
            _shown_frames(lines, classes, guard, range(i, end), frames)
        i = end
    _repeated_paragraphs(lines, classes, guard, shapes)
    return guard


def _shown_frames(
    lines: Sequence[str],
    classes: list[str],
    guard: bytearray,
    block: range,
    frames: set[str],
) -> None:
    """Stack frames of a kept block that an earlier kept block showed already, word for word
    (the test runner's own frames, under every logged error), are marked as repeats (2)."""
    for j in block:
        if classes[j] != "frame":
            continue
        if lines[j] in frames:
            guard[j] = 2
        else:
            frames.add(lines[j])


def _repeated_paragraphs(
    lines: Sequence[str], classes: list[str], guard: bytearray, shapes: _Shapes
) -> None:
    """A paragraph (lines between blank lines) whose body, every line after its first, repeats
    an earlier paragraph's (the same error lines, the same shape of the rest) is marked as a
    repeat (2), its first line too unless that is an error or summary line. Test runners
    print a test's console output under a line naming the test ("stderr | a.test.ts > case"),
    often the same for many tests; the marker shows the first of those lines."""
    n = len(lines)
    seen: set[tuple[str, ...]] = set()
    i = 0
    while i < n:
        if classes[i] == "blank":
            i += 1
            continue
        end = i
        while end < n and classes[end] != "blank":
            end += 1
        if 1 < end - i <= MAX_PARAGRAPH:
            body = range(i + 1, end)
            key = tuple(lines[j] if classes[j] == "error" else shapes[j] for j in body)
            if key in seen and i >= HEAD and end <= n - TAIL:
                first = i if classes[i] not in ("error", "summary") else i + 1
                for j in range(first, end):
                    guard[j] = 2
            seen.add(key)
        i = end


def _block_end(lines: Sequence[str], classes: list[str], start: int) -> int:
    """One past the last line of the block that starts at `start`: deeper-indented lines and
    stack frames follow it (and, after a Python "Traceback", its exception line); one blank
    line may sit inside. A diagnostic drawn with a gutter runs to the end of its paragraph."""
    drawn = _gutter_end(lines, classes, start)
    if drawn:
        return drawn
    base = L.indent(lines[start])
    n = len(lines)
    j = start + 1
    while j < n and j - start < MAX_BLOCK:
        kind = classes[j]
        if kind == "blank":
            if j + 1 < n and classes[j + 1] != "blank" and L.indent(lines[j + 1]) > base:
                j += 1
                continue
            break
        deeper = L.indent(lines[j]) > base
        traceback = kind == "error" and lines[start].lstrip().startswith("Traceback")
        if deeper or kind == "frame" or traceback:
            j += 1
            continue
        break  # a line as shallow as the first, an error line too: the next block
    return j


def _gutter_end(lines: Sequence[str], classes: list[str], start: int) -> int:
    """A diagnostic drawn with a gutter (Elixir, rustc: ` 264 │   code`, `  |`, `└─ lib/a.ex:3`)
    whose lines may be as shallow as its first (Elixir indents the message, not the gutter):
    one past the end of its paragraph, or of the lines before the next line that starts with
    the same word; 0 when no gutter line follows in the paragraph."""
    end = start + 1
    stop = min(len(lines), start + MAX_PARAGRAPH)
    drawn = False
    while end < stop and classes[end] != "blank":
        line = lines[end]
        drawn = drawn or (_GUTTER_CHARS.search(line) is not None and L.is_gutter(line))
        end += 1
    if not drawn:
        return 0
    head = lines[start].split(None, 1)[0]
    for j in range(start + 1, end):
        if lines[j].split(None, 1)[0] == head:
            return j  # the next diagnostic
    return end


# --------------------------------------------------------------------------- what collapses


def _run_keys(
    lines: Sequence[str], classes: list[str], guard: bytearray, shapes: _Shapes
) -> list[str | None]:
    """Per line: the key its run collapses under ("" = blank, joins any run; None = kept)."""
    n = len(lines)
    keys: list[str | None] = [None] * n
    warned: dict[str, int] = {}
    i = 0
    while i < n:
        kind = classes[i]
        if guard[i] == 1:
            i += 1
            continue
        if guard[i] == 2:
            keys[i] = "again:error"
            i += 1
            continue
        if kind == "warning":
            end = _block_end(lines, classes, i)
            head = L.shape(lines[i], names=True)
            if head in warned and all(not guard[j] for j in range(i, end)):
                for j in range(i, end):
                    keys[j] = "again:" + head
                i = end
                continue
            warned.setdefault(head, i)
        if kind == "blank":
            keys[i] = ""
        elif kind in _QUIET:
            keys[i] = kind
        else:
            keys[i] = "shape:" + shapes[i]
        i += 1
    return keys


def _runs(keys: list[str | None]) -> list[tuple[int, int, str]]:
    """(start, end, key) of each run worth collapsing, in order."""
    runs: list[tuple[int, int, str]] = []
    n = len(keys)
    i = 0
    while i < n:
        key = keys[i]
        if not key:
            i += 1
            continue
        j, last, count = i + 1, i, 1
        while j < n:
            other = keys[j]
            if other == "":
                j += 1
                continue
            if other is None or not _same_run(key, other):
                break
            if other != key and key in _QUIET:
                key = "quiet"
            last, count = j, count + 1
            j += 1
        if count >= MIN_RUN or key.startswith(("again:", "names:", "blocks:")):
            runs.append((i, last + 1, key))
        i = last + 1
    return runs


def _same_run(key: str, other: str) -> bool:
    if key in _QUIET or key == "quiet":
        return other in _QUIET
    return other == key


# --------------------------------------------------------------------------- the digest


def _render(
    lines: Sequence[str],
    classes: list[str],
    whole: bytearray,
    keys: list[str | None],
    numbers: Sequence[int],
) -> tuple[list[str], int, int]:
    out: list[str] = []
    kept = markers = 0
    runs = _runs(keys)
    r = 0
    i = 0
    n = len(lines)
    while i < n:
        if r < len(runs) and runs[r][0] == i:
            start, end, key = runs[r]
            r += 1
            marker = _marker(lines, classes, start, end, key, (numbers[start], numbers[end - 1]))
            budget = sum(len(lines[j]) + 1 for j in range(start, end))
            if key.startswith("names:"):  # a list of names must be worth the loss of lines
                budget = int(budget * (1 - alike.NAMES_SAVED))
            if len(marker) < budget:
                out.append(marker)
                markers += 1
                i = end
                continue
        line = _cut(lines[i], whole[i])
        out.append(line)
        kept += 1
        markers += line is not lines[i]
        i += 1
    return out, kept, markers


def _marker(
    lines: Sequence[str],
    classes: list[str],
    start: int,
    end: int,
    key: str,
    where: tuple[int, int],
) -> str:
    span = f"lines {where[0]}-{where[1]}" if where[1] > where[0] else f"line {where[0]}"
    first = next(lines[j] for j in range(start, end) if classes[j] != "blank")
    example = _example(first)
    count = end - start
    if key == "pass":
        return f"{MARK}{count} passing-test lines omitted ({span}), e.g. {example}]"
    if key == "noise":
        return f"{MARK}{count} progress lines omitted ({span}), e.g. {example}]"
    if key == "quiet":
        return f"{MARK}{count} passing-test and progress lines omitted ({span}), e.g. {example}]"
    if key == "again:error":
        return (
            f"{MARK}{count} lines omitted ({span}): repeats of lines shown above, "
            f"starting {example}]"
        )
    if key.startswith("again:"):
        head = key[len("again:") :]  # the shape of each block's first line
        blocks = sum(
            1
            for j in range(start, end)
            if classes[j] == "warning" and L.shape(lines[j], names=True) == head
        )
        found = _locations(lines[start:end])
        return (
            f"{MARK}{count} lines omitted ({span}): {blocks} more warning"
            f"{'s' if blocks != 1 else ''} like {example}{found}]"
        )
    if key == "rest":
        return f"{MARK}{count} lines omitted ({span}), starting {example}]"
    if key.startswith("names:"):  # names:<first line>:<word index>
        names = alike.run_names(lines, start, end, int(key.rsplit(":", 1)[1]))
        return f"{MARK}{count} more lines like the one above ({span}) for: {names}]"
    if key.startswith("blocks:"):  # blocks:<first line>:<lines per block>
        origin, period = (int(x) for x in key.split(":")[1:])
        names = alike.block_names(lines, start, end, origin, period)
        blocks = -(-count // period)  # the last block may be cut short
        what = f"{MARK}{blocks} more blocks like the {period} lines above ({span})"
        return f"{what} for: {names}]" if names else f"{what}]"
    return f"{MARK}{count} similar lines omitted ({span}), e.g. {example}]"


def _example(line: str) -> str:
    text = line.strip()
    if len(text) > EXAMPLE_CHARS:
        text = text[: EXAMPLE_CHARS - 1] + "…"
    return '"' + text + '"'


def _locations(block: Sequence[str]) -> str:
    global _LOCATION
    if _LOCATION is None:
        import re

        _LOCATION = re.compile(r"[\w./-]+\.[A-Za-z]\w*:\d+(?::\d+)?")
    found: list[str] = []
    for line in block:
        match = _LOCATION.search(line)
        if match and match.group(0) not in found:
            found.append(match.group(0))
    if not found:
        return ""
    more = f", … (+{len(found) - MAX_LOCATIONS})" if len(found) > MAX_LOCATIONS else ""
    return ", at " + ", ".join(found[:MAX_LOCATIONS]) + more
