"""recall.moments: what a transcript, a handoff, a progress log and DECISIONS.md yield."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccstate.recall import moments
from helpers import prompt_record, text_record, tool_result_record, tool_use_record

SESSION = [
    prompt_record("add a retry to the webhook client"),
    text_record("Looking."),  # mid-turn narration: too short to be a moment
    tool_use_record(
        "t1", "Bash", {"command": "pytest -q tests/test_hook.py", "description": "run"}
    ),
    tool_result_record(
        "t1", "Exit code 1\nFAILED tests/test_hook.py::test_retry\nE   assert 0 == 3", True
    ),
    tool_use_record(
        "t2",
        "Edit",
        {"file_path": "/p/src/hook.py", "old_string": "tries=0", "new_string": "tries=3"},
    ),
    tool_result_record("t2", "The file has been updated."),
    tool_use_record("t3", "Bash", {"command": "pytest -q tests/test_hook.py"}),
    tool_result_record("t3", "3 passed in 0.1s"),
    tool_use_record("t4", "Edit", {"file_path": "/p/gone.py", "old_string": "a"}),
    tool_result_record("t4", "<tool_use_error>File does not exist.</tool_use_error>", True),
    tool_use_record("t5", "Bash", {"command": "ccstate recall webhook"}),
    tool_result_record("t5", "recall: 1 hit(s)"),
    tool_use_record("t6", "Bash", {"command": "rm -rf /"}),
    tool_result_record("t6", "The user doesn't want to proceed with this tool use.", True),
    text_record("Done: the webhook client retries three times."),
    prompt_record("<command-name>/compact</command-name>"),  # not a prompt
]


def scan(records: list[dict[str, Any]]) -> list[moments.Moment]:
    ex = moments.TranscriptMoments("s1")
    for line, record in enumerate(records, start=1):
        ex.feed(line, record)
    ex.finish()
    return ex.drain()


def test_a_session_yields_its_moments_with_lines() -> None:
    got = [(m.kind, m.line) for m in scan(SESSION)]
    assert got == [
        ("prompt", 1),
        ("command", 4),
        ("edit", 6),
        ("command", 8),
        ("fix", 4),
        ("error", 10),
        ("answer", 15),
    ]


def test_command_moments_carry_status_and_error_lines() -> None:
    failed, _edit, passed = [m for m in scan(SESSION) if m.kind in ("command", "edit")]
    assert failed.title == "pytest -q tests/test_hook.py"
    assert "exit: failed (exit 1)" in failed.body
    assert (
        "FAILED tests/test_hook.py::test_retry" in failed.body
        and "E   assert 0 == 3" in failed.body
    )
    assert "exit: ok" in passed.body and "3 passed" in passed.body


def test_an_edit_keeps_the_path_and_old_and_new_text() -> None:
    (edit,) = [m for m in scan(SESSION) if m.kind == "edit"]
    assert edit.title == "/p/src/hook.py"
    assert "- tries=0" in edit.body and "+ tries=3" in edit.body


def test_a_fix_names_the_error_and_what_changed_before_it_passed() -> None:
    (fix,) = [m for m in scan(SESSION) if m.kind == "fix"]
    assert (fix.line, fix.end_line) == (4, 8)
    assert "FAILED tests/test_hook.py::test_retry" in fix.body
    assert "edited /p/src/hook.py" in fix.body


def test_provenance_fields() -> None:
    first = scan(SESSION)[0]
    assert (first.session, first.branch, first.ts) == ("s1", "main", "2026-03-01T10:00:00Z")


def test_the_state_carries_a_scan_over_a_split_anywhere() -> None:
    whole = scan(SESSION)
    for cut in range(1, len(SESSION)):
        ex = moments.TranscriptMoments("s1")
        for line, record in enumerate(SESSION[:cut], start=1):
            ex.feed(line, record)
        first = ex.drain()
        state = json.loads(json.dumps(ex.state()))
        again = moments.TranscriptMoments("s1", state)
        for line, record in enumerate(SESSION[cut:], start=cut + 1):
            again.feed(line, record)
        again.finish()
        assert first + again.drain() == whole, cut


def test_records_of_reading_tools_are_skipped_undecoded() -> None:
    ex = moments.TranscriptMoments("s1")
    ex.feed(1, tool_use_record("r1", "Read", {"file_path": "/p/a.py"}))
    ex.feed(2, tool_use_record("b1", "Bash", {"command": "ls"}))
    compact = (",", ":")  # as Claude Code writes records
    raw = json.dumps(tool_result_record("r1", "x" * 5000), separators=compact).encode()
    assert ex.skip_line(raw) and "r1" not in ex.pending  # a reading tool is never pending
    bash = json.dumps(tool_result_record("b1", "y" * 5000), separators=compact).encode()
    assert not ex.skip_line(bash) and "b1" in ex.pending
    call = tool_use_record("r2", "Grep", {"pattern": "x"})
    assert ex.skip_line(json.dumps(call, separators=compact).encode())
    edit = tool_use_record("e1", "Edit", {"file_path": "/p/a.py"})
    assert not ex.skip_line(json.dumps(edit, separators=compact).encode())
    loose = json.dumps(tool_result_record("r9", "z")).encode()  # not compact: decoded
    assert not ex.skip_line(loose)


@pytest.mark.parametrize(
    ("command", "looking"),
    [
        ("ls -la", True),
        ("cd src && grep -n parse_date *.py | head", True),
        ("git status && git diff --stat", True),
        ("git branch -D old", False),
        ("find . -name '*.pyc' -delete", False),
        ("echo start && git add -A", False),
        ("pytest -q", False),
    ],
)
def test_successful_look_arounds_are_not_moments(command: str, looking: bool) -> None:
    assert moments.looks_around(command) is looking
    records = [
        tool_use_record("c1", "Bash", {"command": command}),
        tool_result_record("c1", "output"),
        tool_use_record("c2", "Bash", {"command": command}),
        tool_result_record("c2", "Exit code 2\nerror: nope", True),
    ]
    kinds = [(m.kind, m.line) for m in scan(records)]
    assert kinds == ([] if looking else [("command", 2)]) + [("command", 4)]  # failures stay


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["error", "E0308", "e ", "  at x", "failed", "Fehler", "é", "\n", " "])
        | st.text(alphabet="aeErRo \n\t\u00a0\u2028é0123_", max_size=10),
        max_size=12,
    ).map("".join)
)
def test_error_lines_on_ascii_text_match_the_unicode_pattern(sample: str) -> None:
    """The ASCII-mode pattern (the fast path) finds the lines the Unicode one finds."""
    found = moments.error_lines(sample)
    original = moments._ERROR_LINE_ASCII
    try:
        moments._ERROR_LINE_ASCII = moments._ERROR_LINE
        assert found == moments.error_lines(sample)
    finally:
        moments._ERROR_LINE_ASCII = original
