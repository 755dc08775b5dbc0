"""install.sh, run for real as a subprocess: one install into tmp_path, reused by every test.

The venv is created with `--system-site-packages` (CCSTATE_VENV_ARGS, the script's
test/offline aid), so ccstate's dependencies come from the interpreter running
pytest when it has them; otherwise pip fetches them from PyPI. Building ccstate
itself needs setuptools from the package index.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from ccstate.install import wiring
from helpers import isolated_env, plugin_copy_leftovers, run_install, venv_unavailable

REPO = Path(__file__).resolve().parents[1]
EVENTS = ("SessionStart", "SessionEnd", "PreCompact", "PostToolUse")


def source_version() -> str:
    text = (REPO / "src" / "ccstate" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    assert match, "no __version__ in src/ccstate/__init__.py"
    return match.group(1)


def git_init(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)
    return path.resolve()


@dataclass(frozen=True)
class Installed:
    root: Path
    env: dict[str, str]
    project: Path
    bin_dir: Path
    venv: Path
    first: subprocess.CompletedProcess[str]
    settings_after_first: bytes
    second: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    reason = venv_unavailable()
    if reason:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("install").resolve()
    env = isolated_env(root)
    project = git_init(root / "project")
    first = run_install(env=env, cwd=project)
    assert first.returncode == 0, first.stdout + first.stderr
    settings = project / ".claude" / "settings.json"
    settings_after_first = settings.read_bytes()
    second = run_install(env=env, cwd=project)
    return Installed(
        root=root,
        env=env,
        project=project,
        bin_dir=root / "bin",
        venv=root / "data" / "ccstate" / "venv",
        first=first,
        settings_after_first=settings_after_first,
        second=second,
    )


def test_first_run_reports_each_step(installed: Installed) -> None:
    out = installed.first.stdout
    assert f"created venv {installed.venv}" in out
    assert f"installed ccstate {source_version()} into {installed.venv}" in out
    for name in ("ccstate", "ccstate-hook", "ccstate-statusline"):
        assert f"linked {installed.bin_dir / name} -> {installed.venv / 'bin' / name}" in out
    assert f"wired {installed.project}" in out
    assert f'export PATH="{installed.bin_dir}:$PATH"' in out  # the bin dir is not on PATH


def test_link_runs_the_installed_version(installed: Installed) -> None:
    link = installed.bin_dir / "ccstate"
    assert link.is_symlink()
    assert Path(os.readlink(link)) == installed.venv / "bin" / "ccstate"
    proc = subprocess.run(
        [str(link), "--version"], capture_output=True, text=True, env=installed.env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert source_version() in proc.stdout


def test_project_settings_run_the_linked_hook_command_and_hold_no_path(
    installed: Installed,
) -> None:
    settings = json.loads(installed.settings_after_first)
    for event in EVENTS:
        commands = [h["command"] for group in settings["hooks"][event] for h in group["hooks"]]
        assert commands == [wiring.project_command(event)], event
    text = installed.settings_after_first.decode()
    for machine_path in (str(installed.root), str(installed.venv), os.environ["HOME"]):
        assert machine_path not in text
    assert (installed.project / ".ccstate.yaml").is_file()
    link = installed.bin_dir / "ccstate-hook"
    assert Path(os.readlink(link)) == installed.venv / "bin" / "ccstate-hook"


def test_second_run_changes_nothing(installed: Installed) -> None:
    second = installed.second
    assert second.returncode == 0, second.stdout + second.stderr
    settings = installed.project / ".claude" / "settings.json"
    assert settings.read_bytes() == installed.settings_after_first
    out = second.stdout
    assert f"skip venv {installed.venv} (exists and works)" in out
    assert f"skip link {installed.bin_dir / 'ccstate'}" in out
    init_actions = {
        path: action
        for action, path in re.findall(r"^ +(create|update|skip)  (\S+)  \(", out, re.MULTILINE)
    }
    assert init_actions[".ccstate.yaml"] == "skip"
    assert init_actions[".claude/settings.json"] == "skip"
    assert set(init_actions.values()) == {"skip"}
    assert "created venv" not in out


def test_doctor_failure_fails_the_install(installed: Installed) -> None:
    project = git_init(installed.root / "broken")
    (project / ".ccstate.yaml").write_text("capsule: [\n", encoding="utf-8")
    (project / "sub").mkdir()
    proc = run_install(str(project / "sub"), env=installed.env, cwd=installed.root)
    assert proc.returncode == 1
    assert f"wired {project}" in proc.stdout  # PROJECT_DIR resolved to the git top level
    assert proc.stderr.strip().splitlines()[-1] == (
        f"install.sh: ccstate is installed, but 'ccstate doctor' found problems in {project} "
        "(see the table above)"
    )


def test_init_remove_then_uninstall_leave_nothing_behind(installed: Installed) -> None:
    """A second install (own data and bin dirs) in a committed project, then the way back:
    the project's `git status` is clean, and the venv and both links are gone."""
    root = installed.root / "undo"
    env = {
        **installed.env,
        "XDG_DATA_HOME": str(root / "data"),
        "CCSTATE_BIN_DIR": str(root / "bin"),
    }
    project = git_init(root / "project")
    (project / "app.py").write_text("print(1)\n")
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "initial"], check=True)
    status = [*git, "status", "--porcelain", "--untracked-files=all"]
    done = run_install(env=env, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert subprocess.run(status, capture_output=True, text=True).stdout != ""
    venv = root / "data" / "ccstate" / "venv"
    done = run_install("--uninstall", env=env, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert f"unwiring {project} (ccstate init --remove):" in out
    assert "      delete  .claude/settings.json  (it held only ccstate's hooks)" in out
    for name in ("ccstate", "ccstate-hook", "ccstate-statusline"):
        assert f"removed link {root / 'bin' / name}" in out
    assert f"removed venv {venv}" in out
    assert subprocess.run(status, capture_output=True, text=True).stdout == ""
    assert not (root / "data" / "ccstate").exists()
    assert list((root / "bin").iterdir()) == []
    again = run_install("--uninstall", env=env, cwd=project)  # idempotent
    assert again.returncode == 0 and f"skip venv {venv} (absent)" in again.stdout


def test_uninstall_keeps_links_that_are_not_its_own(installed: Installed, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ccstate").symlink_to("/usr/bin/true")
    env = {
        **installed.env,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "CCSTATE_BIN_DIR": str(bin_dir),
    }
    done = run_install("--uninstall", "--no-init", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (bin_dir / "ccstate").is_symlink()
    assert "skip unwiring (--no-init)" in done.stdout


def test_help_describes_the_options(tmp_path: Path) -> None:
    proc = run_install("--help", env=isolated_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.startswith(
        "Usage: install.sh [--no-init] [PROJECT_DIR]\n"
        "       install.sh --uninstall [--no-init] [PROJECT_DIR]\n"
    )
    assert "--no-init" in proc.stdout and "--uninstall" in proc.stdout
    assert not (tmp_path / "data").exists()


def test_old_python_is_refused_in_one_line(tmp_path: Path) -> None:
    fake = tmp_path / "python3.9"
    fake.write_text("#!/bin/sh\necho 3.9.18\nexit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    env = isolated_env(tmp_path) | {"CCSTATE_PYTHON": str(fake)}
    proc = run_install("--no-init", env=env, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr == (
        f"install.sh: ccstate needs Python >= 3.10, but '{fake}' is 3.9.18 "
        "(set CCSTATE_PYTHON to a newer interpreter)\n"
    )


def test_the_readme_commands_in_a_fresh_clone_leave_what_the_suite_accepts(
    tmp_path: Path,
) -> None:
    """#23: the README's first command, run in a fresh clone of this repository (a newcomer's
    HOME), wires the clone itself; what it leaves there must break no test: `git status` stays
    clean, and the only files it leaves (ignored) are ones a plugin copy of the clone may
    hold (`helpers.plugin_copy_leftovers`, which tests/e2e/test_plugin.py asserts)."""
    reason = venv_unavailable()
    if reason:
        pytest.skip(reason)
    clone = tmp_path / "ccstate"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, capture_output=True)
    env = isolated_env(tmp_path)
    done = subprocess.run(
        ["bash", "install.sh"], cwd=clone, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"wired {clone.resolve()}" in done.stdout
    git = ["git", "-C", str(clone)]
    status = subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True)
    assert status.stdout == ""
    ignored = subprocess.run(
        [*git, "ls-files", "--others", "--ignored", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert ".claude/settings.json" in ignored  # the clone is wired
    assert plugin_copy_leftovers(set(ignored), clone) == set()
