from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ccstate
from ccstate import wiring
from ccstate.cli import COMMAND_MODULES, cli, load_all_commands
from helpers import REPO


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_version() -> None:
    assert invoke("--version") == (0, f"ccstate, version {ccstate.__version__}\n", "")


def test_init_dry_run_changes_nothing(git_project: Path) -> None:
    code, out, err = invoke("init", "--dry-run", "-C", str(git_project))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "would create  .ccstate.yaml  (project settings with the defaults)",
        "would create  .claude/settings.json  (hooks for SessionStart, SessionEnd, PreCompact, "
        "PreToolUse, PostToolUse)",
        "would create  .ccstate/.gitignore  (machine-local state dir, ignored by git)",
        "would create  DECISIONS.md  (numbered decision log, header only)",
        "would create  CLAUDE.md  (pointer-layout index; details go in docs/claude/)",
        "would create  docs/claude/workflow.md  (first topic file; CLAUDE.md points here)",
    ]
    assert sorted(p.name for p in git_project.iterdir()) == [".git", "app.py"]


def test_init_twice_changes_nothing_the_second_time(git_project: Path) -> None:
    assert invoke("init", "-C", str(git_project))[0] == 0
    settings = git_project / ".claude" / "settings.json"
    before = settings.read_bytes()
    code, out, _ = invoke("init", "-C", str(git_project))
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == ["skip"] * 6
    assert settings.read_bytes() == before
    commands = json.loads(before)["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert commands == wiring.project_command(sys.executable, "SessionStart")


def test_init_merges_into_existing_settings(git_project: Path) -> None:
    settings = git_project / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "echo keep-me"}
    settings.write_text(
        json.dumps({"env": {"A": "1"}, "hooks": {"SessionStart": [{"hooks": [mine]}]}})
    )
    code, out, _ = invoke("init", "-C", str(git_project))
    assert code == 0 and "update  .claude/settings.json" in out
    data = json.loads(settings.read_text())
    assert data["env"] == {"A": "1"}
    assert data["hooks"]["SessionStart"][0] == {"hooks": [mine]}
    assert wiring.wired_events(data) == {e for e, _m, _t in wiring.HOOK_SPECS}


def test_init_skips_hooks_when_the_plugin_is_enabled(
    git_project: Path, isolated_home: Path
) -> None:
    user = isolated_home / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text(json.dumps({"enabledPlugins": {"ccstate@ccstate-marketplace": True}}))
    invoke("init", "-C", str(git_project))
    assert not (git_project / ".claude" / "settings.json").exists()


def test_init_removes_project_hooks_once_the_plugin_is_enabled(
    git_project: Path, isolated_home: Path
) -> None:
    invoke("init", "-C", str(git_project))
    user = isolated_home / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text(json.dumps({"enabledPlugins": {"ccstate@ccstate-marketplace": True}}))
    code, out, _ = invoke("init", "-C", str(git_project))
    assert code == 0
    assert f"the ccstate plugin is enabled in {user}" in out
    assert json.loads((git_project / ".claude" / "settings.json").read_text()) == {}


def test_init_reports_broken_settings_json_in_one_line(git_project: Path) -> None:
    settings = git_project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("[1]")
    code, out, err = invoke("init", "-C", str(git_project))
    assert (code, out) == (1, "")
    assert err == (
        f"Error: {settings}: expected a JSON object at the top level; fix the JSON or move the "
        "file aside, then rerun 'ccstate init'\n"
    )


def test_doctor_fails_on_a_bad_config_and_names_key_and_fix(git_project: Path) -> None:
    invoke("init", "-C", str(git_project))
    (git_project / ".ccstate.yaml").write_text("capsule:\n  budget_tokens: lots\n")
    code, out, _ = invoke("doctor", "-C", str(git_project))
    assert code == 1
    assert "'capsule.budget_tokens' must be a whole number" in " ".join(out.split())


def test_doctor_passes_in_a_wired_project(git_project: Path) -> None:
    invoke("init", "-C", str(git_project))
    code, out, _ = invoke("doctor", "-C", str(git_project))
    assert code == 0, out
    assert "all checks passed" in out


def test_doctor_fails_when_nothing_is_wired(git_project: Path) -> None:
    code, out, _ = invoke("doctor", "-C", str(git_project))
    assert code == 1
    assert "not wired: run 'ccstate init' here" in " ".join(out.split())


@pytest.mark.parametrize("command", sorted(COMMAND_MODULES))
def test_every_command_has_help_with_an_example(command: str) -> None:
    code, out, _ = invoke(command, "--help")
    assert code == 0
    assert "Example:" in out


def test_every_command_is_documented_in_readme() -> None:
    readme = (REPO / "README.md").read_text()
    for command in COMMAND_MODULES:
        assert f"ccstate {command}" in readme, command


def test_lazy_registry_matches_the_registered_commands() -> None:
    load_all_commands()
    assert set(cli.commands) == set(COMMAND_MODULES)
    for name, module in COMMAND_MODULES.items():
        assert cli.commands[name].callback.__module__ == f"ccstate.cli.{module}"


def test_version_imports_no_command_module() -> None:
    import subprocess
    import sys

    code = "import sys; from ccstate.cli import main; sys.argv=['ccstate','--version']; main()"
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert "ccstate.cli.report_cmd" not in out.stderr and "ccstate.cli.lint_cmd" not in out.stderr


def test_doctor_prints_brackets_in_messages_as_they_are(capsys: pytest.CaptureFixture[str]) -> None:
    """Paths are data: rich markup would eat `[id]` (a Next.js route folder, say)."""
    from ccstate import doctor
    from ccstate.cli import doctor_cmd

    check = doctor.Check("config", "warn", "app/[id]/x.yaml: unknown key")
    doctor_cmd._render_checks(Path("/code/[id]"), [check])
    out = capsys.readouterr().out
    assert "ccstate doctor: /code/[id]" in out
    assert "app/[id]/x.yaml: unknown key" in out


def test_the_error_log_follows_dash_c(tmp_path: Path) -> None:
    """#12 item 8: an unexpected error is logged in the state of the project given with -C,
    not of the current directory."""
    import subprocess

    from helpers import hook_env

    project, elsewhere = tmp_path / "p", tmp_path / "elsewhere"
    (project / ".git").mkdir(parents=True)
    (elsewhere / ".git").mkdir(parents=True)
    code = (
        "import sys\n"
        "from ccstate.cli import cli, main, project_option, resolve_project\n"
        "@cli.command('boom')\n"
        "@project_option\n"
        "def boom(project):\n"
        "    resolve_project(project)\n"
        "    raise RuntimeError('kaboom')\n"
        f"sys.argv = ['ccstate', 'boom', '-C', {str(project)!r}]\n"
        "main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=elsewhere, env=hook_env(), capture_output=True, text=True
    )
    assert proc.returncode == 3, proc.stderr
    log = project / ".ccstate" / "logs" / "cli.log"
    assert "RuntimeError: kaboom" in log.read_text()
    assert f"Check the log at {log}" in proc.stderr
    assert not (elsewhere / ".ccstate").exists()
    assert log.stat().st_mode & 0o777 == 0o600
