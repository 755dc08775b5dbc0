from __future__ import annotations

import os
from pathlib import Path

from helpers import make_payload, run_hook


def capsule(project: Path, source: str = "startup") -> str:
    payload = make_payload("SessionStart", project, source=source)
    code, parsed, _, err = run_hook("SessionStart", payload, cwd=project)
    assert (code, err) == (0, "")
    assert parsed["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    return parsed["hookSpecificOutput"]["additionalContext"]


def test_capsule_golden(git_project: Path) -> None:
    assert capsule(git_project) == (
        "[ccstate] project state for project\n"
        "- handoff: none yet (written to .ccstate/ at compaction, and at session end unless "
        "the session only read and talked)\n"
        "- decisions: none recorded yet"
    )


def test_capsule_is_byte_identical_for_identical_state(git_project: Path) -> None:
    assert capsule(git_project) == capsule(git_project) == capsule(git_project, "compact")


def test_capsule_indexes_active_decisions(git_project: Path) -> None:
    (git_project / "DECISIONS.md").write_text(
        "# Decisions\n\n## D1: Use tabs\n\n- Status: superseded by D2\n\n"
        "## D2: Use spaces\n\n- Status: active\n\n**Decision:** Four spaces.\n"
    )
    text = capsule(git_project)
    assert "\n  - D2: Use spaces" in text  # one line per active decision: ID + title
    assert "D1" not in text and "Four spaces" not in text  # never superseded ones, never bodies


def test_capsule_can_be_switched_off(git_project: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("capsule:\n  enabled: false\n")
    payload = make_payload("SessionStart", git_project, source="startup")
    assert run_hook("SessionStart", payload, cwd=git_project)[:3] == (0, None, "")


def test_subdirectory_cwd_resolves_to_the_project_root(git_project: Path) -> None:
    sub = git_project / "pkg"
    sub.mkdir()
    payload = make_payload("SessionStart", git_project, source="startup")
    payload["cwd"] = str(sub)
    assert run_hook("SessionStart", payload, cwd=sub)[0] == 0
    assert (git_project / ".ccstate" / "heartbeat" / "SessionStart.json").exists()
    assert not (sub / ".ccstate").exists()


def test_startup_prunes_the_digests_originals_to_their_cap(git_project: Path) -> None:
    out = git_project / ".ccstate" / "out"
    out.mkdir(parents=True)
    (git_project / ".ccstate.yaml").write_text("outputs:\n  store_max_mb: 1\n")
    for n in range(3):
        (out / f"{n:016x}.txt").write_bytes(bytes([n]) * 600_000)
        os.utime(out / f"{n:016x}.txt", (1_000_000 + n, 1_000_000 + n))
    resume = make_payload("SessionStart", git_project, source="resume")
    assert run_hook("SessionStart", resume, cwd=git_project)[0] == 0
    assert len(list(out.iterdir())) == 3  # only startup and /clear prune
    start = make_payload("SessionStart", git_project, source="startup")
    assert run_hook("SessionStart", start, cwd=git_project)[0] == 0
    assert sorted(p.name for p in out.iterdir()) == [f"{2:016x}.txt"]  # the newest fits
