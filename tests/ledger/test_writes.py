"""The context's own writes (issue #24): Claude Code's edit semantics, what the context holds
after a Write or Edit, and a file as a Read shows it. The edit cases are the ones observed in
the real CLI 2.1.328 (payload shapes and results on disk)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ccstate.ledger import writes
from ccstate.ledger.writes import WriteEvent, edited, held_after, view, write_event


def test_one_edit_replaces_the_only_occurrence() -> None:
    assert edited("alpha\nbeta\ngamma\n", [("alpha", "ALPHA", False)]) == "ALPHA\nbeta\ngamma\n"


def test_an_old_string_found_twice_fails_unless_replace_all() -> None:
    text = "ALPHA\nbeta\ngamma\nbeta\n"
    assert edited(text, [("beta", "BETA", False)]) is None
    assert edited(text, [("beta", "BETA", True)]) == "ALPHA\nBETA\ngamma\nBETA\n"


def test_occurrences_are_counted_without_overlap_as_claude_code_does() -> None:
    # "aaa" holds "aa" once without overlap: Claude Code's indexOf from the end of the first
    assert edited("aaa", [("aa", "b", False)]) == "ba"


def test_an_empty_new_string_takes_the_line_ending_after_the_old_one() -> None:
    # observed: Edit("ALPHA" -> "") of "ALPHA\nBETA\nBETA\n" left "BETA\nBETA\n"
    assert edited("ALPHA\nBETA\nBETA\n", [("ALPHA", "", False)]) == "BETA\nBETA\n"
    assert edited("ALPHA\nBETA\ngamma\nBETA\n", [("gamma\n", "", False)]) == ("ALPHA\nBETA\nBETA\n")
    assert edited("x = 1", [("x = 1", "", False)]) == ""
    assert edited("keep x = 1", [("x = 1", "", False)]) == "keep "


def test_an_old_string_not_found_or_a_no_op_fails() -> None:
    assert edited("abc", [("zzz", "y", False)]) is None
    assert edited("abc", [("b", "b", False)]) is None


def test_multi_edits_apply_in_turn_and_refuse_to_edit_their_own_output() -> None:
    assert edited("a b c", [("a", "A", False), ("c", "C", False)]) == "A b C"
    assert edited("a b c", [("a", "xyz", False), ("y", "Y", False)]) is None


def test_an_empty_old_string_makes_the_new_string_the_file() -> None:
    assert edited("", [("", "created\n", False)]) == "created\n"
    event = WriteEvent("Edit", "/p/new.py", edits=(("", "created\n", False),))
    assert held_after(event, None) == "created\n"
    assert held_after(event, "") == "created\n"
    assert held_after(event, "something the context read\n") is None


def test_held_after_a_write_is_its_content_and_after_an_edit_the_edited_text() -> None:
    write = write_event("Write", {"file_path": "/p/a.py", "content": "x\n"}, {}, "/p/a.py")
    assert held_after(write, None) == "x\n"
    edit = write_event(
        "Edit", {"old_string": "x", "new_string": "y", "replace_all": False}, {}, "/p/a.py"
    )
    assert held_after(edit, "x\n") == "y\n"
    assert held_after(edit, None) is None  # the context did not hold the file


def test_unsure_payloads_are_skipped() -> None:
    modified = write_event(
        "Edit", {"old_string": "a", "new_string": "b"}, {"userModified": True}, "/p/a.py"
    )
    assert modified.skip == "the user modified it" and held_after(modified, "a") is None
    assert write_event("Write", {"content": 3}, {}, "/p/a.py").skip == "no content"
    assert write_event("Write", {"content": "x"}, {}, "/p/n.ipynb").skip
    assert write_event("Edit", {"old_string": "a"}, {}, "/p/a.py").skip == "edits not understood"
    bad_multi = write_event("MultiEdit", {"edits": [{"old_string": "a"}]}, {}, "/p/a.py")
    assert bad_multi.skip == "edits not understood"


def test_the_payloads_of_2_1_328_are_read_as_observed() -> None:
    edit = write_event(
        "Edit",
        {"file_path": "/p/a.py", "old_string": "beta", "new_string": "BETA", "replace_all": True},
        {"originalFile": "ALPHA\nbeta\ngamma\nbeta\n", "userModified": False, "replaceAll": True},
        "/p/a.py",
        "toolu_1",
    )
    assert (edit.edits, edit.original_lines, edit.skip) == ((("beta", "BETA", True),), 5, "")
    multi = write_event(
        "MultiEdit",
        {"edits": [{"old_string": "a", "new_string": "b"}]},
        {"originalFileContents": "a\n", "edits": []},
        "/p/a.py",
    )
    assert (multi.edits, multi.original_lines) == ((("a", "b", False),), 2)


def test_view_is_what_a_whole_file_read_shows() -> None:
    assert view(b"one\r\ntwo\r\n") == "one\ntwo\n"  # observed: Read turns CRLF into LF
    assert view(b"a\rb") == "a\rb"
    assert view(b"\xef\xbb\xbfhello\n") is None  # a byte-order mark: not sure what Read shows
    assert view(b"\xff\xfeh\x00") is None
    assert view(b"caf\xe9") is None  # not UTF-8


def test_disk_view_reads_regular_files_only(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"x\r\ny\n")
    text, data, stamp = writes.disk_view(str(path))
    assert (text, data) == ("x\ny\n", b"x\r\ny\n") and stamp is not None
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert writes.disk_view(str(fifo)) == (None, None, None)
    assert writes.disk_view(str(tmp_path / "missing")) == (None, None, None)


@pytest.mark.parametrize("size", [writes.MAX_VIEW_BYTES + 1])
def test_disk_view_leaves_big_files_alone(tmp_path: Path, size: int) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * size)
    assert writes.disk_view(str(path)) == (None, None, None)
