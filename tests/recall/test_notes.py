"""recall.notes: DECISIONS.md entries, handoff sections and progress entries as moments."""

from __future__ import annotations

from ccstate.decisions import log as decisions_log
from ccstate.recall import notes


def test_decisions_become_moments_with_their_file_line() -> None:
    log = decisions_log.parse_log(
        "# Decisions\n\n## D1: Use SQLite\n\n- Status: active\n- Date: 2026-03-01\n\n"
        "**Context:** One file.\n\n**Decision:** FTS5 for search.\n"
    )
    (d,) = notes.decision_moments(log)
    assert (d.kind, d.line, d.title, d.ts) == ("decision", 3, "D1: Use SQLite", "2026-03-01")
    assert "decision: FTS5 for search." in d.body and "status: active" in d.body


def test_handoff_sections_and_progress_entries() -> None:
    md = (
        "# Handoff: proj · `main` · session 5e55104e\n\n"
        "Written by ccstate (SessionEnd) on 2026-03-02 10:00:00 UTC, from transcript `x.jsonl`.\n\n"
        "## Next steps (from the agent)\n- none written yet: the agent adds them\n\n"
        '## Goal\n- prompt: "add a retry" [L1]\n'
    )
    (goal,) = notes.handoff_moments(md, "5e55104e-full")
    assert (goal.title, goal.line, goal.branch, goal.ts) == (
        "handoff: Goal",
        8,
        "main",
        "2026-03-02T10:00:00Z",
    )
    head = "## 2026-03-02T10:00:00Z · SessionEnd · session 5e55104e · main @ 1a2b3c4"
    log = f"# log\n\n{head}\n- goal: x\n"
    (entry,) = notes.progress_moments(log)
    assert (entry.session, entry.branch, entry.line, entry.body) == (
        "5e55104e",
        "main",
        3,
        "- goal: x",
    )
