"""recall.facts: the telling lines of an output, and moments of attachment and system records."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ccstate.recall import facts


def test_a_short_output_is_kept_whole_without_reads_line_numbers() -> None:
    assert (
        facts.telling("     1→# Device\n     2→\n     3→ip: 10.0.0.7\n") == "# Device\nip: 10.0.0.7"
    )
    assert facts.telling("1\tname: box\n2\tname: box\n") == "name: box"  # each line once


def test_a_long_output_keeps_its_head_then_the_lines_with_figures_urls_and_settings() -> None:
    words = [f"just words {'x' * 30} {c}" for c in "abcdefghijklmnopqrstuvwxyz"]
    facts_lines = [
        "vite v5.4.2 building for production",
        "dist/assets/index.js  143.20 kB",
        "see https://example.com/build",
    ]
    text = "\n".join([*words[:10], facts_lines[0], *words[10:], *facts_lines[1:]])
    got = facts.telling(text, cap=600).splitlines()
    assert got[: facts.HEAD_LINES] == words[: facts.HEAD_LINES]
    assert got[facts.HEAD_LINES :] == facts_lines  # the plain lines past the head are dropped


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=300), max_size=60), st.integers(min_value=50, max_value=2000))
def test_telling_stays_within_its_cap_and_invents_no_line(lines: list[str], cap: int) -> None:
    text = "\n".join(lines)
    got = facts.telling(text, cap)
    whole = facts.telling(text, 10**9)
    assert len(got) <= cap or got == whole
    source = {ln.strip() for ln in whole.splitlines()}
    for line in got.splitlines():
        assert line in source or (
            line.endswith("…") and any(s.startswith(line[:-1]) for s in source)
        )


def test_the_subject_of_a_call() -> None:
    assert facts.subject("Read", {"file_path": "/p/a.md"}) == "/p/a.md"
    assert facts.subject("WebFetch", {"url": "https://x.dev", "prompt": "p"}) == "https://x.dev"
    asked = {"questions": [{"question": "Public?"}, {"question": "Name?"}]}
    assert facts.subject("AskUserQuestion", asked) == "Public? / Name?"
    assert facts.subject("mcp__x__y", {"n": 1}) == ""


def test_records_that_hold_nothing_to_ask_about_are_no_moments() -> None:
    assert facts.record_moment({"type": "system", "subtype": "stop_hook_summary"}) is None
    assert (
        facts.record_moment({"type": "attachment", "attachment": {"type": "skill_listing"}}) is None
    )
    assert facts.record_moment({"type": "user"}) is None


def test_a_failing_hook_and_a_task_notification() -> None:
    hook = {
        "type": "attachment",
        "attachment": {
            "type": "hook_non_blocking_error",
            "hookName": "SessionStart:startup",
            "stderr": "/bin/sh: /home/u/.claude/hooks/heal.mjs: No such file or directory",
        },
    }
    assert facts.record_moment(hook) == (
        "error",
        "hook SessionStart:startup",
        "/bin/sh: /home/u/.claude/hooks/heal.mjs: No such file or directory",
    )
    note = {
        "type": "attachment",
        "attachment": {"type": "queued_command", "prompt": "<task-notification>done: 3 files"},
    }
    assert facts.record_moment(note) == (
        "output",
        "task notification",
        "<task-notification>done: 3 files",
    )


def test_prep_sees_every_text_before_it_is_cut() -> None:
    seen: list[str] = []

    def prep(text: str) -> str:
        seen.append(text)
        return text.replace("hunter2", "[REDACTED]")

    record = {
        "type": "system",
        "subtype": "local_command",
        "content": "<local-command-stdout>pw hunter2</local-command-stdout>",
    }
    assert facts.record_moment(record, prep) == ("command", "local command", "pw [REDACTED]")
    assert seen and "hunter2" in seen[0]


def test_source_files_are_told_by_their_extension() -> None:
    assert facts.is_code("/p/src/App.TSX") and facts.is_code("lib/x.ex")
    assert not facts.is_code("/p/README.md") and not facts.is_code("/p/Makefile")
    assert not facts.is_code("/p/config.yaml") and not facts.is_code(None)
