"""PreModelSwitch run as Claude Code runs it: the warning, once per `/model`, never a denial."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from helpers import make_payload, run_hook


def payload(project: Path, **extra: object) -> dict:
    fields = {
        "prompt_id": "p-1",
        "from_model": "claude-opus-5-5",
        "to_model": "claude-sonnet-5-5",
        "requested_model": "sonnet",
        "source": "command",
        "context_tokens": 217_000,
        "prompt_cache_warm": True,
        "cache_ttl": "5m",
        "estimated_cache_write_usd": 0.5425,
        "pricing": "catalog",
    }
    fields.update(extra)
    return make_payload("PreModelSwitch", project, **fields)


def test_warns_once_per_prompt(git_project: Path) -> None:
    code, parsed, _raw, err = run_hook("PreModelSwitch", payload(git_project), cwd=git_project)
    assert (code, err) == (0, "")
    assert set(parsed) == {"systemMessage"}  # no decision: Claude Code's own confirm stays
    assert "re-writes ~217k tokens ≈ $0.54" in parsed["systemMessage"]
    # the same /model's second call (plan mode's model): silent
    plan = payload(git_project, to_model="claude-opus-5")
    assert run_hook("PreModelSwitch", plan, cwd=git_project)[:3] == (0, None, "")
    # the next /model speaks again
    again = run_hook("PreModelSwitch", payload(git_project, prompt_id="p-2"), cwd=git_project)
    assert again[1] is not None and "systemMessage" in again[1]
    marker = git_project / ".ccstate" / "moments" / "switch.json"
    assert stat.S_IMODE(marker.stat().st_mode) == 0o600
    assert stat.S_IMODE(marker.parent.stat().st_mode) == 0o700


def test_ask_is_a_setting_and_shows_the_text_in_the_dialog(git_project: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("moments:\n  switch:\n    ask: true\n")
    _code, parsed, _, _ = run_hook("PreModelSwitch", payload(git_project), cwd=git_project)
    specific = parsed["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreModelSwitch"
    assert specific["permissionDecision"] == "ask"
    assert "re-writes ~217k tokens" in specific["permissionDecisionReason"]
    assert "systemMessage" not in parsed


@pytest.mark.parametrize(
    "change",
    [{"prompt_cache_warm": False}, {"context_tokens": 5_000}, {"to_model": "claude-opus-5-5"}],
    ids=["cold", "small", "same model"],
)
def test_silent_when_there_is_nothing_to_lose(change: dict, git_project: Path) -> None:
    assert run_hook("PreModelSwitch", payload(git_project, **change), cwd=git_project)[:3] == (
        0,
        None,
        "",
    )


def test_switches_in_the_config(git_project: Path) -> None:
    config = git_project / ".ccstate.yaml"
    config.write_text("moments:\n  switch:\n    enabled: false\n")
    assert run_hook("PreModelSwitch", payload(git_project), cwd=git_project)[1] is None
    config.write_text("moments:\n  switch:\n    min_tokens: 500000\n")
    assert (
        run_hook("PreModelSwitch", payload(git_project, prompt_id="p-3"), cwd=git_project)[1]
        is None
    )


def test_never_a_denial_whatever_the_payload(git_project: Path) -> None:
    for body in ("", "garbage", "[]", json.dumps({"session_id": "s", "cwd": str(git_project)})):
        code, _parsed, raw, err = run_hook("PreModelSwitch", body, cwd=git_project)
        assert (code, err) == (0, "") and "deny" not in raw


def test_ask_never_turns_into_a_refusal_where_nobody_can_answer(git_project: Path) -> None:
    """Claude Code refuses an `ask` in a headless session: there it stays a message."""
    from helpers import hook_env

    (git_project / ".ccstate.yaml").write_text("moments:\n  switch:\n    ask: true\n")
    headless = hook_env(CLAUDE_CODE_ENTRYPOINT="sdk-cli")
    parsed = run_hook("PreModelSwitch", payload(git_project), cwd=git_project, env=headless)[1]
    assert set(parsed) == {"systemMessage"}
    sdk = payload(git_project, source="sdk", prompt_id="p-9")
    assert set(run_hook("PreModelSwitch", sdk, cwd=git_project)[1]) == {"systemMessage"}
