from __future__ import annotations

import json
from pathlib import Path

from ccstate import wiring

REPO = Path(__file__).resolve().parents[1]
PY = "/opt/py/bin/python"


def test_plugin_hooks_json_is_rendered_from_the_table() -> None:
    on_disk = json.loads((REPO / "hooks" / "hooks.json").read_text())
    assert on_disk == wiring.plugin_hooks()


def test_session_end_timeout_is_raised_above_the_default_budget() -> None:
    timeouts = {event: timeout for event, _m, timeout in wiring.HOOK_SPECS}
    assert 1.5 < timeouts["SessionEnd"] <= 60


def test_merge_keeps_every_other_key_and_hook() -> None:
    user_hook = {"type": "command", "command": "echo mine"}
    settings = {
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PostToolUse": [{"matcher": "Write", "hooks": [user_hook]}],
            "Stop": [{"hooks": [user_hook]}],
        },
    }
    merged = wiring.merge_settings(settings, PY)
    assert merged["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert merged["hooks"]["Stop"] == [{"hooks": [user_hook]}]
    assert merged["hooks"]["PostToolUse"][0] == {"matcher": "Write", "hooks": [user_hook]}
    ours = merged["hooks"]["PostToolUse"][1]["hooks"][0]
    assert ours["command"] == "/opt/py/bin/python -m ccstate.hooks PostToolUse"
    assert wiring.wired_events(merged) == {e for e, _m, _t in wiring.HOOK_SPECS}
    assert settings["hooks"]["PostToolUse"] == [{"matcher": "Write", "hooks": [user_hook]}]


def test_merge_is_idempotent_and_replaces_an_old_interpreter() -> None:
    once = wiring.merge_settings({}, PY)
    assert wiring.merge_settings(once, PY) == once
    moved = wiring.merge_settings(once, "/new/python")
    commands = [g["hooks"][0]["command"] for groups in moved["hooks"].values() for g in groups]
    assert all(c.startswith("/new/python -m ccstate.hooks") for c in commands)
    assert len(commands) == len(wiring.HOOK_SPECS)


def test_the_console_script_beside_the_interpreter_is_preferred(tmp_path: Path) -> None:
    python = tmp_path / "venv bin" / "python"
    python.parent.mkdir()
    python.touch()
    assert wiring.project_command(str(python), "PostToolUse") == (
        f"'{python}' -m ccstate.hooks PostToolUse"
    )
    (python.parent / "ccstate-hook").touch()
    assert wiring.project_command(str(python), "PostToolUse") == (
        f"'{python.parent / 'ccstate-hook'}' PostToolUse"
    )


def test_interpreter_paths_with_spaces_are_quoted() -> None:
    assert wiring.project_command("/a b/python", "PreCompact") == (
        "'/a b/python' -m ccstate.hooks PreCompact"
    )


def test_remove_ours_keeps_the_rest_and_drops_empty_events() -> None:
    user = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
    settings = wiring.merge_settings({"hooks": {"PreToolUse": [user]}, "model": "x"}, PY)
    assert wiring.remove_ours(settings) == {"hooks": {"PreToolUse": [user]}, "model": "x"}
    assert wiring.remove_ours(wiring.merge_settings({}, PY)) == {}


def test_plugin_enabled_is_read_from_user_and_project_settings(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "p"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    env = {"HOME": str(home)}
    assert wiring.plugin_enabled(project, env) is None
    user = home / ".claude" / "settings.json"
    user.write_text(json.dumps({"enabledPlugins": {"ccstate@ccstate-marketplace": False}}))
    assert wiring.plugin_enabled(project, env) is None
    user.write_text(json.dumps({"enabledPlugins": {"ccstate@ccstate-marketplace": True}}))
    assert wiring.plugin_enabled(project, env) == str(user)
    user.unlink()
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"enabledPlugins": {"ccstate@x": True, "other@x": True}}))
    assert wiring.plugin_enabled(project, env) == str(local)
