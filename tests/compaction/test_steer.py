"""The block PreCompact prints (#26): what it lists, in which order, within its budget."""

from __future__ import annotations

from ccstate.compaction import steer

FACTS = {
    "git": True,
    "edited": ["src/app.py", "tests/test_app.py"],
    "failing": ["pytest -q tests/test_app.py"],
    "errors": [
        ["Bash", "pytest -q tests/test_app.py", "1 failed"],  # listed once, as failing
        ["Edit", "src/db.py", "String to replace not found in file."],
    ],
    "todos": [["in_progress", "write the parser"], ["pending", "update the docs"]],
    "next": ["finish W53, then ordinal dates"],
}
DECISIONS = [(12, "Use SQLite for the recall index"), (9, "Digest bulky outputs")]
HANDOFF = ".ccstate/handoff/branches/main/s1.md"


def test_the_block_lists_every_kind_in_priority_order() -> None:
    items = steer.items_from(FACTS, DECISIONS, HANDOFF)
    text, listed = steer.build(items, 2000)
    assert text == (
        f"{steer.INTRO}\n"
        "- Active decisions (DECISIONS.md): D12 Use SQLite for the recall index; "
        "D9 Digest bulky outputs\n"
        f"- Handoff file: {HANDOFF}\n"
        "- Edited, not committed: src/app.py; tests/test_app.py\n"
        "- Failing checks: `pytest -q tests/test_app.py`\n"
        "- Unresolved errors: Edit `src/db.py`: String to replace not found in file.\n"
        "- Next steps (the agent's own): finish W53, then ordinal dates\n"
        "- Open todos: write the parser (in progress); update the docs"
    )
    assert [i[1] for i in listed if i[0] in steer.CHECKED] == [
        "D12",
        "D9",
        HANDOFF,
        "src/app.py",
        "tests/test_app.py",
        "pytest -q tests/test_app.py",
        "src/db.py",
    ]
    assert steer.build(items, 2000) == (text, listed)  # identical facts, identical bytes


def test_the_budget_cuts_todos_first_and_never_the_handoff_path() -> None:
    items = steer.items_from(FACTS, DECISIONS, HANDOFF)
    full, _ = steer.build(items, 2000)
    text, listed = steer.build(items, steer.estimate_tokens(full) - 5)
    assert text.splitlines()[:-1] == full.splitlines()[:-1]  # everything but the todos kept
    assert text.splitlines()[-1] == "- Open todos: +2 more in the handoff file"
    assert steer.estimate_tokens(text) <= steer.estimate_tokens(full) - 5
    assert [i for i in listed if i[0] == "todo"] == []
    tight, kept = steer.build(items, 50)
    assert HANDOFF in tight and "D12" in tight
    assert {i[0] for i in kept} == {"decision", "handoff"}
    assert steer.estimate_tokens(tight) > 50  # the floor: intro, one decision ID, the path
    assert "Use SQLite" not in tight  # titles go before IDs do


def test_nothing_to_keep_but_the_handoff_path_prints_nothing() -> None:
    assert steer.build(steer.items_from({}, [], HANDOFF), 300) == ("", [])
    assert steer.build([], 300) == ("", [])


def test_long_titles_and_commands_are_cut_for_display_not_as_keys() -> None:
    command = "pytest " + "tests/test_x.py::test_" + "a" * 200
    items = steer.items_from({"failing": [command]}, [(1, "T" * 100)], "")
    by_kind = {i[0]: i for i in items}
    assert by_kind["failing"][1] == command  # the key the check looks for
    assert len(by_kind["failing"][2]) <= 122 and by_kind["failing"][2].endswith("…`")
    assert by_kind["decision"][2] == "D1 " + "T" * 59 + "…"
