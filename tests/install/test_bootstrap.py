"""The plugin's private venv: states, the one-builder lock, failure message, launcher use."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ccstate import paths, store
from ccstate.install import bootstrap
from helpers import REPO, hook_env, make_payload, run_hook


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A plugin whose hooks run on an interpreter without ccstate's dependencies."""
    monkeypatch.setattr(bootstrap, "dependencies_present", lambda: False)
    root, data = tmp_path / "plugin", tmp_path / "data"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    return root, data


def test_fresh_data_dir_is_missing(plugin: tuple[Path, Path]) -> None:
    assert bootstrap.check(*plugin).status == "missing"


def test_an_interpreter_with_the_dependencies_needs_no_venv(tmp_path: Path) -> None:
    assert bootstrap.dependencies_present()  # the test suite's interpreter has them
    assert bootstrap.check(tmp_path / "plugin", tmp_path / "data").status == "system"


def test_a_bare_interpreter_lacks_the_dependencies(bare_python: Path) -> None:
    code = "from ccstate.install import bootstrap; print(bootstrap.dependencies_present())"
    out = subprocess.run(
        [str(bare_python), "-c", code], capture_output=True, text=True, env=hook_env()
    )
    assert out.stdout == "False\n", out.stderr


def test_ready_needs_matching_fingerprint_and_python(plugin: tuple[Path, Path]) -> None:
    root, data = plugin
    python = paths.venv_python(paths.venv_dir(data))
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    marker = {"fingerprint": bootstrap.fingerprint(root), "python": str(python)}
    store.atomic_write_json(data / "venv.ready.json", marker)
    assert bootstrap.check(root, data) == bootstrap.VenvState("ready", python)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\nversion = '2'\n")
    assert bootstrap.check(root, data).status == "missing"  # plugin updated: rebuild


def test_a_second_builder_backs_off_while_one_holds_the_lock(plugin: tuple[Path, Path]) -> None:
    root, data = plugin
    data.mkdir()
    with store.file_lock(data / "venv.build", timeout=1):
        assert bootstrap.build(root, data).status == "building"
        assert bootstrap.check(root, data).status == "building"


def test_failed_build_leaves_one_message_saying_what_to_run(plugin: tuple[Path, Path]) -> None:
    root, data = plugin
    (root / "pyproject.toml").write_text("this is not toml [")
    state = bootstrap.build(root, data, timeout=120)
    assert state.status == "failed"
    assert state.message.startswith("ccstate could not set up its Python environment (")
    assert f"Run: python3 -m pip install --user '{root}'" in state.message
    assert bootstrap.check(root, data) == bootstrap.VenvState("failed", message=state.message)
    later = time.time() + bootstrap.RETRY_FAILED_AFTER_S + 1
    assert bootstrap.check(root, data, now=later).status == "missing"


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_build_installs_from_a_copy_and_writes_nothing_into_the_plugin_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For a plugin installed from a local clone the root IS the clone: pip, which builds
    in place (build/, *.egg-info), must get a copy under CLAUDE_PLUGIN_DATA instead."""
    root, data = tmp_path / "plugin", tmp_path / "data"
    (root / "src" / "ccstate" / "__pycache__").mkdir(parents=True)
    (root / "src" / "ccstate" / "__init__.py").write_text("__version__ = '1'\n")
    (root / "src" / "ccstate" / "__pycache__" / "x.pyc").write_bytes(b"stale")
    for name in ("pyproject.toml", "README.md", "LICENSE", "install.sh"):
        (root / name).write_text(name)
    before = tree(root)
    seen: list[tuple[list[str], dict[str, bytes]]] = []

    def run(cmd: list[str], deadline: float) -> str:
        stage = Path(cmd[-1])
        seen.append((cmd, tree(stage) if stage.is_dir() else {}))
        if stage.is_dir():
            (stage / "build").mkdir()  # what pip does to the tree it builds
        return ""

    monkeypatch.setattr(bootstrap, "_run", run)
    state = bootstrap.build(root, data)
    assert state.status == "ready"
    assert tree(root) == before
    pip, staged = seen[1]
    assert pip[1:4] == ["-m", "pip", "install"] and pip[-1] == str(data / "venv.stage")
    assert sorted(staged) == ["LICENSE", "README.md", "pyproject.toml", "src/ccstate/__init__.py"]
    assert not (data / "venv.stage").exists()


def test_the_launcher_keeps_bytecode_out_of_the_plugin_root(
    tmp_path: Path, git_project: Path
) -> None:
    root, data = tmp_path / "plugin", tmp_path / "data"
    shutil.copytree(REPO / "hooks", root / "hooks")
    shutil.copytree(REPO / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__"))
    env = hook_env(CLAUDE_PLUGIN_ROOT=str(root), CLAUDE_PLUGIN_DATA=str(data))
    env.pop("PYTHONPATH")
    for name in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    argv = [sys.executable, str(root / "hooks" / "run.py"), "PostToolUse"]
    payload = make_payload("PostToolUse", git_project)
    assert run_hook("PostToolUse", payload, cwd=git_project, env=env, argv=argv)[0] == 0
    assert list(root.rglob("__pycache__")) == []
    assert list((data / "pycache").rglob("post_tool_use*.pyc"))


def test_session_start_relays_a_failed_build_to_the_user(
    plugin: tuple[Path, Path], git_project: Path, bare_python: Path
) -> None:
    root, data = plugin
    data.mkdir()
    failure = {
        "fingerprint": bootstrap.fingerprint(root),
        "message": "RUN THIS",
        "time": time.time(),
    }
    (data / "venv.failed.json").write_text(json.dumps(failure))
    env = hook_env(CLAUDE_PLUGIN_ROOT=str(root), CLAUDE_PLUGIN_DATA=str(data))
    payload = make_payload("SessionStart", git_project, source="startup")
    argv = [str(bare_python), "-m", "ccstate.hooks", "SessionStart"]
    code, parsed, _, _ = run_hook("SessionStart", payload, cwd=git_project, env=env, argv=argv)
    assert code == 0
    assert parsed["systemMessage"] == "RUN THIS"  # the user's, with no capsule to say (#43)
    assert "hookSpecificOutput" not in parsed


def test_launcher_runs_cold_events_in_the_ready_venv(tmp_path: Path, git_project: Path) -> None:
    root, data = tmp_path / "plugin", tmp_path / "data"
    shutil.copytree(REPO / "hooks", root / "hooks")
    (root / "src").symlink_to(REPO / "src")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    python = paths.venv_python(paths.venv_dir(data))
    python.parent.mkdir(parents=True)
    seen = tmp_path / "venv-python-was-used"
    python.write_text(f'#!/bin/sh\ntouch "{seen}"\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    marker = {"fingerprint": bootstrap.fingerprint(root), "python": str(python)}
    store.atomic_write_json(data / "venv.ready.json", marker)
    env = hook_env(CLAUDE_PLUGIN_ROOT=str(root), CLAUDE_PLUGIN_DATA=str(data))
    env.pop("PYTHONPATH")
    argv = [sys.executable, str(root / "hooks" / "run.py"), "PreCompact"]
    payload = make_payload("PreCompact", git_project, trigger="auto")
    assert run_hook("PreCompact", payload, cwd=git_project, env=env, argv=argv)[:3] == (0, None, "")
    assert seen.exists()  # a marker without `abi`/`site` (an older build): the venv's python
    beat = json.loads((git_project / ".ccstate" / "heartbeat" / "PreCompact.json").read_text())
    assert beat["outcome"] == "ok"
    seen.unlink()
    argv[-1] = "PostToolUse"  # hot events never pay for the venv's interpreter
    run_hook(
        "PostToolUse", make_payload("PostToolUse", git_project), cwd=git_project, env=env, argv=argv
    )
    assert not seen.exists()


def test_dependency_lists_follow_pyproject() -> None:
    """doctor checks, and the plugin's venv decision looks for, every runtime dependency."""
    tomllib = pytest.importorskip("tomllib")
    from packaging.requirements import Requirement

    from ccstate.install import doctor

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = [Requirement(spec) for spec in declared]  # those this Python installs
    names = {r.name.lower() for r in wanted if r.marker is None or r.marker.evaluate()}
    assert {d.lower() for d in doctor.DEPENDENCIES.values()} == names
    top_level = {module.split(".")[0] for module in doctor.DEPENDENCIES}
    assert top_level == set(bootstrap.DEPENDENCY_MODULES)
