"""recall.moments: what a transcript, a handoff, a progress log and DECISIONS.md yield."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccstate.recall import moments
from ccstate.secrets import redact
from gitleaks_corpus import surviving, windows
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
    got = [(m.kind, m.line, m.end_line) for m in scan(SESSION)]
    assert got == [  # a tool's moment spans its call to its result; a fix, failure to success
        ("prompt", 1, 0),
        ("command", 3, 4),
        ("edit", 5, 6),
        ("command", 7, 8),
        ("fix", 4, 8),
        ("error", 9, 10),
        ("answer", 15, 0),
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


def test_records_of_bookkeeping_tools_are_skipped_undecoded() -> None:
    ex = moments.TranscriptMoments("s1")
    ex.feed(1, tool_use_record("r1", "Read", {"file_path": "/p/a.md"}))
    ex.feed(2, tool_use_record("t1", "TodoWrite", {"todos": []}))
    compact = (",", ":")  # as Claude Code writes records
    read = json.dumps(tool_result_record("r1", "x" * 5000), separators=compact).encode()
    assert not ex.skip_line(read) and "r1" in ex.pending  # a Read's output is a moment now
    todo = json.dumps(tool_result_record("t1", "y" * 5000), separators=compact).encode()
    assert ex.skip_line(todo) and "t1" not in ex.pending  # a todo list never is
    call = tool_use_record("t2", "TodoWrite", {"todos": [{"content": "x"}]})
    assert ex.skip_line(json.dumps(call, separators=compact).encode())
    grep = tool_use_record("g1", "Grep", {"pattern": "x"})
    assert not ex.skip_line(json.dumps(grep, separators=compact).encode())
    loose = json.dumps(tool_result_record("r9", "z")).encode()  # not compact: decoded
    assert not ex.skip_line(loose)


@pytest.mark.parametrize(
    ("tool", "tool_input", "output", "title", "found"),
    [
        (
            "Read",
            {"file_path": "/p/memory/architecture.md"},
            "     1→# Device\n     2→LAN address: 192.168.1.18\n",
            "Read /p/memory/architecture.md",
            "LAN address: 192.168.1.18",
        ),
        (
            "WebFetch",
            {"url": "https://docs.example.com/people", "prompt": "endpoint?"},
            "Use POST https://api.example.com/v1/mixed_people/search",
            "WebFetch https://docs.example.com/people",
            "mixed_people/search",
        ),
        (
            "AskUserQuestion",
            {"questions": [{"question": "Public or private repo?"}]},
            'User has answered your questions: "Public or private repo?"="private".',
            "AskUserQuestion Public or private repo?",
            '="private"',
        ),
        (
            "Agent",
            {"description": "Check firmware releases", "prompt": "look"},
            "Latest stable release: v0.9.0 (2025-10-09)",
            "Agent Check firmware releases",
            "v0.9.0",
        ),
    ],
)
def test_what_a_tool_returned_is_an_output_moment(
    tool: str, tool_input: dict[str, Any], output: str, title: str, found: str
) -> None:
    got = scan([tool_use_record("c1", tool, tool_input), tool_result_record("c1", output)])
    assert [(m.kind, m.line, m.end_line, m.title) for m in got] == [("output", 1, 2, title)]
    assert found in got[0].body and "→" not in got[0].body  # Read's gutter dropped


def test_a_failed_read_is_not_a_moment_but_a_failed_mcp_call_is() -> None:
    got = scan(
        [
            tool_use_record("r1", "Read", {"file_path": "/p/none.py"}),
            tool_result_record("r1", "<tool_use_error>File does not exist.</tool_use_error>", True),
            tool_use_record("m1", "mcp__db__query", {"query": "select 1"}),
            tool_result_record("m1", "Error: connection refused", True),
        ]
    )
    assert [(m.kind, m.line, m.end_line, m.title) for m in got] == [
        ("error", 3, 4, "mcp__db__query select 1")
    ]


@pytest.mark.parametrize(
    "command",
    ["ls -la", "cd src && grep -n parse_date *.py | head", "git remote -v", "which jq"],
)
def test_a_look_around_command_is_a_moment_with_what_it_printed(command: str) -> None:
    records = [
        tool_use_record("c1", "Bash", {"command": command}),
        tool_result_record("c1", "origin git@github.com:o/firmware.git (fetch)\njq-1.7.1"),
    ]
    (got,) = scan(records)
    assert (got.kind, got.line, got.end_line, got.title) == ("command", 1, 2, command)
    assert "exit: ok" in got.body and "jq-1.7.1" in got.body and "o/firmware.git" in got.body


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


def test_what_a_local_command_printed_is_a_command_moment() -> None:
    """2.0.x wrote a slash command's output as a user record; 2.1.x as a system record."""
    printed = "<local-command-stdout>Set model to \x1b[1mHaiku 4.5\x1b[22m</local-command-stdout>"
    (got,) = scan([prompt_record(printed)])
    assert (got.kind, got.line, got.title, got.body) == (
        "command",
        1,
        "local command",
        "Set model to Haiku 4.5",
    )


def test_a_read_of_source_code_is_skipped_undecoded_and_a_note_is_not() -> None:
    ex = moments.TranscriptMoments("s1")
    ex.feed(1, tool_use_record("r1", "Read", {"file_path": "/p/src/app.py"}))
    ex.feed(2, tool_use_record("r2", "Read", {"file_path": "/p/notes/deploy.md"}))
    compact = (",", ":")
    code = json.dumps(tool_result_record("r1", "import os\n" * 500), separators=compact).encode()
    assert ex.skip_line(code) and "r1" not in ex.pending  # the file is on disk and in git
    ex.feed(3, tool_result_record("r2", "deploy host: 10.0.0.7"))
    assert [(m.kind, m.body) for m in ex.drain()] == [("output", "deploy host: 10.0.0.7")]


ONE_PASSWORD = "ops_eyJ" + "ab12Cd34Ef56Gh78Ij90KlMnOpQrStUvWxYz" * 17  # a long token, 619 chars


def stored_with_redaction(records: list[dict[str, Any]]) -> list[str]:
    """Each moment's title and body as the index stores them (`extract._row`: redacted, a
    body cut from a redacted text as it is)."""
    red = redact.Redactor()
    ex = moments.TranscriptMoments("s1", None, red)
    for line, record in enumerate(records, start=1):
        ex.feed(line, record)
    ex.finish()
    return [
        red.redact(m.title) + "\n" + (m.body if m.redacted else red.redact(m.body))
        for m in ex.drain()
    ]


@pytest.mark.parametrize("size", [610, 700, 790])  # past the command cap (600), under 800
def test_a_command_output_cut_to_its_telling_lines_is_redacted_before_the_cut(size: int) -> None:
    """A successful command's output between the command moment's cap (600) and the output
    cap (800) is cut (`facts.telling` clips its lines at 240): it must be redacted before,
    or a long secret's cut part survives the redaction after (found by the writers' property
    test, a 1Password service account token in a commit's subject)."""
    line = f'[main 0000001] "sourceContent": "{ONE_PASSWORD}\\n",'
    assert "REDACTED" in redact.Redactor().redact(line)  # the rule finds the whole token
    out = (line + "\n 1 file changed" + " " * size)[:size]
    stored = stored_with_redaction(
        [
            tool_use_record("t1", "Bash", {"command": "git commit -am 'step 0'"}),
            tool_result_record("t1", out),
        ]
    )
    assert stored
    assert not any(surviving(text, windows(ONE_PASSWORD)) for text in stored)


@pytest.mark.parametrize("size", [610, 790])
def test_a_record_text_cut_to_600_is_redacted_before_the_cut(size: int) -> None:
    """The same for a record's text `facts` cuts to 600 (an API error): redacted before."""
    text = (f'request failed: "sourceContent": "{ONE_PASSWORD}\\n",' + " x" * size)[:size]
    record = {
        "type": "system",
        "subtype": "api_error",
        "content": text,
        "sessionId": "s1",
        "timestamp": "2026-03-01T10:00:00Z",
    }
    stored = stored_with_redaction([record])
    assert stored
    assert not any(surviving(text, windows(ONE_PASSWORD)) for text in stored)
