"""The capsule's lines about a handoff and what the file adds beyond them (#42)."""

from __future__ import annotations

from ccstate.handoff.doc import Item
from ccstate.handoff.gist import adds, make_gist


def test_a_handoff_of_checks_and_prompts_adds_nothing() -> None:
    sections = {
        "goal": (Item('prompt: "run the checks"', "L1", "run the checks"),),
        "checks": (
            Item(
                "`black`: not installed (ran `python3 -m black --check .`)",
                "L4",
                "`black`: not installed",
            ),
            Item("`pytest`: 3 passed (ran `python3 -m pytest -q`)", "L6", "`pytest`: 3 passed"),
        ),
        "state": (Item("branch `main` at `abc1234`", "git abc1234"),),
        "decisions": (Item("cited: D3 (DECISIONS.md)", "L2"),),
    }
    assert make_gist(sections) == (
        ("goal", "run the checks"),
        ("checks", "`black`: not installed; `pytest`: 3 passed"),
    )
    assert adds(sections) == ()


def test_what_the_file_adds_is_counted() -> None:
    files = tuple(Item(f"edited `f{n}.py`", "L1", f"file:f{n}.py") for n in range(5))
    checks = tuple(Item("x", f"L{n}", f"`t{n}`: FAILED (exit 1)") for n in range(4))
    sections = {
        "next": (Item("step one", "note 1", "step one"), Item("two", "note 2", "two")),
        "goal": (Item("Claude Code's recap: did things", "L9", "did things"),),
        "changed": files,
        "checks": checks,
        "todos": (Item("[pending] a", "L3"),),
        "errors": (Item("Bash `x`: boom", "L4"), Item("Edit `y`: no", "L5")),
        "compactions": (Item("manual: kept 3 of 4", "compaction 1"),),
    }
    assert adds(sections) == (
        "2 next steps",
        "4 failing checks",
        "1 open todo",
        "2 unresolved errors",
        "Claude Code's recap",
        "1 compaction record",
    )
    one_long_note = {"next": (Item("a long step " * 30, "note 1", "a long step…"),)}
    assert adds(one_long_note) == ("1 next step",)
