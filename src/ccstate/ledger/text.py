"""What the model reads instead of a repeated Read: the notice, the omission note and the diff.

Wording rules (docs/LEDGER.md "What the model sees"): a notice is one line shown as line 0 (no
file has a line 0), starts with NOTICE_TAG, names the path, the line range, the Read it points
to and a short sha, and says how to get the full text again. Notes ride in additionalContext.
Standard library only.
"""

from __future__ import annotations

from ccstate.ledger.records import WRITE_BASE, written_by

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from ccstate.ledger.records import Claim, ReadEvent, Segment

NOTICE_TAG = "[ccstate: not file content]"
NOTE_TAG = "[ccstate]"
# Claude Code's own answers to a repeated Read (versions around 2.1.86-2.1.205; 2.1.328 and
# 2.1.332 only recognise them, `wXt()` / `l_n()`): not file content, and not ccstate's. The
# first came with `toolUseResult` {"type": "file_unchanged", "file": {"filePath": ...}} in
# 2.1.91; the third is only a prefix in the binaries (docs/LEDGER.md).
CC_STUBS = (
    "File unchanged since last read. The content from the earlier Read tool_result in this "
    "conversation is still current \u2014 refer to that instead of re-reading.",
    "Wasted call \u2014 file unchanged since your last Read. Refer to that earlier tool_result "
    "instead.",
    "<system-reminder>This file is already in your context",
)
CC_STUB_PREFIXES = tuple(stub[:40] for stub in CC_STUBS)
REPEAT_HINT = "For the full text again, repeat this Read (same path, offset and limit)."
SHELL_HINT = "For the full output again, run the same command again."


def identical_notice(read: ReadEvent, claims: Iterable[Claim]) -> str:
    claims = tuple(claims)
    return (
        f"{NOTICE_TAG} {read.path} lines {read.start}-{read.end} of {read.total_lines}: "
        f"unchanged since your {_reads_phrase(c.read_no for c in claims)} (sha256 "
        f"{read.sha[:8]}), so {_what_you_have(claims)} is current. {_hint(read)}"
    )


def _what_you_have(claims: tuple[Claim, ...]) -> str:
    """What the model holds of the claimed lines: a Read's text, what it wrote, or what it
    read with its edits applied (ledger/writes.py)."""
    if len({c.read_no for c in claims}) == 1:
        source = written_by(claims[0].read_no)
        if source is not None and source[0] == "Write":
            return "the text you wrote"
        if source is not None:
            return "the text you have (what you read, with your edits applied)"
    return f"the text you have from {_it(claims)}"


def _hint(read: ReadEvent) -> str:
    return SHELL_HINT if read.command else REPEAT_HINT


def unseen_note(read: ReadEvent, first: int, last: int, omitted: Iterable[Claim]) -> str:
    """Lines first..last are shown; the rest of the requested range is `omitted`."""
    omitted = tuple(omitted)
    ranges = [(read.start, first - 1)] * (first > read.start)
    ranges += [(last + 1, read.end)] * (last < read.end)
    return (
        f"{NOTE_TAG} {read.path}: this Read result shows only lines {first}-{last} of the "
        f"{read.start}-{read.end} you asked for. Omitted: "
        + " and ".join(f"lines {a}-{b}" for a, b in ranges)
        + f", unchanged since your {_reads_phrase(c.read_no for c in omitted)}, so "
        f"{_what_you_have(omitted)} is current. {_hint(read)}"
    )


def diff_note(read: ReadEvent, base: Segment, body: str) -> str:
    which = _label(base.read_no)
    source = (
        "the text that Read returned"
        if written_by(base.read_no) is None
        else (f"the file as your {which} left it")
    )
    return (
        f"{NOTE_TAG} {read.path} changed since your {which} (sha256 "
        f"{base.sha[:8]} -> {read.sha[:8]}). Unified diff of the lines you asked for, from "
        f"{source} to the current file (a ccstate note, not file content):\n"
        f"--- {read.path} (your {which})\n+++ {read.path} (now)\n{body}"
    )


def diff_notice(read: ReadEvent, base: Segment) -> str:
    return (
        f"{NOTICE_TAG} {read.path} lines {read.start}-{read.end} of {read.total_lines}: changed "
        f"since your {_label(base.read_no)}; the unified diff from that text is in the "
        f"ccstate note after this result. {_hint(read)}"
    )


MAX_DIFF_EDITS = 600  # lines added + removed; a bigger diff could not fit the note anyway
MAX_DIFF_WORK = 400_000  # comparisons: bounds the hook's time on any input (#12, item 13)
CONTEXT = 3


def render_diff(old: list[str], old_start: int, new: list[str], new_start: int) -> str | None:
    """Unified diff hunks, 3 lines of context, headers in the file's true line numbers; None
    when the edit script is longer than MAX_DIFF_EDITS or costs more than MAX_DIFF_WORK
    comparisons to find (then the Read is served in full). Myers' O((N+M)D) algorithm on what
    lies between the common head and tail, so time grows with the edit, not the file."""
    ops = _opcodes(old, new)
    if ops is None:
        return None
    out: list[str] = []
    for group in _grouped(ops, len(old), len(new)):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(
            f"@@ -{_hunk_range(old_start + i1, i2 - i1)} +{_hunk_range(new_start + j1, j2 - j1)} @@"
        )
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old[a1:a2])
                continue
            out.extend("-" + line for line in old[a1:a2])
            out.extend("+" + line for line in new[b1:b2])
    return "\n".join(out)


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]] | None:
    """difflib-style opcodes (equal / replace / delete / insert) covering all of a and b."""
    n, m = len(a), len(b)
    head = 0
    while head < n and head < m and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    moves = _myers(a[head : n - tail], b[head : m - tail])
    if moves is None:
        return None
    ops: list[tuple[str, int, int, int, int]] = []
    if head:
        ops.append(("equal", 0, head, 0, head))
    x = y = 0
    for same, dx, dy in moves:
        tag = "equal" if same else ("replace" if dx and dy else "delete" if dx else "insert")
        ops.append((tag, head + x, head + x + dx, head + y, head + y + dy))
        x, y = x + dx, y + dy
    if tail:
        ops.append(("equal", n - tail, n, m - tail, m))
    return ops


def _myers(a: list[str], b: list[str]) -> list[tuple[bool, int, int]] | None:
    """(equal?, lines of a, lines of b) runs turning a into b, changes merged; None past the
    edit or work bound."""
    n, m = len(a), len(b)
    limit = min(n + m, MAX_DIFF_EDITS)
    off = limit + 1
    v = [0] * (2 * limit + 3)
    trace: list[list[int]] = []
    work = 0
    for d in range(limit + 1):
        trace.append(v[off - d - 1 : off + d + 2])
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[off + k - 1] < v[off + k + 1]):
                x = v[off + k + 1]
            else:
                x = v[off + k - 1] + 1
            y = x - k
            start = x
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            work += x - start + 1
            v[off + k] = x
            if x >= n and y >= m:
                return _runs(_backtrack(trace, n, m, d))
        if work > MAX_DIFF_WORK:
            return None
    return None


def _backtrack(trace: list[list[int]], n: int, m: int, d: int) -> list[tuple[int, int]]:
    """The path's points (x, y) from (0, 0) to (n, m), one step or snake at a time."""
    points = [(n, m)]
    x, y = n, m
    for depth in range(d, 0, -1):
        v = trace[depth]  # v[i] is diagonal k = i - depth - 1 before step `depth`
        k = x - y
        if k == -depth or (k != depth and v[k - 1 + depth + 1] < v[k + 1 + depth + 1]):
            prev_k = k + 1
        else:
            prev_k = k - 1
        prev_x = v[prev_k + depth + 1]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y and (x - 1, y - 1) != (prev_x, prev_y):
            x, y = x - 1, y - 1
            points.append((x, y))
        x, y = prev_x, prev_y
        points.append((x, y))
    while x > 0 and y > 0:
        x, y = x - 1, y - 1
        points.append((x, y))
    return points[::-1]


def _runs(points: list[tuple[int, int]]) -> list[tuple[bool, int, int]]:
    runs: list[tuple[bool, int, int]] = []
    for i in range(1, len(points)):
        dx, dy = points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]
        same = dx == 1 and dy == 1
        if runs and runs[-1][0] == same:
            prev = runs[-1]
            runs[-1] = (same, prev[1] + dx, prev[2] + dy)
        else:
            runs.append((same, dx, dy))
    return runs


def _grouped(
    ops: list[tuple[str, int, int, int, int]], n: int, m: int
) -> list[list[tuple[str, int, int, int, int]]]:
    """Hunks: the changes with CONTEXT equal lines around them (difflib's grouping rule)."""
    if not ops:
        ops = [("equal", 0, max(n, 1), 0, max(m, 1))]
    if ops[0][0] == "equal":
        tag, i1, i2, j1, j2 = ops[0]
        ops[0] = tag, max(i1, i2 - CONTEXT), i2, max(j1, j2 - CONTEXT), j2
    if ops[-1][0] == "equal":
        tag, i1, i2, j1, j2 = ops[-1]
        ops[-1] = tag, i1, min(i2, i1 + CONTEXT), j1, min(j2, j1 + CONTEXT)
    groups: list[list[tuple[str, int, int, int, int]]] = []
    group: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 > 2 * CONTEXT:
            group.append((tag, i1, min(i2, i1 + CONTEXT), j1, min(j2, j1 + CONTEXT)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - CONTEXT), max(j1, j2 - CONTEXT)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def _hunk_range(start: int, length: int) -> str:
    if length == 1:
        return str(start)
    return f"{start - 1 if length == 0 else start},{length}"


def _reads_phrase(read_nos: Iterable[int]) -> str:
    # Reads first, then shell reads, then the context's own writes (ledger/records.py)
    nos = sorted(set(read_nos), key=lambda n: (n < 0, abs(n)))
    if len(nos) == 1:
        return _label(nos[0])
    if all(0 < n < WRITE_BASE for n in nos):
        return "Reads " + ", ".join(f"#{n}" for n in nos[:-1]) + f" and #{nos[-1]}"
    labels = [_label(n) for n in nos]
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def _label(read_no: int) -> str:
    """ "Read #3"; a shell read (`cat F`...; a negative number inside the ledger) is
    "shell read #3", a write "Edit #2" / "Write #1": each counted apart, as the model made
    them."""
    if read_no < 0:
        return f"shell read #{-read_no}"
    source = written_by(read_no)
    return f"{source[0]} #{source[1]}" if source is not None else f"Read #{read_no}"


def _it(claims: Iterable[Claim]) -> str:
    return "it" if len({c.read_no for c in claims}) == 1 else "them"
