"""recall.hits: a hit's JSON, its confidence's reason, its REF."""

from __future__ import annotations

from ccstate.recall import hits


def make(**changes: object) -> hits.Hit:
    hit = hits.Hit(
        id=1,
        kind="edit",
        session="3f2a9c1e-0000-4000-8000-000000000017",
        agent="",
        path="/h/.claude/projects/-p/3f2a9c1e-0000-4000-8000-000000000017.jsonl",
        line=812,
        end_line=813,
        ts="2026-03-01T10:00:00Z",
        branch="main",
        title="src/dates.py",
        body="def parse_date(s, week=False):",
        score=0.8,
        matched=("parse_date", "week", "dates", "iso", "parser"),
        confidence="strong",
    )
    return hit.but(**changes)


def test_json_says_how_sure_and_why() -> None:
    data = make().to_json()
    assert (data["ref"], data["confidence"]) == ("3f2a9c1e:812", "strong")
    assert data["reason"] == "matches parse_date, week, dates, iso, … (80% of the question)"
    assert data["matched"] == ["parse_date", "week", "dates", "iso", "parser"]
    assert hits.reason(make(matched=(), score=0.0)) == "matches no word of it (0% of the question)"


def test_a_neighbour_shown_around_a_hit_has_no_confidence() -> None:
    data = make().to_json(ranked=False)
    assert "confidence" not in data and "reason" not in data and data["line"] == 812


def test_refs_name_sessions_subagents_handoffs_and_decisions() -> None:
    assert hits.ref(make(path="/x/agent-a12.jsonl", line=40)) == "agent-a12:40"
    assert hits.ref(make(kind="handoff", path="/s/3f2a9c1e-aaaa.md", line=9)) == "3f2a9c1e.md:9"
    assert hits.ref(make(kind="decision", path="/p/DECISIONS.md", line=14)) == "DECISIONS.md:14"
