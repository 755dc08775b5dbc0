from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ccstate
from ccstate.cli import COMMAND_MODULES, cli, load_all_commands
from ccstate.install import doctor, wiring
from helpers import BYTECODE_ENV, FIXTURES, REPO, SRC


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
        "PostCompact, PostToolUse, UserPromptSubmit, PreModelSwitch, Stop, run as "
        "`ccstate-hook` from PATH)",
        "would create  .ccstate/.gitignore  (machine-local state dir, ignored by git)",
        "would create  DECISIONS.md  (numbered decision log, header only)",
        "        skip  CLAUDE.md  (not created: no README paragraph and no test command to put "
        "in it)",
        "        skip  docs/claude/workflow.md  (not created: no command found beyond CLAUDE.md's)",
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
    assert commands == wiring.project_command("SessionStart")


def test_init_writes_the_same_settings_for_every_user(git_project: Path, tmp_path: Path) -> None:
    """The committed file must work for a teammate: no home, venv or interpreter in it."""
    invoke("init", "-C", str(git_project))
    settings = git_project / ".claude" / "settings.json"
    mine = settings.read_bytes()
    settings.unlink()
    other = {"HOME": str(tmp_path / "bob"), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC)}
    other.update(BYTECODE_ENV)
    done = subprocess.run(
        [sys.executable, "-m", "ccstate", "init", "-C", str(git_project)],
        capture_output=True,
        text=True,
        env=other,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert settings.read_bytes() == mine
    for needle in (str(Path.home()), sys.prefix, sys.executable, str(tmp_path)):
        assert needle not in mine.decode(), needle


def test_init_says_when_the_hooks_command_is_not_on_path(
    git_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    code, _, err = invoke("init", "-C", str(git_project))
    beside = Path(sys.executable).parent
    assert (code, err) == (
        0,
        "note: `ccstate-hook` is not on PATH, so the hooks only show a 'not installed' "
        f"message; add {beside} to PATH\n",
    )
    monkeypatch.setenv("PATH", f"{beside}:/usr/bin:/bin")
    assert invoke("init", "-C", str(git_project))[2] == ""


# --------------------------------------------------------------------------- init --remove


def status(project: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_init_remove_after_init_leaves_a_clean_tree(git_project: Path) -> None:
    invoke("init", "-C", str(git_project))
    assert status(git_project) != ""
    code, out, err = invoke("init", "--remove", "-C", str(git_project))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "      delete  .claude/settings.json  (it held only ccstate's hooks)",
        "      delete  .ccstate.yaml  (unchanged since 'ccstate init' wrote it)",
        "      delete  DECISIONS.md  (unchanged since 'ccstate init' wrote it)",
        "        skip  .ccstate  (kept: handoffs, ledger and logs of this machine (git ignores "
        "it))",
    ]
    assert status(git_project) == ""
    assert sorted(p.name for p in git_project.iterdir()) == [".ccstate", ".git", "app.py"]
    code, out, _ = invoke("init", "--remove", "-C", str(git_project))  # idempotent
    assert (code, [line.split()[0] for line in out.splitlines()]) == (0, ["skip"])


def test_init_remove_takes_exactly_ccstates_hooks_and_keeps_edited_files(
    git_project: Path,
) -> None:
    settings = git_project / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "echo keep-me"}
    before = {
        "env": {"A": "1"},
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {"SessionStart": [{"hooks": [mine]}], "Stop": [{"hooks": [mine]}]},
    }
    settings.write_text(json.dumps(before))
    local = git_project / ".claude" / "settings.local.json"
    local.write_text(json.dumps(wiring.merge_settings({"model": "x"})))
    invoke("init", "-C", str(git_project))
    (git_project / "DECISIONS.md").write_text("# Decisions\n\nmine\n")
    dry = invoke("init", "--remove", "--dry-run", "-C", str(git_project))
    assert (
        "would update  .claude/settings.json  (ccstate's hooks removed; every other key "
        in (dry[1])
    )
    assert wiring.wired_events(json.loads(settings.read_text()))  # dry run: unchanged
    code, out, _ = invoke("init", "--remove", "-C", str(git_project))
    assert code == 0
    assert json.loads(settings.read_text()) == before
    assert json.loads(local.read_text()) == {"model": "x"}
    assert "        skip  DECISIONS.md  (kept: it holds decisions (changed since 'ccstate " in out
    assert (git_project / "DECISIONS.md").read_text() == "# Decisions\n\nmine\n"
    assert not (git_project / ".ccstate.yaml").exists()


def _with_old_pre_tool_use(settings: dict) -> dict:
    """`settings` as a ccstate from before #14 left them: a PreToolUse hook on every Read."""
    old = {"type": "command", "command": wiring.project_command("PreToolUse"), "timeout": 10}
    settings["hooks"]["PreToolUse"] = [{"matcher": "Read", "hooks": [old]}]
    return settings


@pytest.mark.parametrize("remove", [False, True])
def test_init_takes_out_the_pre_tool_use_hook_of_an_older_ccstate(
    git_project: Path, monkeypatch: pytest.MonkeyPatch, remove: bool
) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
    settings = git_project / ".claude" / "settings.json"
    invoke("init", "-C", str(git_project))
    settings.write_text(json.dumps(_with_old_pre_tool_use(json.loads(settings.read_text()))))
    (check,) = doctor.check_wiring(git_project, {"HOME": str(git_project)})
    assert (check.level, check.message) == (
        "warn",
        f"{settings}: hooks for PreToolUse, which ccstate no longer uses; run 'ccstate init' "
        "to update them",
    )
    code, out, _ = invoke("init", *(["--remove"] if remove else []), "-C", str(git_project))
    assert code == 0
    if remove:
        assert not settings.exists()  # it held only ccstate's hooks
        return
    assert "update  .claude/settings.json" in out
    assert "PreToolUse" not in settings.read_text()
    assert invoke("doctor", "-C", str(git_project))[0] == 0


def test_init_names_a_malformed_settings_file(git_project: Path) -> None:
    settings = git_project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {}\n')
    for args in (["init"], ["init", "--remove"]):
        code, out, err = invoke(*args, "-C", str(git_project))
        assert (code, out) == (1, "")
        rerun = "ccstate init --remove" if "--remove" in args else "ccstate init"
        assert err == (
            f"Error: {settings}: not valid JSON (Expecting ',' delimiter at line 2, column 1); "
            f"fix the JSON or move the file aside, then rerun '{rerun}'\n"
        )


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
    # wide enough that the details cell is not wrapped (where a narrower table wraps it
    # depends on the length of the temporary path)
    result = CliRunner().invoke(cli, ["doctor", "-C", str(git_project)], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    assert "'capsule.budget_tokens' must be a whole number" in result.stdout


def test_doctor_passes_in_a_wired_project(
    git_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
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
    from ccstate.cli import doctor_cmd
    from ccstate.install import doctor

    check = doctor.Check("config", "warn", "app/[id]/x.yaml: unknown key")
    doctor_cmd._render_checks(Path("/code/[id]"), [check])
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == [
        "ccstate doctor: all checks passed; 1 warning(s): config",
        "checks in /code/[id]",
    ]
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


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "args",
    [
        ["doctor"],
        ["init"],
        ["decisions"],
        ["decide", "T", "--decision", "x"],
        ["handoff", "show"],
        ["report"],
    ],
    ids=lambda a: a[0] if a[0] != "handoff" else "handoff-show",
)
def test_a_missing_project_dir_is_one_line_and_creates_nothing(
    args: list[str], tmp_path: Path
) -> None:
    missing = tmp_path / "no" / "such"
    code, out, err = invoke(*args, "-C", str(missing))
    assert (code, out) == (2, "")
    assert err == f"Error: --project/-C: {missing} does not exist; pass the project's directory\n"
    assert not (tmp_path / "no").exists()


def test_a_file_as_project_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    code, _, err = invoke("doctor", "-C", str(tmp_path / "f"))
    assert (code, err) == (
        2,
        f"Error: --project/-C: {tmp_path / 'f'} is not a directory; pass the project's directory\n",
    )


@pytest.mark.parametrize(
    "args",
    [
        ["lint"],
        ["lint", "."],
        ["decisions"],
        ["handoff", "show", "--list"],
        ["report", "--all"],
        ["replay", str(FIXTURES / "replay" / "session.jsonl")],
        ["init", "--dry-run"],
    ],
    ids=lambda a: "-".join(a[:2]) if a[0] in ("handoff", "lint") else a[0],
)
def test_every_command_warns_about_an_unknown_config_key(
    args: list[str], git_project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (isolated_home / ".claude" / "projects" / "x").mkdir(parents=True)
    (git_project / ".ccstate.yaml").write_text("capsule:\n  enabeld: false\nfoo: 1\n")
    monkeypatch.chdir(git_project)
    _, _, err = invoke(*args)
    path = git_project / ".ccstate.yaml"
    assert err.startswith(
        f"warning: {path}: unknown key 'capsule.enabeld' is ignored\n"
        f"warning: {path}: unknown key 'foo' is ignored\n"
    )


def test_a_yaml_error_on_line_one_is_reported_on_line_one(git_project: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("capsule: [\n")
    code, _, err = invoke("lint", str(git_project))
    assert (code, err) == (
        1,
        f"Error: {git_project / '.ccstate.yaml'}: line 1 is not valid YAML; fix the syntax there\n",
    )
