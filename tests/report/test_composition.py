"""Context composition: read kinds per context and epoch, Bash re-prints, ccstate savings."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccstate.report import composition, usage


def _tracker() -> composition.Tracker:
    return composition.Tracker(("[ccstate: not file content]",), usage.CAPSULE_HEADER)


def test_read_kinds_per_context_and_epoch() -> None:
    t = _tracker()
    read = {"file_path": "/p/a.py"}
    t.tool_result("main", "Read", read, "1\tA", False, "/p")
    t.tool_result("main", "Read", read, "1\tA", False, "/p")
    t.tool_result("main", "Read", read, "1\tB", False, "/p")
    t.tool_result("main", "Read", {**read, "offset": 5}, "5\tx", False, "/p")
    t.tool_result("agent-x", "Read", read, "1\tB", False, "/p")  # a subagent: its own context
    t.compaction("main")
    t.tool_result("main", "Read", {"file_path": "a.py"}, "1\tB", False, "/p")
    t.tool_result("main", "Read", read, "0\t[ccstate: not file content] /p/a.py", False, "/p")
    comp = t.finish()
    assert dict(comp.read_count) == {
        "first": 2,
        "identical": 1,
        "changed": 1,
        "other_range": 1,
        "after_compaction": 1,
        "ccstate": 1,
    }
    assert dict(comp.reread_files) == {"/p/a.py": 3}


def test_notice_savings_are_counted_against_the_last_delivery() -> None:
    t = _tracker()
    read = {"file_path": "/p/a.py"}
    t.tool_result("main", "Read", read, "1\t" + "x" * 1000, False, "/p")
    t.api_call("main")
    notice = "0\t[ccstate: not file content] /p/a.py lines 1-1 of 1: unchanged"
    t.tool_result("main", "Read", read, notice, False, "/p")
    t.api_call("main")
    t.api_call("main")
    comp = t.finish()
    assert comp.notices == 1
    assert comp.saved_chars == 1002 - len(notice)
    assert comp.saved_char_calls == (1002 - len(notice)) * 2  # two later calls


def test_an_unseen_range_note_reclassifies_the_partial_read() -> None:
    t = _tracker()
    read = {"file_path": "/p/a.py"}
    full = "\n".join(f"{i}\tline {i}" for i in range(1, 101))
    t.tool_result("main", "Read", read, full, False, "/p")
    t.tool_result("main", "Read", read, "50\tline 50 changed", False, "/p")
    t.note(
        "main",
        "[ccstate] /p/a.py: this Read result shows only lines 50-50 of the 1-100 you "
        "asked for. Omitted: lines 1-49 and lines 51-100",
    )
    comp = t.finish()
    assert comp.read_count["ccstate"] == 1 and comp.read_count["changed"] == 0
    assert comp.notes == 1 and comp.saved_chars == 99 * len("50\tline 50 changed")
    assert not comp.reread_files


def test_bash_reprints_of_files_and_repeated_output() -> None:
    t = _tracker()
    t.tool_result("main", "Read", {"file_path": "/p/a.py"}, "1\tA", False, "/p")
    t.tool_result("main", "Bash", {"command": "cat a.py"}, "A", False, "/p")
    t.tool_result("main", "Bash", {"command": "ls -la"}, "x" * 300, False, "/p")
    t.tool_result("main", "Bash", {"command": "ls -la"}, "x" * 300, False, "/p")
    t.tool_result("main", "Bash", {"command": "echo ok"}, "ok", False, "/p")
    t.tool_result("main", "Bash", {"command": "echo ok"}, "ok", False, "/p")
    assert t.finish().bash_reprints == 2


def test_digests_are_counted_with_what_they_kept_out_for_the_rest_of_the_epoch() -> None:
    from ccstate.outputs import core

    assert composition.DIGEST_TAG == core.HANDLE_TAG
    original = "x" * 20_000
    digest = core.with_handle(core.Body("kept", "lines"), original, "/p/.ccstate/out/ab.txt")
    t = _tracker()
    t.tool_result("main", "Bash", {"command": "npm test"}, digest, False, "/p")
    t.api_call("main")
    t.api_call("main")
    t.tool_result("main", "Bash", {"command": "npm test"}, digest, True, "/p")  # a failure
    comp = t.finish()
    assert (comp.digests, comp.digest_chars) == (1, len(digest))
    assert comp.digest_saved_chars == comp.saved_chars == 20_000 - len(digest)
    assert comp.saved_char_calls == 2 * comp.saved_chars


def test_a_shell_read_notice_counts_against_the_files_last_print() -> None:
    t = _tracker()
    t.tool_result("main", "Bash", {"command": "cat a.py"}, "A" * 900, False, "/p")
    notice = "[ccstate: not file content] /p/a.py lines 1-9 of 9: unchanged since ..."
    t.tool_result("main", "Bash", {"command": "cat a.py"}, notice, False, "/p")
    comp = t.finish()
    assert (comp.notices, comp.notice_chars) == (1, len(notice))
    assert comp.saved_chars == 900 - len(notice) and comp.bash_reprints == 0


@pytest.mark.parametrize(
    ("command", "printed"),
    [
        ("cat a.py", ["/p/a.py"]),
        ("head -n 20 src/b.py | tail -5", ["/p/src/b.py"]),
        ("sed -n '10,20p' /abs/c.py", ["/abs/c.py"]),
        ("sed -i 's/a/b/' a.py", []),
        ("git status; cat docs/../d.md", ["/p/d.md"]),
        ("grep -n foo a.py", []),
        ("cat 'unterminated", []),
    ],
)
def test_printed_paths(command: str, printed: list[str]) -> None:
    assert composition.printed_paths(command, "/p") == printed


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(["cat ", "sed -n ", "head -n 3 ", "ls; tail "]),
    st.text(alphabet="ab /-.5p,|;&#'\"\\\t\n\r\x0b\xa0", max_size=24),
)
def test_unquoted_commands_split_as_shlex_would(verb: str, rest: str) -> None:
    """Segments without quotes or backslashes skip shlex: the same words, shlex's whitespace
    (not str.split's, which also splits on \\x0b and \\xa0)."""
    command = verb + rest
    want: list[str] = []
    for segment in composition._SPLIT.split(command):
        first = segment.split(None, 1)
        if not first or first[0].rsplit("/", 1)[-1] not in composition._PRINTERS:
            continue
        try:
            words = shlex.split(segment)
        except ValueError:
            continue
        if words[0].endswith("sed") and "-n" not in words[1:]:
            continue
        operands = [w for w in words[1:] if not w.startswith("-") and not w.isdigit()]
        operands = operands[1:] if words[0].endswith("sed") else operands
        want += [composition._resolve(w, "/p") for w in operands if not w.startswith(("<", ">"))]
    assert composition.printed_paths(command, "/p") == want


# --------------------------------------------------------------------------- as applied (#24, #23)

FULL = "\n".join(f"{i}\tline {i}" for i in range(1, 101))
UNSEEN_NOTE = (
    "[ccstate] /p/a.py: this Read result shows only lines 50-50 of the 1-100 you asked for. "
    "Omitted: lines 1-49 and lines 51-100"
)


def test_a_note_whose_read_was_not_cut_keeps_nothing_out() -> None:
    # Claude Code rejected the hook's updatedToolOutput (schema_invalid) and kept the full
    # Read, but the note in additionalContext still came: its cost counts, no saving does
    t = _tracker()
    read = {"file_path": "/p/a.py"}
    t.tool_result("main", "Read", read, FULL, False, "/p")
    t.tool_result("main", "Read", read, FULL.replace("line 50", "line 50 changed"), False, "/p")
    t.note("main", UNSEEN_NOTE)
    comp = t.finish()
    assert (comp.notes, comp.saved_chars, comp.partial_reads) == (1, 0, 0)
    assert comp.read_count["changed"] == 1 and comp.read_count["ccstate"] == 0


def test_a_note_naming_other_lines_than_the_read_shows_keeps_nothing_out() -> None:
    t = _tracker()
    read = {"file_path": "/p/a.py"}
    t.tool_result("main", "Read", read, FULL, False, "/p")
    t.tool_result("main", "Read", read, "49\tline 49\n50\tline 50 changed", False, "/p")
    t.note("main", UNSEEN_NOTE)
    assert t.finish().saved_chars == 0


def test_a_notice_after_the_contexts_own_write_counts_the_written_file() -> None:
    t = _tracker()
    content = "".join(f"row {i}\n" for i in range(1, 20))  # 20 lines with the last empty one
    t.tool_result("main", "Write", {"file_path": "/p/w.py", "content": content}, "ok", False, "/p")
    notice = (
        "0\t[ccstate: not file content] /p/w.py lines 1-20 of 20: unchanged since your Write #1"
    )
    t.tool_result("main", "Read", {"file_path": "/p/w.py"}, notice, False, "/p")
    comp = t.finish()
    as_read = "\n".join(f"{n}\t{line}" for n, line in enumerate(content.split("\n"), 1))
    assert comp.notices == 1 and comp.saved_chars == len(as_read) - len(notice)


def test_a_notice_after_an_edit_counts_the_edited_file() -> None:
    t = _tracker()
    read = {"file_path": "/p/a.py"}
    t.tool_result("main", "Read", read, FULL, False, "/p")
    edit = {"file_path": "/p/a.py", "old_string": "line 7", "new_string": "line seven\nextra"}
    t.tool_result("main", "Edit", edit, "The file /p/a.py has been updated.", False, "/p")
    notice = "0\t[ccstate: not file content] /p/a.py lines 1-101 of 101: unchanged since your Edit"
    t.tool_result("main", "Read", read, notice, False, "/p")
    edited = FULL.replace("\tline 7\n", "\tline seven\nextra\n").split("\n")
    as_read = "\n".join(f"{n}\t{row.split(chr(9))[-1]}" for n, row in enumerate(edited, 1))
    assert t.finish().saved_chars == len(as_read) - len(notice)


def test_claude_codes_own_stub_is_its_saving_not_ccstates() -> None:
    t = _tracker()
    read = {"file_path": "/p/a.py"}
    t.tool_result("main", "Read", read, FULL, False, "/p")
    stub = (
        "File unchanged since last read. The content from the earlier Read tool_result in this "
        "conversation is still current \u2014 refer to that instead of re-reading."
    )
    t.tool_result("main", "Read", read, stub, False, "/p")
    t.api_call("main")
    t.tool_result("main", "Read", read, FULL, False, "/p")  # delivered after Read #1, not the stub
    comp = t.finish()
    assert comp.read_count["claude_code"] == 1 and comp.read_count["identical"] == 1
    assert (comp.cc_stubs, comp.cc_saved_chars) == (1, len(FULL) - len(stub))
    assert comp.cc_saved_char_calls == len(FULL) - len(stub)
    assert (comp.saved_chars, comp.notices) == (0, 0)
