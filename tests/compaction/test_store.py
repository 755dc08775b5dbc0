"""Per-session compaction records (#26): asked once however often PreCompact fires,
numbered per session, described for the handoff."""

from __future__ import annotations

import json
from pathlib import Path

from ccstate.compaction import store

ITEMS = [["decision", "D1", "D1 Tabs"], ["file", "app.py", "app.py"]]


def _ask(state: str, items: list[list[str]] = ITEMS) -> bool:
    return store.ask(
        state, "s1", trigger="auto", items=items, handoff="h.md", custom=False, now=100.0
    )


def test_a_repeated_precompact_marks_the_same_record(tmp_path: Path) -> None:
    state = str(tmp_path / ".ccstate")
    assert _ask(state) is True
    assert _ask(state) is False  # the same block again: one more fire, nothing new
    record = store.read(state, "s1")
    assert record["asked"]["fires"] == 2 and record["asked"]["items"] == ITEMS
    path = Path(store.record_path(state, "s1"))
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700


def test_settle_uses_the_asked_record_once_and_numbers_each_compaction(tmp_path: Path) -> None:
    state = str(tmp_path / ".ccstate")
    _ask(state)
    store.note_capsule(state, "s1", "capsule text with D1")
    seen: list[tuple[object, str]] = []

    def decide(asked: dict | None, capsule: str) -> dict:
        seen.append((asked and asked["items"], capsule))
        return {"trigger": "auto", "asked": 2, "kept": ["D1"], "lost": ["app.py"]}

    first = store.settle(state, "s1", decide)
    second = store.settle(state, "s1", decide)  # no PreCompact in between
    assert (first["n"], second["n"]) == (1, 2)
    assert seen == [(ITEMS, "capsule text with D1"), (None, "")]
    store.update(state, "s1", 1, reminder="delivered", reminded="PostToolUse")
    entries = store.handoff_entries(state, "s1")
    assert entries[0] == (
        "auto compaction 1: the summary kept 1 of 2; lost app.py (reminded at PostToolUse)",
        "compaction 1",
    )
    assert store.all_records(state)["s1"]["compactions"][1]["n"] == 2


def test_a_corrupt_record_is_set_aside_and_restarted(tmp_path: Path) -> None:
    state = str(tmp_path / ".ccstate")
    path = Path(store.record_path(state, "s1"))
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert store.read(state, "s1")["compactions"] == []
    _ask(state)
    assert json.loads(path.read_text())["asked"]["items"] == ITEMS
    assert list(path.parent.glob("s1.json.corrupt-*"))


def test_unchecked_compactions_say_why() -> None:
    entry = {"n": 3, "trigger": "manual", "note": "no PreCompact record before it"}
    assert store.describe(entry) == (
        "manual compaction 3: not checked (no PreCompact record before it)"
    )
