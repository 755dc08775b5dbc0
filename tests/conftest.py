"""Test isolation: no test touches the real home or a real ccstate state dir."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import configuration as hypothesis_configuration

REAL_HOME = os.path.expanduser("~")
# Hypothesis keeps its example database in ./.hypothesis by default; a plugin installed from
# this checkout would copy it. scripts/test.sh points it at its cache outside the tree.
hypothesis_configuration.set_hypothesis_home_dir(
    os.environ.get("CCSTATE_TEST_HYPOTHESIS")
    or os.path.join(tempfile.gettempdir(), "ccstate-test-hypothesis")
)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME is a fresh tmp dir; CCSTATE_HOME and Claude's variables are unset."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    for name in list(os.environ):
        if name.startswith(("CLAUDE_", "CCSTATE_")) and name != "CCSTATE_E2E_CACHE":
            monkeypatch.delenv(name)
    return home


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An interpreter with the standard library only, like a plugin user's python3."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    return venv / "bin" / "python"


@pytest.fixture
def git_project(tmp_path: Path) -> Path:
    """A real git repository with one commit."""
    project = tmp_path / "project"
    project.mkdir()
    run = ["git", "-C", str(project)]
    subprocess.run([*run, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*run, "config", "user.email", "t@example.org"], check=True)
    subprocess.run([*run, "config", "user.name", "Tester"], check=True)
    (project / "app.py").write_text("print('hello')\n")
    subprocess.run([*run, "add", "."], check=True)
    subprocess.run([*run, "commit", "-q", "-m", "initial"], check=True)
    return project
