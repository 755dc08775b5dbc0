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


def test_a_fresh_project_gets_no_capsule(git_project: Path) -> None:
    """No handoff (#42), no decision, no lint finding: nothing is added to the model's context,
    not even a header (#43); the heartbeat says SessionStart ran."""
    payload = make_payload("SessionStart", git_project, source="startup")
    assert run_hook("SessionStart", payload, cwd=git_project)[:3] == (0, None, "")
    assert (git_project / ".ccstate" / "heartbeat" / "SessionStart.json").exists()


def test_capsule_golden(git_project: Path) -> None:
    (git_project / "DECISIONS.md").write_text(
        "# Decisions\n\n## D1: Use spaces\n\n- Status: active\n\n**Decision:** Four.\n"
    )
    assert capsule(git_project) == (
        "[ccstate] project state for project\n"
        "- decisions (DECISIONS.md), newest first; cite as `D1 (DECISIONS.md)` instead of "
        "restating; `ccstate decide` records one:\n"
        "  - D1: Use spaces"
    )


def test_capsule_is_byte_identical_for_identical_state(git_project: Path) -> None:
    (git_project / "DECISIONS.md").write_text("# Decisions\n\n## D1: Use spaces\n")
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


def test_a_bare_python3_reads_plain_settings_without_yaml(
    git_project: Path, bare_python: Path
) -> None:
    """The plugin's hooks before its venv exists run on a python3 without PyYAML: a team's
    settings in plain `key: value` lines still hold; YAML beyond them falls back to the
    defaults, with the reason in the hooks' log."""
    bare = [str(bare_python), "-m", "ccstate.hooks", "SessionStart"]
    (git_project / "DECISIONS.md").write_text("# Decisions\n\n## D1: Use spaces\n")  # a capsule
    payload = make_payload("SessionStart", git_project, source="startup")
    config = git_project / ".ccstate.yaml"
    config.write_text("# team settings\ncapsule:\n  enabled: off   # not here\n")
    assert run_hook("SessionStart", payload, cwd=git_project, argv=bare)[:3] == (0, None, "")
    config.write_text("capsule: {enabled: false}\n")  # flow style: PyYAML only
    code, out, _, _ = run_hook("SessionStart", payload, cwd=git_project, argv=bare)
    assert code == 0 and "additionalContext" in out["hookSpecificOutput"]  # the defaults
    log = (git_project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert "uses YAML beyond plain `key: value` lines, which needs PyYAML" in log


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


RESUME = {
    "source": "resume",
    "seconds_since_last_response": 2820,
    "context_tokens": 217_000,
    "prompt_cache_likely_expired": True,
    "estimated_cache_write_usd": 1.085,
}


def _resumed_transcript(project: Path) -> Path:
    import json

    path = project / "transcript.jsonl"
    usage = {"input_tokens": 4, "cache_creation_input_tokens": 15_000, "cache_read_input_tokens": 0}
    record = {
        "type": "assistant",
        "timestamp": "2026-12-01T10:00:00.000Z",
        "message": {"model": "claude-opus-5-5", "usage": usage},
    }
    path.write_text(json.dumps(record) + "\n")
    return path


def test_resume_on_an_expired_cache_warns_the_user_and_not_the_model(git_project: Path) -> None:
    _resumed_transcript(git_project)
    (git_project / "DECISIONS.md").write_text("# Decisions\n\n## D1: Use spaces\n")
    payload = make_payload("SessionStart", git_project, **RESUME)
    code, parsed, _, err = run_hook("SessionStart", payload, cwd=git_project)
    assert (code, err) == (0, "")
    message = parsed["systemMessage"]
    assert message.startswith("ccstate: resumed after 47m idle, past the 5m prompt-cache TTL")
    assert "re-writes ~217k tokens ≈ $1.08" in message and "/compact first" in message
    warned = parsed["hookSpecificOutput"]["additionalContext"]
    assert "resumed after" not in warned and "$" not in warned
    # the model's capsule is byte-identical to the one without the warning
    (git_project / ".ccstate.yaml").write_text("moments:\n  resume:\n    enabled: false\n")
    quiet = run_hook("SessionStart", payload, cwd=git_project)[1]
    assert "systemMessage" not in quiet
    assert quiet["hookSpecificOutput"]["additionalContext"] == warned


def test_resume_stays_quiet_when_warm_cheap_or_a_plain_start(git_project: Path) -> None:
    _resumed_transcript(git_project)
    for fields in (
        {**RESUME, "prompt_cache_likely_expired": False},
        {**RESUME, "context_tokens": 3_000},
        {**RESUME, "source": "startup"},
    ):
        parsed = run_hook(
            "SessionStart", make_payload("SessionStart", git_project, **fields), cwd=git_project
        )[1]
        assert "systemMessage" not in (parsed or {}), fields
    fork = run_hook(
        "SessionStart",
        make_payload("SessionStart", git_project, **{**RESUME, "source": "fork"}),
        cwd=git_project,
    )[1]
    assert "resumed after 47m idle" in fork["systemMessage"]


def test_the_resume_warning_reaches_the_user_when_there_is_no_capsule(git_project: Path) -> None:
    _resumed_transcript(git_project)
    payload = make_payload("SessionStart", git_project, **RESUME)
    code, parsed, _, err = run_hook("SessionStart", payload, cwd=git_project)
    assert (code, err) == (0, "")
    assert parsed["systemMessage"].startswith("ccstate: resumed after 47m idle")
    assert "additionalContext" not in parsed.get("hookSpecificOutput", {})
