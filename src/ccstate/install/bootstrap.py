"""A private venv for the plugin's cold paths, created once under ${CLAUDE_PLUGIN_DATA}.

Claude Code installs no Python packages for a plugin. The hot hooks run on the
standard library from ${CLAUDE_PLUGIN_ROOT}/src; the CLI and the cold hooks
(SessionEnd, PreCompact: tiktoken, yaml) run in this venv once it
exists. When the interpreter that runs the hooks already has every dependency
(e.g. ccstate was also installed with pip), no venv is built at all. SessionStart
starts the build as a detached one-shot process and returns at once: a flock
makes concurrent sessions build it once, pip is bounded by a timeout, and a
failure leaves a marker whose message tells the user what to run.

Nothing is ever written into ${CLAUDE_PLUGIN_ROOT}: for a plugin installed from a local
clone it is that clone. pip builds in place (build/, *.egg-info), so the builder installs
from a copy of the plugin's package sources under ${CLAUDE_PLUGIN_DATA}.

`python -m ccstate.install.bootstrap PLUGIN_ROOT PLUGIN_DATA` is that one-shot process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ccstate import paths, store

PIP_TIMEOUT_S = 600
# What pip needs to build ccstate (pyproject.toml names README.md as the long description).
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE")
RETRY_FAILED_AFTER_S = 86_400  # a failed build is retried a day later (or after an update)
Status = Literal["ready", "system", "building", "failed", "missing"]
# Import names of the dependencies the cold paths need (see pyproject.toml).
DEPENDENCY_MODULES = (
    "click",
    "yaml",
    "tiktoken",
    "tiktoken_ext",
    "filelock",
    "rich",
    "orjson",
    "detect_secrets",
    "ahocorasick_rs",
    "tree_sitter",  # the code index (#41); its grammar wheels below
    "tree_sitter_python",
    "tree_sitter_javascript",
    "tree_sitter_typescript",
    "tree_sitter_rust",
    "tree_sitter_go",
    "tree_sitter_java",
    "tree_sitter_c",
    "tree_sitter_cpp",
    "tree_sitter_ruby",
    "tree_sitter_elixir",
    "tree_sitter_bash",
    "tree_sitter_lua",
) + (("tomli",) if sys.version_info < (3, 11) else ())  # tomllib's own code, for 3.10


@dataclass(frozen=True)
class VenvState:
    status: Status
    python: Path | None = None
    message: str = ""


def fingerprint(plugin_root: Path) -> str:
    """What the venv was built from: pyproject.toml and the interpreter's version."""
    try:
        data = (plugin_root / "pyproject.toml").read_bytes()
    except OSError:
        data = b""
    version = ".".join(map(str, sys.version_info[:2]))
    return hashlib.sha256(data + version.encode()).hexdigest()[:16]


def check(plugin_root: Path, plugin_data: Path, now: float | None = None) -> VenvState:
    """Is the venv built for this plugin version? Standard library, a few stats."""
    venv = paths.venv_dir(plugin_data)
    marker = _read(plugin_data / "venv.ready.json")
    python = paths.venv_python(venv)
    if marker.get("fingerprint") == fingerprint(plugin_root) and python.exists():
        return VenvState("ready", python)
    if dependencies_present():
        return VenvState("system")  # this interpreter already has them: no venv needed
    failed = _read(plugin_data / "venv.failed.json")
    age = (time.time() if now is None else now) - float(str(failed.get("time", 0)))
    if failed.get("fingerprint") == fingerprint(plugin_root) and age < RETRY_FAILED_AFTER_S:
        return VenvState("failed", message=str(failed.get("message", "")))
    if _locked(plugin_data / "venv.build"):
        return VenvState("building")
    return VenvState("missing")


def dependencies_present() -> bool:
    """Can the interpreter running this import every dependency? (find_spec: no imports.)"""
    from importlib.util import find_spec

    try:
        return all(find_spec(name) is not None for name in DEPENDENCY_MODULES)
    except (ImportError, ValueError):
        return False


def start_build(plugin_root: Path, plugin_data: Path) -> None:
    """Spawn the one-shot builder, detached, and return at once."""
    plugin_data.mkdir(parents=True, exist_ok=True)
    log = (plugin_data / "venv.build.log").open("ab")
    env = dict(os.environ, PYTHONPATH=str(plugin_root / "src"))
    env.setdefault("PYTHONPYCACHEPREFIX", str(plugin_data / "pycache"))  # not in the plugin root
    subprocess.Popen(
        [sys.executable, "-m", "ccstate.install.bootstrap", str(plugin_root), str(plugin_data)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    log.close()


def build(plugin_root: Path, plugin_data: Path, timeout: float = PIP_TIMEOUT_S) -> VenvState:
    """Create the venv and install the plugin into it; one builder at a time."""
    from ccstate.errors import StateError

    try:
        with store.file_lock(plugin_data / "venv.build", timeout=0):
            state = check(plugin_root, plugin_data)
            if state.status == "ready":
                return state
            return _build_locked(plugin_root, plugin_data, timeout)
    except StateError:
        return VenvState("building")


def _build_locked(plugin_root: Path, plugin_data: Path, timeout: float) -> VenvState:
    venv = paths.venv_dir(plugin_data)
    shutil.rmtree(venv, ignore_errors=True)
    for name in ("venv.ready.json", "venv.failed.json"):
        (plugin_data / name).unlink(missing_ok=True)
    python = paths.venv_python(venv)
    stage = plugin_data / "venv.stage"
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(stage),
        ],
    ]
    deadline = time.monotonic() + timeout
    try:
        stage_sources(plugin_root, stage)
        for cmd in steps:
            error = _run(cmd, deadline)
            if error:
                return _record_failure(plugin_root, plugin_data, error)
    except OSError as exc:
        return _record_failure(plugin_root, plugin_data, f"copying the sources: {exc}")
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    store.atomic_write_json(plugin_data / "venv.ready.json", ready_marker(plugin_root, python))
    return VenvState("ready", python)


# What the launcher compares with its own interpreter before it imports the venv's packages
# into itself (hooks/run.py `_ABI`): same implementation, version and ABI flags.
ABI_EXPR = "sys.implementation.cache_tag + '-' + getattr(sys, 'abiflags', '')"
_SITE_CODE = (
    "import sys, sysconfig; paths = sysconfig.get_paths();"
    f"print({ABI_EXPR}); print(paths['purelib']); print(paths['platlib'])"
)


def ready_marker(plugin_root: Path, python: Path) -> dict[str, object]:
    """`venv.ready.json`: what the venv was built from (`fingerprint`), its interpreter, and
    what lets the launcher run cold events in its own process with the venv's packages on
    `sys.path` instead of starting that interpreter (#14): its ABI, its site-packages and a
    cheap stamp of pyproject.toml (crc32, no hashlib). Without them (the interpreter does not
    answer) the launcher starts the venv's interpreter as before."""
    import zlib

    marker: dict[str, object] = {"fingerprint": fingerprint(plugin_root), "python": str(python)}
    try:
        proc = subprocess.run(
            [str(python), "-c", _SITE_CODE], capture_output=True, text=True, timeout=60
        )
        data = (plugin_root / "pyproject.toml").read_bytes()
    except (OSError, subprocess.SubprocessError):
        return marker
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != 3:
        return marker
    marker["abi"] = lines[0]
    marker["site"] = list(dict.fromkeys(lines[1:]))  # purelib and platlib, once each
    marker["pyproject_crc"] = zlib.crc32(data)
    return marker


def stage_sources(plugin_root: Path, stage: Path) -> None:
    """Copy what pip builds ccstate from (no caches, no build output) into `stage`."""
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    for name in PACKAGE_FILES:
        if (plugin_root / name).is_file():
            shutil.copy2(plugin_root / name, stage / name)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    shutil.copytree(plugin_root / "src", stage / "src", ignore=skip)


def _run(cmd: list[str], deadline: float) -> str:
    remaining = max(1.0, deadline - time.monotonic())
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=remaining, check=False)
    except subprocess.TimeoutExpired:
        return f"`{' '.join(cmd[:4])} …` took longer than {PIP_TIMEOUT_S}s"
    except OSError as exc:
        return f"`{cmd[0]}` could not run: {exc.strerror}"
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"`{' '.join(cmd[:4])} …` exited {proc.returncode}: {tail[0]}"
    return ""


def _record_failure(plugin_root: Path, plugin_data: Path, error: str) -> VenvState:
    message = (
        f"ccstate could not set up its Python environment ({error}). "
        f"Run: python3 -m pip install --user '{plugin_root}' — or install.sh from the ccstate "
        f"repository — then restart the session. Details: {plugin_data / 'venv.build.log'}"
    )
    store.atomic_write_json(
        plugin_data / "venv.failed.json",
        {"fingerprint": fingerprint(plugin_root), "message": message, "time": time.time()},
    )
    return VenvState("failed", message=message)


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _locked(path: Path) -> bool:
    from ccstate.errors import StateError

    if not path.with_name(path.name + ".lock").exists():
        return False
    try:
        with store.file_lock(path, timeout=0):
            return False
    except StateError:
        return True


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    state = build(Path(args[0]), Path(args[1]))
    print(f"ccstate bootstrap: {state.status} {state.message}".rstrip(), flush=True)
    return 0 if state.status in ("ready", "building") else 1


if __name__ == "__main__":
    sys.exit(main())
