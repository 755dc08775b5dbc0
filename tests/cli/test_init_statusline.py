"""`ccstate init --statusline [--user]` and `init --remove`: ccstate's statusLine only where
none is set, and out again; someone else's status line is never touched."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.install import wiring


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def settings(path: Path) -> dict:
    return json.loads(path.read_text())


def test_writes_the_status_line_with_a_refresh_interval(git_project: Path) -> None:
    code, out, _ = invoke("init", "--statusline", "-C", str(git_project))
    assert code == 0
    path = git_project / ".claude" / "settings.json"
    assert settings(path) == {"statusLine": wiring.statusline_entry()}
    assert settings(path)["statusLine"]["refreshInterval"] == 5
    assert out.startswith("      create  .claude/settings.json  (statusLine: ccstate-statusline")
    assert not (git_project / ".ccstate.yaml").exists()  # only the status line
    code, out, _ = invoke("init", "--statusline", "-C", str(git_project))  # idempotent
    assert (code, out.split()[0]) == (0, "skip")


def test_keeps_every_other_key_and_updates_its_own(git_project: Path) -> None:
    path = git_project / ".claude" / "settings.json"
    path.parent.mkdir()
    old = {"type": "command", "command": "ccstate-statusline", "refreshInterval": 30}
    path.write_text(json.dumps({"model": "opus", "statusLine": old}))
    invoke("init", "--statusline", "--refresh", "2", "-C", str(git_project))
    assert settings(path) == {"model": "opus", "statusLine": wiring.statusline_entry(2)}


def test_someone_elses_status_line_is_kept_and_the_addition_printed(git_project: Path) -> None:
    path = git_project / ".claude" / "settings.json"
    path.parent.mkdir()
    theirs = {"statusLine": {"type": "command", "command": "bash ~/my-line.sh"}}
    path.write_text(json.dumps(theirs))
    before = path.read_bytes()
    code, out, _ = invoke("init", "--statusline", "-C", str(git_project))
    assert code == 0 and path.read_bytes() == before
    assert "skip  .claude/settings.json  (not changed: " in out
    assert "has its own statusLine" in out
    assert '"$(printf \'%s\' "$input" | bash ~/my-line.sh)"' in out
    assert "ccstate-statusline --segment" in out


def test_ccstatusline_users_are_told_about_its_custom_command_widget(
    git_project: Path, isolated_home: Path
) -> None:
    user = isolated_home / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text(
        json.dumps({"statusLine": {"type": "command", "command": "npx -y ccstatusline@latest"}})
    )
    code, out, _ = invoke("init", "--statusline", "-C", str(git_project))
    assert code == 0
    assert not (git_project / ".claude" / "settings.json").exists()  # the user's would lose
    assert "Custom Command widget running `ccstate-statusline --segment`" in out


def test_user_settings_and_remove(git_project: Path, isolated_home: Path) -> None:
    user = isolated_home / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text(json.dumps({"theme": "dark"}))
    code, out, _ = invoke("init", "--statusline", "--user", "-C", str(git_project))
    assert code == 0 and str(user) in out
    assert settings(user) == {"theme": "dark", "statusLine": wiring.statusline_entry()}
    code, out, _ = invoke("init", "--remove", "--statusline", "--user", "-C", str(git_project))
    assert code == 0 and "ccstate's status line removed" in out
    assert settings(user) == {"theme": "dark"}


def test_remove_takes_the_status_line_with_the_hooks_and_leaves_others(git_project: Path) -> None:
    invoke("init", "-C", str(git_project))
    invoke("init", "--statusline", "-C", str(git_project))
    path = git_project / ".claude" / "settings.json"
    assert "statusLine" in settings(path) and "hooks" in settings(path)
    code, out, _ = invoke("init", "--remove", "-C", str(git_project))
    assert code == 0 and "(it held only ccstate's hooks and status line)" in out
    assert not path.exists()
    path.parent.mkdir(exist_ok=True)
    mine = {"statusLine": {"type": "command", "command": "echo mine"}}
    path.write_text(json.dumps(mine))
    assert invoke("init", "--remove", "--statusline", "-C", str(git_project))[0] == 0
    assert settings(path) == mine


def test_dry_run_and_user_without_statusline(git_project: Path) -> None:
    code, out, _ = invoke("init", "--statusline", "--dry-run", "-C", str(git_project))
    assert code == 0 and "would create" in out
    assert not (git_project / ".claude").exists()
    code, _, err = invoke("init", "--user", "-C", str(git_project))
    assert code == 2 and "--user: only with --statusline" in err
