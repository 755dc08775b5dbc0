from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from ccstate.install import wiring
from helpers import REPO


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
            "Notification": [{"hooks": [user_hook]}],
        },
    }
    merged = wiring.merge_settings(settings)
    assert merged["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert merged["hooks"]["Notification"] == [{"hooks": [user_hook]}]
    assert merged["hooks"]["Stop"][0] == {"hooks": [user_hook]}  # theirs first, then ours
    assert merged["hooks"]["Stop"][1]["hooks"][0] == {
        "type": "command",
        "command": wiring.project_command("Stop"),
        "timeout": 30,
        "async": True,  # in the background: a turn never ends later for it
    }
    assert merged["hooks"]["PostToolUse"][0] == {"matcher": "Write", "hooks": [user_hook]}
    ours = merged["hooks"]["PostToolUse"][1]["hooks"][0]
    assert ours["command"] == wiring.project_command("PostToolUse")
    assert wiring.wired_events(merged) == {e for e, _m, _t in wiring.HOOK_SPECS}
    assert settings["hooks"]["PostToolUse"] == [{"matcher": "Write", "hooks": [user_hook]}]


def test_project_commands_hold_no_machine_path() -> None:
    assert wiring.project_command("PostToolUse") == (
        "command -v ccstate-hook >/dev/null 2>&1 && exec ccstate-hook PostToolUse; exit 0"
    )
    start = wiring.project_command("SessionStart")
    assert start.startswith(
        "command -v ccstate-hook >/dev/null 2>&1 && exec ccstate-hook SessionStart; printf "
    )
    for event, _m, _t in wiring.HOOK_SPECS:
        absolute = re.findall(r"(?:^|[\s'\"(>])(/[\w./-]+)", wiring.project_command(event))
        assert absolute == ["/dev/null"], event


def _sh(command: str, path: str) -> subprocess.CompletedProcess[str]:
    """Run a hook command as Claude Code does: /bin/sh -c, the payload on stdin."""
    env = {"PATH": path, "HOME": "/nonexistent"}
    return subprocess.run(
        ["/bin/sh", "-c", command], input="{}", capture_output=True, text=True, env=env
    )


def test_without_ccstate_hook_only_session_start_speaks_and_nothing_fails(tmp_path: Path) -> None:
    bare = f"{tmp_path}:/usr/bin:/bin"  # git, printf and the shell; no ccstate-hook
    for event, _m, _t in wiring.HOOK_SPECS:
        done = _sh(wiring.project_command(event), bare)
        assert (done.returncode, done.stderr) == (0, ""), event
        if event == "SessionStart":
            assert json.loads(done.stdout) == {"systemMessage": wiring.NOT_INSTALLED}
        else:
            assert done.stdout == "", event


def test_with_ccstate_hook_on_path_the_command_hands_over(tmp_path: Path) -> None:
    fake = tmp_path / "ccstate-hook"
    fake.write_text('#!/bin/sh\necho "ran $1 with $(cat)"\nexit 0\n')
    fake.chmod(0o755)
    done = _sh(wiring.project_command("PreCompact"), f"{tmp_path}:/usr/bin:/bin")
    assert (done.returncode, done.stdout, done.stderr) == (0, "ran PreCompact with {}\n", "")


def test_merge_is_idempotent_and_replaces_commands_with_a_machine_path() -> None:
    once = wiring.merge_settings({})
    assert wiring.merge_settings(once) == once
    old = {
        "hooks": {
            "SessionEnd": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": (
                                "/home/ann/.local/share/ccstate/venv/bin/ccstate-hook SessionEnd"
                            ),
                        }
                    ]
                }
            ]
        }
    }
    moved = wiring.merge_settings(old)
    commands = [g["hooks"][0]["command"] for groups in moved["hooks"].values() for g in groups]
    assert "/home/ann" not in json.dumps(moved)
    assert len(commands) == len(wiring.HOOK_SPECS)


def test_remove_ours_keeps_the_rest_and_drops_empty_events() -> None:
    user = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
    settings = wiring.merge_settings({"hooks": {"PreToolUse": [user]}, "model": "x"})
    assert wiring.remove_ours(settings) == {"hooks": {"PreToolUse": [user]}, "model": "x"}
    assert wiring.remove_ours(wiring.merge_settings({})) == {}


def test_pre_skill_shell_command_is_never_registered() -> None:
    """2.1.331 and older open a dialog at start when settings name it (reference §9)."""
    assert "PreSkillShellCommand" not in {e for e, _m, _t in wiring.HOOK_SPECS}
    assert "PreSkillShellCommand" not in wiring.plugin_hooks()["hooks"]
    assert "PreSkillShellCommand" not in (REPO / "hooks" / "hooks.json").read_text()
    assert "PreSkillShellCommand" not in json.dumps(wiring.merge_settings({}))


def test_read_settings_names_the_file_and_the_place_of_a_json_error(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"hooks": {\n  "x": [1,]\n}\n')
    with pytest.raises(ValueError) as info:
        wiring.read_settings(path)
    assert str(info.value) == (f"{path}: not valid JSON (Expecting value at line 2, column 11)")


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


def test_merge_takes_out_an_event_ccstate_registers_no_more() -> None:
    """Before #14 ccstate registered PreToolUse (a heartbeat on every Read): `init` on such a
    settings file removes that entry and keeps the user's own PreToolUse hooks; `doctor` asks
    for an `init` until then."""
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
    ours = {
        "matcher": "Read",
        "hooks": [{"type": "command", "command": wiring.project_command("PreToolUse")}],
    }
    old = wiring.merge_settings({})
    old["hooks"]["PreToolUse"] = [ours]
    assert "PreToolUse" in wiring.wired_events(old)
    assert "PreToolUse" not in wiring.merge_settings(old)["hooks"]
    assert wiring.merge_settings(old) == wiring.merge_settings({})
    old["hooks"]["PreToolUse"] = [ours, mine]
    assert wiring.merge_settings(old)["hooks"]["PreToolUse"] == [mine]
    assert wiring.remove_ours(old) == {"hooks": {"PreToolUse": [mine]}}


def test_every_registered_event_is_known_to_the_oldest_supported_claude() -> None:
    """Nothing is registered for an event a supported version does not know (#25): settings
    naming an unknown event can open a dialog at start (reference §9)."""
    assert set(wiring.CLAUDE_EVENTS) == set(wiring.TESTED_CLAUDE)
    for version in wiring.TESTED_CLAUDE:
        known = set(wiring.CLAUDE_EVENTS[version])
        assert {e for e, _m, _t in wiring.HOOK_SPECS} <= known, version
        assert set(wiring.plugin_hooks()["hooks"]) <= known, version
        assert set(wiring.merge_settings({})["hooks"]) <= known, version


def _binary_events(binary: Path) -> tuple[str, ...]:
    """The hook event enum as the binary carries it (its first `["PreToolUse",...]` array)."""
    import mmap

    with binary.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        start = data.find(b'["PreToolUse","PostToolUse","PostToolUseFailure"')
        assert start >= 0, f"no event list in {binary}"
        end = data.find(b"]", start)
        return tuple(json.loads(data[start : end + 1].decode()))


@pytest.mark.parametrize("version", wiring.TESTED_CLAUDE)
def test_the_event_table_is_what_each_pinned_binary_lists(version: str) -> None:
    import os

    cache = Path(os.environ.get("CCSTATE_E2E_CACHE") or Path.home() / ".cache" / "ccstate-e2e")
    binary = cache / f"claude-{version}" / "node_modules/@anthropic-ai/claude-code/bin/claude.exe"
    if not binary.is_file():
        pytest.skip(f"Claude Code {version} is not installed at {binary} (scripts/test.sh does)")
    assert _binary_events(binary) == wiring.CLAUDE_EVENTS[version]


def test_statusline_entry_is_ours_and_someone_elses_is_kept() -> None:
    ours = wiring.statusline_entry()
    assert ours["refreshInterval"] == wiring.STATUSLINE_REFRESH_S and wiring.is_our_statusline(ours)
    assert "/" not in ours["command"].replace("/dev/null", "")  # no machine path: PATH finds it
    merged, foreign = wiring.with_statusline({"model": "x"})
    assert (merged, foreign) == ({"model": "x", "statusLine": ours}, None)
    theirs = {"statusLine": {"type": "command", "command": "starship statusline"}}
    assert wiring.with_statusline(theirs) == (theirs, "starship statusline")
    assert wiring.without_statusline(merged) == {"model": "x"}
    assert wiring.without_statusline(theirs) == theirs


def test_the_statusline_command_runs_it_or_says_it_is_missing(tmp_path: Path) -> None:
    proc = subprocess.run(
        ["/bin/sh", "-c", wiring.statusline_command()],
        input="{}",
        capture_output=True,
        text=True,
        env={"PATH": str(tmp_path)},
    )
    assert (proc.returncode, proc.stdout) == (0, wiring.STATUSLINE_MISSING + "\n")
    (tmp_path / wiring.STATUSLINE_SCRIPT).write_text("#!/bin/sh\ncat\n")
    (tmp_path / wiring.STATUSLINE_SCRIPT).chmod(0o755)
    proc = subprocess.run(
        ["/bin/sh", "-c", wiring.statusline_command()],
        input='{"x": 1}',
        capture_output=True,
        text=True,
        env={"PATH": f"{tmp_path}:/usr/bin:/bin"},
    )
    assert proc.stdout == '{"x": 1}'  # the JSON on stdin reaches it


def test_the_skill_description_is_the_one_the_plugin_ships() -> None:
    """`doctor` prices the skill line from wiring.SKILL_DESCRIPTION: it must be the file's."""
    import yaml

    text = (REPO / "skills" / "ccstate" / "SKILL.md").read_text()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["description"] == wiring.SKILL_DESCRIPTION
    assert "when_to_use" not in front  # Claude Code would append it to the listed line
    assert sorted(p.name for p in (REPO / "skills").iterdir()) == ["ccstate"]
    for command in (REPO / "commands").glob("*.md"):  # the user's: never listed to the model
        assert "\ndisable-model-invocation: true\n" in command.read_text(), command.name
