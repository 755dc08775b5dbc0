"""What the model reads instead of a repeated Read: the notice, the omission note and the diff.

Wording rules (docs/LEDGER.md "What the model sees"): a notice is one line shown as line 0 (no
file has a line 0), starts with NOTICE_TAG, names the path, the line range, the Read it points
to and a short sha, and says how to get the full text again. Notes ride in additionalContext.
Standard library only; difflib is imported only when a diff is due.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from ccstate.ledger.records import Claim, ReadEvent, Segment

NOTICE_TAG = "[ccstate: not file content]"
NOTE_TAG = "[ccstate]"
REPEAT_HINT = "For the full text again, repeat this Read (same path, offset and limit)."
SHELL_HINT = "For the full output again, run the same command again."


def identical_notice(read: ReadEvent, claims: Iterable[Claim]) -> str:
    claims = tuple(claims)
    return (
        f"{NOTICE_TAG} {read.path} lines {read.start}-{read.end} of {read.total_lines}: "
        f"unchanged since your {_reads_phrase(c.read_no for c in claims)} (sha256 "
        f"{read.sha[:8]}), so the text you have from {_it(claims)} is current. {_hint(read)}"
    )


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
        + f", unchanged since your {_reads_phrase(c.read_no for c in omitted)}, so the text you "
        f"have from {_it(omitted)} is current. {_hint(read)}"
    )


def diff_note(read: ReadEvent, base: Segment, body: str) -> str:
    which = _label(base.read_no)
    return (
        f"{NOTE_TAG} {read.path} changed since your {which} (sha256 "
        f"{base.sha[:8]} -> {read.sha[:8]}). Unified diff of the lines you asked for, from the "
        "text that Read returned to the current file (a ccstate note, not file content):\n"
        f"--- {read.path} (your {which})\n+++ {read.path} (now)\n{body}"
    )


def diff_notice(read: ReadEvent, base: Segment) -> str:
    return (
        f"{NOTICE_TAG} {read.path} lines {read.start}-{read.end} of {read.total_lines}: changed "
        f"since your {_label(base.read_no)}; the unified diff from that text is in the "
        f"ccstate note after this result. {_hint(read)}"
    )


def render_diff(old: list[str], old_start: int, new: list[str], new_start: int) -> str:
    """Unified diff hunks, 3 lines of context, headers in the file's true line numbers."""
    import difflib  # only when a diff is due: it costs the hook milliseconds to import

    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(3):
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


def _hunk_range(start: int, length: int) -> str:
    if length == 1:
        return str(start)
    return f"{start - 1 if length == 0 else start},{length}"


def _reads_phrase(read_nos: Iterable[int]) -> str:
    nos = sorted(set(read_nos), key=lambda n: (n < 0, abs(n)))  # Reads first, then shell reads
    if len(nos) == 1:
        return _label(nos[0])
    if nos[-1] > 0:
        return "Reads " + ", ".join(f"#{n}" for n in nos[:-1]) + f" and #{nos[-1]}"
    labels = [_label(n) for n in nos]
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def _label(read_no: int) -> str:
    """ "Read #3"; a shell read (`cat F`...; a negative number inside the ledger) is
    "shell read #3": the two are counted apart, as the model made them."""
    return f"shell read #{-read_no}" if read_no < 0 else f"Read #{read_no}"


def _it(claims: Iterable[Claim]) -> str:
    return "it" if len({c.read_no for c in claims}) == 1 else "them"
