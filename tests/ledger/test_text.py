"""The read ledger's wording and diffs (docs/LEDGER.md "What the model sees")."""

from __future__ import annotations

import difflib

from ccstate.ledger import core as ledger
from ccstate.ledger import text as ledger_text
from ccstate.ledger.records import Claim, ReadEvent, Segment

TEXT = "a\nb\nc"
READ = ReadEvent("/p/f.py", "1:", 1, TEXT, 3, lines=tuple(TEXT.split("\n")), sha="f" * 64)


def test_a_diff_of_an_append() -> None:
    assert ledger_text.render_diff(["a", "b"], 1, ["a", "b", "c"], 1).split("\n") == [
        "@@ -1,2 +1,3 @@",
        " a",
        " b",
        "+c",
    ]


def test_a_deletion_and_an_offset_window() -> None:
    assert ledger_text.render_diff(["a", "b", "c"], 5, ["a", "c"], 5).split("\n") == [
        "@@ -5,3 +5,2 @@",
        " a",
        "-b",
        " c",
    ]


def test_render_diff_matches_difflib() -> None:
    old = [f"l{i}" for i in range(1, 30)]
    new = [*old[:5], "new", *old[5:20], *old[22:]]
    theirs = list(difflib.unified_diff(old, new, lineterm=""))[2:]
    assert ledger_text.render_diff(old, 1, new, 1).split("\n") == theirs


def test_notices_are_one_line_and_plural_aware() -> None:
    one = ledger_text.identical_notice(READ, [Claim(2, 1, 3, "x")])
    two = ledger_text.identical_notice(READ, [Claim(2, 1, 1, "x"), Claim(5, 2, 3, "y")])
    assert one == (
        "[ccstate: not file content] /p/f.py lines 1-3 of 3: unchanged since your Read #2 "
        "(sha256 ffffffff), so the text you have from it is current. For the full text again, "
        "repeat this Read (same path, offset and limit)."
    )
    expected = "since your Reads #2 and #5 (sha256 ffffffff), so the text you have from them is"
    assert expected in two
    assert "\n" not in one + two


def test_diff_note_and_notice() -> None:
    base = Segment(1, 3, "e" * 64, 4, "1:")
    assert ledger_text.diff_notice(READ, base) == (
        "[ccstate: not file content] /p/f.py lines 1-3 of 3: changed since your Read #4; the "
        "unified diff from that text is in the ccstate note after this result. For the full text "
        "again, repeat this Read (same path, offset and limit)."
    )
    assert ledger_text.diff_note(READ, base, "@@ -1 +1 @@\n-x\n+a").split("\n") == [
        "[ccstate] /p/f.py changed since your Read #4 (sha256 eeeeeeee -> ffffffff). Unified diff "
        "of the lines you asked for, from the text that Read returned to the current file (a "
        "ccstate note, not file content):",
        "--- /p/f.py (your Read #4)",
        "+++ /p/f.py (now)",
        "@@ -1 +1 @@",
        "-x",
        "+a",
    ]


def test_the_notice_tag_is_what_read_event_refuses_as_content() -> None:
    resp = {"type": "text", "file": {"filePath": "/p/f.py", "content": ledger_text.NOTICE_TAG,
                                     "numLines": 1, "startLine": 1, "totalLines": 1}}  # fmt: skip
    assert ledger.read_event({"file_path": "/p/f.py"}, resp, "/").skip == "already a ccstate notice"


def _apply(old: list[str], body: str, start: int = 1) -> list[str]:
    """Apply a unified diff (hunks only) to `old`; checks every context and removed line."""
    rows = body.split("\n") if body else []
    out: list[str] = []
    pos = 0  # index into old
    i = 0
    while i < len(rows):
        header = rows[i].split()
        old_from = int(header[1][1:].split(",")[0])
        old_len = int(header[1].split(",")[1]) if "," in header[1] else 1
        begin = old_from - start + (0 if old_len else 1)
        out += old[pos:begin]
        pos = begin
        i += 1
        while i < len(rows) and not rows[i].startswith("@@"):
            tag, text = rows[i][0], rows[i][1:]
            if tag in " -":
                assert old[pos] == text, (pos, old[pos], text)
                pos += 1
            if tag in " +":
                out.append(text)
            i += 1
    return out + old[pos:]


def test_random_edits_give_minimal_diffs_that_apply() -> None:
    import difflib
    import random

    rng = random.Random(12)
    for _ in range(3000):
        alphabet = "abc"[: rng.randint(1, 3)]
        old = [rng.choice(alphabet) for _ in range(rng.randint(0, 14))]
        new = list(old)
        for _ in range(rng.randint(0, 6)):
            roll = rng.random()
            if roll < 0.3 and new:
                del new[rng.randrange(len(new))]
            elif roll < 0.6:
                new.insert(rng.randint(0, len(new)), rng.choice(alphabet))
            elif new:
                new[rng.randrange(len(new))] = rng.choice("abcd")
        body = ledger_text.render_diff(old, 1, new, 1)
        assert body is not None
        assert _apply(old, body) == new, (old, new, body)
        ours = sum(r[0] in "+-" for r in body.split("\n") if r and not r.startswith("@@"))
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        theirs = sum(
            i2 - i1 + j2 - j1 for t, i1, i2, j1, j2 in matcher.get_opcodes() if t != "equal"
        )
        assert ours <= theirs  # Myers is minimal; difflib need not be


def test_a_diff_past_its_bounds_is_none() -> None:
    old = ["}", "", "    pass"] * 3000
    new = ["", "}", "    pass"] * 3000
    assert ledger_text.render_diff(old, 1, new, 1) is None  # work bound
    many = [f"line {i}" for i in range(2000)]
    changed = [f"line {i}" if i % 3 else "x" for i in range(2000)]
    assert ledger_text.render_diff(many, 1, changed, 1) is None  # edit bound
    far = list(many)
    far[5], far[1990] = "first", "last"  # two edits far apart: found quickly
    body = ledger_text.render_diff(many, 1, far, 1)
    assert body is not None and body.count("@@") == 4
