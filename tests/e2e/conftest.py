"""Fixtures for end-to-end tests that drive the real Claude Code CLI against a fake API.

The pinned CLI is installed once into a cache under the *real* home (or $CCSTATE_E2E_CACHE);
every run gets its own HOME, project repo and fake API server.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Tests import the helpers as top-level modules whatever pytest's import mode is.
_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

from claude_runner import PACKAGE, ClaudeRun, claude_env, run_claude  # noqa: E402
from fake_api import FakeAnthropic  # noqa: E402

from ccstate.install.wiring import TESTED_CLAUDE  # noqa: E402

__all__ = ["CLAUDE_CACHE", "run_claude"]

# Computed at import time, before any fixture can repoint HOME at a tmp dir.
CLAUDE_CACHE = Path(
    os.environ.get("CCSTATE_E2E_CACHE") or os.path.expanduser("~/.cache/ccstate-e2e")
)
# CI sets this: there the e2e suite must run, so "npm missing" is a failure, not a skip.
E2E_REQUIRED = os.environ.get("CCSTATE_E2E_REQUIRED") == "1"
# Every e2e test runs once per version (the test id ends in [claude-<version>]);
# CCSTATE_E2E_CLAUDE=2.1.332 (comma-separated for several) picks versions for a quicker run.
VERSIONS = (
    tuple(v.strip() for v in os.environ.get("CCSTATE_E2E_CLAUDE", "").split(",") if v.strip())
    or TESTED_CLAUDE
)
_INSTALL_TIMEOUT = 900


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: drives the real Claude Code CLI against a fake API (slow)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


# --------------------------------------------------------------------------- the CLI binary


def install_dir(version: str) -> Path:
    return CLAUDE_CACHE / f"claude-{version}"


def _find_claude(version: str) -> Path | None:
    folder = install_dir(version) / "node_modules"
    candidates = (
        folder / PACKAGE / "bin" / "claude.exe",
        folder / PACKAGE / "bin" / "claude",
        folder / ".bin" / "claude",
    )
    return next((p for p in candidates if p.is_file() and os.access(p, os.X_OK)), None)


def _install_claude(version: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        if E2E_REQUIRED:
            pytest.fail("npm not available but CCSTATE_E2E_REQUIRED=1: install Node.js/npm")
        pytest.skip(f"npm not available: cannot install Claude Code {version} for e2e tests")
    cmd = [npm, "install", "--prefix", str(install_dir(version)), f"{PACKAGE}@{version}"]
    proc = subprocess.run(
        [*cmd, "--no-audit", "--no-fund"],
        capture_output=True,
        text=True,
        timeout=_INSTALL_TIMEOUT,
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(f"`{' '.join(cmd)}` failed ({proc.returncode}):\n{proc.stderr[-3000:]}")


@contextlib.contextmanager
def _install_lock(version: str) -> Iterator[None]:
    """Serialise installs between concurrent pytest processes (e.g. xdist workers)."""
    install_dir(version).mkdir(parents=True, exist_ok=True)
    with (CLAUDE_CACHE / f".claude-{version}.lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session", params=VERSIONS, ids=lambda v: f"claude-{v}")
def claude_version(request: pytest.FixtureRequest) -> str:
    """The Claude Code version this run of a test drives (each of VERSIONS in turn)."""
    return str(request.param)


@pytest.fixture(scope="session")
def claude_bin(claude_version: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path to the pinned claude binary of `claude_version`, installed with npm on first use."""
    with _install_lock(claude_version):
        found = _find_claude(claude_version)
        if found is None:
            _install_claude(claude_version)
            found = _find_claude(claude_version)
    if found is None:
        pytest.fail(f"npm installed {PACKAGE}@{claude_version} but no binary under it")
    home = tmp_path_factory.mktemp("claude-version-home")
    proc = subprocess.run(
        [str(found), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env=claude_env(home, "http://127.0.0.1:9"),
        check=False,
    )
    if not proc.stdout.startswith(claude_version):
        pytest.fail(f"{found} --version: {proc.stdout!r} {proc.stderr!r}; want {claude_version}")
    return found


# --------------------------------------------------------------------------- per-test world


@pytest.fixture
def fake_api(request: pytest.FixtureRequest) -> Iterator[FakeAnthropic]:
    """A started fake API with an empty script; call ``fake_api.set_script([...])``."""
    with FakeAnthropic() as api:
        request.node._e2e_api = api
        yield api


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    """An empty HOME for claude (its ~/.claude, transcripts and plugin data land here).

    Separate from tests/conftest.py's autouse ``tmp_path/"home"``, which is the *pytest*
    process's HOME; claude gets its own HOME explicitly through run_claude.
    """
    home = tmp_path / "claude-home"
    home.mkdir()
    return home


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repo with two committed files, used as claude's cwd."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Demo project\n\nUsed by the ccstate e2e tests.\n")
    (root / "app.py").write_text('def greet(name):\n    return f"hello {name}"\n')
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.name", "E2E Tester")
    _git(root, "config", "user.email", "e2e@example.org")
    _git(root, "config", "commit.gpgsign", "false")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "initial")
    return root


ClaudeFn = Callable[..., ClaudeRun]


@pytest.fixture
def claude(
    request: pytest.FixtureRequest,
    claude_bin: Path,
    fake_api: FakeAnthropic,
    project: Path,
    claude_home: Path,
) -> ClaudeFn:
    """``claude(prompt, **kw)``: run_claude bound to this test's binary, project, HOME and API.

    Keyword arguments override the bound ones (``cwd``, ``home``, ``api_url``) or are passed
    through (``plugin_dir``, ``resume``, ``extra_args``, ``env_extra``, ``timeout``).
    """
    runs: list[ClaudeRun] = []
    request.node._e2e_runs = runs

    def run(prompt: str, **kw: Any) -> ClaudeRun:
        kw.setdefault("cwd", project)
        kw.setdefault("home", claude_home)
        kw.setdefault("api_url", fake_api.url)
        result = run_claude(claude_bin, prompt, **kw)
        runs.append(result)
        return result

    return run


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """On failure, attach each claude run (stderr, debug-log tail) and the fake API log."""
    report = yield
    if report.failed and call.when == "call":
        for i, run in enumerate(getattr(item, "_e2e_runs", [])):
            report.sections.append((f"claude run {i + 1}", run.describe()))
        api = getattr(item, "_e2e_api", None)
        if api is not None:
            errors = "\n".join(api.errors)
            report.sections.append(("fake API requests", f"{api.summary()}\n{errors}".strip()))
    return report
