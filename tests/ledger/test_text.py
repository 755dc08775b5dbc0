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
