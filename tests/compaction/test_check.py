"""The summary check (#26): what counts as kept, and the one reminder line."""

from __future__ import annotations

import pytest

from ccstate.compaction import check

ITEMS = [
    ("decision", "D7", "D7 Use tabs"),
    ("decision", "D12", "D12 Use SQLite"),
    ("handoff", ".ccstate/handoff/branches/main/s1.md", ".ccstate/handoff/branches/main/s1.md"),
    ("file", "src/app.py", "src/app.py"),
    ("failing", "pytest -q tests/test_app.py", "`pytest -q tests/test_app.py`"),
    ("error", "src/db.py", "Edit `src/db.py`: not found"),
    ("todo", "", "write the parser"),
    ("next", "", "finish W53"),
]


def test_only_the_summary_block_counts() -> None:
    raw = "<analysis>D7 D12 src/app.py</analysis>\n<summary>We keep D12 (DECISIONS.md).</summary>"
    kept, lost = check.check(ITEMS, raw)
    assert [i[1] for i in kept] == ["D12"]
    assert [i[1] for i in lost] == [
        "D7",
        ".ccstate/handoff/branches/main/s1.md",
        "src/app.py",
        "pytest -q tests/test_app.py",
        "src/db.py",
    ]  # todos and next steps are asked for, not checked


@pytest.mark.parametrize(
    ("kind", "key", "summary", "kept"),
    [
        ("decision", "D7", "per D7, tabs", True),
        ("decision", "D7", "(D7)", True),
        ("decision", "D7", "D70 and XD7 and D7x", False),
        ("decision", "D7", "d7", False),
        ("file", "src/app.py", "edited src/app.py.", True),
        ("file", "src/app.py", "edited `app.py`", True),
        ("file", "src/app.py", "see /home/me/proj/src/app.py", True),
        ("file", "src/app.py", "myapp.py and app.pyc and app.py_old", False),
        ("failing", "pytest -q tests/a.py", "ran  pytest -q\n tests/a.py: failed", True),
        ("failing", "pytest -q tests/a.py", "pytest failed", False),
        ("error", "npm run build", "`npm run build` broke", True),
    ],
)
def test_what_counts_as_kept(kind: str, key: str, summary: str, kept: bool) -> None:
    assert check.is_kept(kind, key, summary) is kept


def test_a_reply_without_tags_is_checked_whole_and_an_open_tag_to_its_end() -> None:
    assert check.summary_part("plain D7") == "plain D7"
    assert check.summary_part("<analysis>x</analysis><summary>cut D7") == "cut D7"
    assert check.summary_part("<summary>a</summary> <summary>b</summary>") == "b"


def test_the_reminder_is_one_bounded_line() -> None:
    lost = [i for i in ITEMS if i[0] in ("decision", "file", "failing")]
    line = check.reminder(lost, ".ccstate/handoff/branches/main/s1.md")
    assert line == (
        "[ccstate] The compaction summary left these out; they still hold: D7 Use tabs; "
        "D12 Use SQLite; src/app.py (edited, not committed); `pytest -q tests/test_app.py` "
        "(failing). All of it: .ccstate/handoff/branches/main/s1.md"
    )
    many = [("decision", f"D{n}", f"D{n} " + "t" * 60) for n in range(40)]
    long_line = check.reminder(many, "h.md")
    assert "\n" not in long_line and len(long_line) <= check.REMINDER_MAX
    assert "more. All of it: h.md" in long_line
