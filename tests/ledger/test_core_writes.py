"""The decision core after the context's own writes (issue #24): a Write or an Edit of a file
the context held leaves it holding the new text, and a later Read of that text gets a notice,
the unseen lines or a diff against it; anything unsure leaves the Reads' segments as they were.
Pure tests: the "disk" is the text a test says is there."""

from __future__ import annotations

from ccstate.ledger import core as ledger
from ccstate.ledger import writes
from ccstate.ledger.core import Claim, Decision, Ledger, Options
from ccstate.ledger.records import WRITE_BASE, write_no

PATH = "/p/app.py"
TEXT = "".join(f"line {i:02d} of app.py, with enough text to matter\n" for i in range(1, 41))
EDITED = TEXT.replace("line 20 of app.py", "line twenty of app.py")


def response(content: str, start: int = 1, total: int | None = None) -> dict:
    lines = content.split("\n")
    total = total if total is not None else len(lines)
    file = {"filePath": PATH, "content": content, "numLines": len(lines), "startLine": start}
    return {"type": "text", "file": {**file, "totalLines": total}}


def window(text: str, offset: int, limit: int) -> tuple[dict, dict]:
    lines = text.split("\n")
    part = "\n".join(lines[offset - 1 : offset - 1 + limit])
    return {"file_path": PATH, "offset": offset, "limit": limit}, response(part, offset, len(lines))


class WriteSession:
    """decide + record as the hook does, and its write path: held text, Claude Code's edit,
    the disk check; blobs in memory."""

    def __init__(self, opts: Options | None = None) -> None:
        self.ledger = Ledger()
        self.blobs: dict[str, str] = {}
        self.opts = opts or Options()

    def read(self, content: str | None = None) -> Decision:
        return self.read_raw({"file_path": PATH}, response(TEXT if content is None else content))

    def window(self, text: str, offset: int, limit: int) -> Decision:
        return self.read_raw(*window(text, offset, limit))

    def read_raw(self, tool_input: dict, resp: dict) -> Decision:
        event = ledger.read_event(tool_input, resp, "/p", f"toolu_{self.ledger.reads + 1}")
        decision = ledger.decide(self.ledger, event, self.blobs.get, self.opts)
        self.ledger = ledger.record(self.ledger, event, decision)
        got = ledger.delivered(event, decision)
        if got is not None:
            self.blobs[ledger.sha256(got[2])] = got[2]
        return decision

    def write(self, tool: str, disk: str, response_: dict | None = None, **tool_input: object):
        event = writes.write_event(tool, {"file_path": PATH, **tool_input}, response_ or {}, PATH)
        before = None
        if tool != "Write" and not event.skip:
            before = writes.held_text(self.ledger, PATH, event.original_lines, self.blobs.get)
        held = writes.held_after(event, before)
        if held is not None and held != disk:
            held = None
        self.ledger = writes.record_write(self.ledger, tool, PATH, held, "test")
        if held is not None:
            self.blobs[ledger.sha256(held)] = held
        return held


def test_a_read_after_the_contexts_own_write_of_that_text_is_a_notice() -> None:
    s = WriteSession()
    assert s.write("Write", TEXT, content=TEXT) == TEXT
    notice = s.read()
    assert notice.kind == "identical"
    assert notice.claims == (Claim(write_no("Write", 1), 1, 41, ledger.sha256(TEXT)),)
    assert "unchanged since your Write #1 (sha256 " in notice.content
    assert "so the text you wrote is current." in notice.content


def test_a_read_after_an_edit_of_a_held_file_is_a_notice_naming_the_edit() -> None:
    s = WriteSession()
    s.read()
    old, new = "line 20 of app.py", "line twenty of app.py"
    assert s.write("Edit", EDITED, old_string=old, new_string=new) == EDITED
    notice = s.read(EDITED)
    assert notice.kind == "identical"
    assert "unchanged since your Edit #1 (sha256 " in notice.content
    assert "(what you read, with your edits applied) is current" in notice.content


def test_an_edit_then_a_change_by_something_else_gets_a_diff_against_the_edited_text() -> None:
    s = WriteSession()
    s.read()
    s.write("Edit", EDITED, old_string="line 20 of app.py", new_string="line twenty of app.py")
    formatted = EDITED.replace("line 30 of app.py", "line 30 of app.py  # formatted")
    diff = s.read(formatted)
    assert diff.kind == "unseen"  # one changed line in place: just that line, as for Reads
    assert diff.claims[0].read_no == write_no("Edit", 1)
    assert "unchanged since your Edit #1" in diff.context


def test_a_whole_rewrite_by_something_else_is_served_in_full() -> None:
    s = WriteSession()
    s.write("Write", TEXT, content=TEXT)
    other = "".join(f"completely different line {i}\n" for i in range(60))
    assert s.read(other).kind == "full"


def test_a_diff_after_an_edit_points_at_the_file_as_the_edit_left_it() -> None:
    s = WriteSession(Options(unseen_ranges=False))
    s.write("Write", TEXT, content=TEXT)
    changed = TEXT.replace("line 05 of", "line FIVE of").replace("line 35 of", "line 35 of  #")
    diff = s.read(changed)
    assert diff.kind == "diff"
    assert "changed since your Write #1; the unified diff" in diff.content
    assert "from the file as your Write #1 left it to the current file" in diff.context


def test_an_edit_of_a_file_the_context_saw_only_in_part_records_nothing() -> None:
    s = WriteSession()
    s.window(TEXT, 1, 10)
    after = TEXT.replace("line 05 of", "line FIVE of")
    assert s.write("Edit", after, old_string="line 05 of", new_string="line FIVE of") is None
    assert s.ledger.paths[PATH][0].read_no == 1  # the Read's segment stays
    assert s.read(after).kind == "full"


def test_an_edit_whose_result_differs_from_the_disk_records_nothing() -> None:
    s = WriteSession()
    s.read()
    disk = EDITED.replace("line 21", "line 21 (reformatted)")
    held = s.write("Edit", disk, old_string="line 20 of app.py", new_string="line twenty of app.py")
    assert held is None
    assert s.ledger.history[-1]["kind"] == "not held"
    decision = s.read(disk)
    assert decision.kind == "unseen" and all(c.read_no == 1 for c in decision.claims)


def test_a_write_whose_disk_text_differs_records_nothing() -> None:
    s = WriteSession()
    assert s.write("Write", TEXT.replace("\n", "\r\n"), content=TEXT.replace("\n", " \n")) is None
    assert PATH not in s.ledger.paths


def test_an_ambiguous_edit_records_nothing() -> None:
    s = WriteSession()
    s.read()
    assert s.write("Edit", TEXT, old_string="of app.py", new_string="of x.py") is None


def test_writes_are_numbered_per_tool_and_epoch_and_end_the_escape_hatch() -> None:
    s = WriteSession()
    s.write("Write", TEXT, content=TEXT)
    assert s.read().kind == "identical"
    assert s.ledger.pending is not None
    s.write("Edit", EDITED, old_string="line 20 of app.py", new_string="line twenty of app.py")
    assert s.ledger.pending is None and s.ledger.writes == {"Write": 1, "Edit": 1}
    back = TEXT
    s.write("Edit", back, old_string="line twenty of app.py", new_string="line 20 of app.py")
    notice = s.read()
    assert "unchanged since your Edit #2 (" in notice.content
    s.ledger = ledger.new_epoch(s.ledger, "compaction")
    assert (s.ledger.writes, dict(s.ledger.paths)) == ({}, {})
    assert s.read().kind == "full"


def test_a_new_epoch_with_only_writes_starts_the_numbering_again() -> None:
    s = WriteSession()
    s.write("Edit", TEXT, old_string="x", new_string="y")  # not held: only counted
    assert s.ledger.writes == {"Edit": 1} and not s.ledger.paths
    fresh = ledger.new_epoch(s.ledger, "compaction")
    assert fresh.epoch == 2 and fresh.writes == {}


def test_held_text_composes_the_latest_text_of_every_line() -> None:
    s = WriteSession()
    s.window(TEXT, 1, 20)
    assert writes.held_text(s.ledger, PATH, 41, s.blobs.get) is None
    s.window(TEXT, 21, 21)
    assert writes.held_text(s.ledger, PATH, 41, s.blobs.get) == TEXT
    assert writes.held_text(s.ledger, PATH, 0, s.blobs.get) == TEXT
    assert writes.held_text(s.ledger, "/p/other.py", 0, s.blobs.get) is None


def test_an_edit_of_a_file_held_from_two_windows_is_held_after() -> None:
    s = WriteSession()
    s.window(TEXT, 1, 20)
    s.window(TEXT, 21, 21)
    resp = {"originalFile": TEXT}
    held = s.write(
        "Edit", EDITED, resp, old_string="line 20 of app.py", new_string="line twenty of app.py"
    )
    assert held == EDITED and s.read(EDITED).kind == "identical"


def test_after_a_write_it_could_not_follow_the_ledger_composes_nothing_until_a_whole_read() -> None:
    s = WriteSession()
    s.read()
    formatted = EDITED.replace("line 30", "line 30 (formatted)")
    assert s.write("Edit", formatted, old_string="line 20 of", new_string="line twenty of") is None
    assert s.ledger.unheld == (PATH,)
    # the model believes its edit; the segments hold Read #1's text: no base for the next edit
    assert writes.held_text(s.ledger, PATH, 41, s.blobs.get) is None
    again = formatted.replace("line 10 of", "line ten of")
    assert s.write("Edit", again, old_string="line 10 of", new_string="line ten of") is None
    s.window(again, 1, 10)  # part of the file: still no base
    assert s.ledger.unheld == (PATH,)
    assert s.read(again).kind == "unseen" and s.ledger.unheld == (PATH,)  # only changed lines
    assert s.read(again).kind == "full"  # the escape hatch: the whole file, a base again
    assert s.ledger.unheld == ()
    assert writes.held_text(s.ledger, PATH, 41, s.blobs.get) == again


def test_write_records_and_history() -> None:
    s = WriteSession()
    s.write("Write", TEXT, content=TEXT)
    (entry,) = s.ledger.history
    assert entry == {
        "n": 1,
        "tool": "Write",
        "tool_use_id": "",
        "path": PATH,
        "sha": ledger.sha256(TEXT),
        "kind": "held",
        "reason": "test",
        "epoch": 1,
    }
    assert s.ledger.stats == {"writes": 1, "writes_held": 1}
    assert ledger.replaced_paths(s.ledger, 1) == []  # a write is no replaced Read


def test_a_partial_read_of_a_written_file_is_answered_from_the_write() -> None:
    s = WriteSession()
    s.write("Write", TEXT, content=TEXT)
    tool_input, resp = window(TEXT, 5, 10)
    decision = s.read_raw(tool_input, resp)
    assert decision.kind == "identical"
    assert decision.claims[0].read_no >= WRITE_BASE


def test_a_shell_read_number_and_a_write_number_never_meet() -> None:
    assert write_no("Write", 1) != write_no("Edit", 1) > WRITE_BASE > 10**9
    assert response("x")["type"] == "text"
