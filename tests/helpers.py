"""Shared test helpers: run a hook as Claude Code does (subprocess, JSON on stdin)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# the public transcripts beside the repo (../shared); tests that need them skip when absent
PUBLIC = REPO.parent / "shared" / "transcripts" / "public"
# Where bytecode goes (scripts/test.sh keeps it out of the tree a plugin install copies):
# pass it on to subprocesses that get a minimal environment.
BYTECODE_ENV = {
    k: os.environ[k] for k in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE") if k in os.environ
}


def hook_env(**extra: str) -> dict[str, str]:
    """The current (isolated) environment, with ccstate importable from src/."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def run_hook(
    event: str,
    payload: dict[str, Any] | str,
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    argv: list[str] | None = None,
) -> tuple[int, Any, str, str]:
    """(returncode, parsed stdout or None, raw stdout, stderr)."""
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    cmd = argv or [sys.executable, "-m", "ccstate.hooks", event]
    proc = subprocess.run(
        cmd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env or hook_env(),
        cwd=cwd,
        timeout=30,
    )
    out = proc.stdout
    parsed = json.loads(out) if out.strip().startswith("{") else None
    return proc.returncode, parsed, out, proc.stderr


def make_payload(event: str, project: Path, **fields: Any) -> dict[str, Any]:
    """A payload with the common fields Claude Code 2.1.328 sends."""
    payload: dict[str, Any] = {
        "session_id": "11111111-2222-3333-4444-555555555555",
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
    }
    payload.update(fields)
    return payload


def read_payload(project: Path, file_path: Path, content: str) -> dict[str, Any]:
    """A PostToolUse payload for a whole-file Read of `file_path`."""
    lines = content.split("\n")
    return make_payload(
        "PostToolUse",
        project,
        tool_name="Read",
        tool_input={"file_path": str(file_path)},
        tool_use_id="toolu_001",
        tool_response={
            "type": "text",
            "file": {
                "filePath": str(file_path),
                "content": content,
                "numLines": len(lines),
                "startLine": 1,
                "totalLines": len(lines),
            },
        },
        duration_ms=3,
    )


# --------------------------------------------------------------------------- install.sh


def venv_unavailable() -> str | None:
    """Why `python -m venv` can't work here, or None when it can."""
    probe = subprocess.run(
        [sys.executable, "-c", "import venv, ensurepip"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["import venv, ensurepip failed"])[-1]
        return f"{sys.executable} -m venv is unavailable: {last}"
    return None


def isolated_env(root: Path) -> dict[str, str]:
    """The caller's environment minus anything that points ccstate or Python elsewhere."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CCSTATE_", "CLAUDE_", "XDG_"))
        and key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}
    }
    env.update(
        HOME=str(root / "home"),
        XDG_DATA_HOME=str(root / "data"),
        CCSTATE_BIN_DIR=str(root / "bin"),
        CCSTATE_PYTHON=sys.executable,
        CCSTATE_VENV_ARGS="--system-site-packages",
    )
    return env


def run_install(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """install.sh as a user runs it (tests/test_install_sh.py, tests/e2e/test_team.py)."""
    return subprocess.run(
        ["bash", str(REPO / "install.sh"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
    )
