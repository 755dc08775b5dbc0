"""Every filesystem location ccstate uses, resolved in one place.

`CCSTATE_HOME` (env) wins: when set, per-project state lives under
`$CCSTATE_HOME/projects/<slug>` instead of `<project>/.ccstate`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

CONFIG_NAME = ".ccstate.yaml"
STATE_DIR_NAME = ".ccstate"
DECISIONS_NAME = "DECISIONS.md"
_ROOT_MARKERS = (CONFIG_NAME, STATE_DIR_NAME, ".git")


def find_project_root(start: Path) -> Path:
    """Nearest ancestor of `start` holding `.ccstate.yaml`, `.ccstate/` or `.git`; else `start`."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if any((candidate / marker).exists() for marker in _ROOT_MARKERS):
            return candidate
    return start


def project_slug(project: Path) -> str:
    """Claude Code's slug for a directory: every non-alphanumeric character becomes '-'."""
    return re.sub(r"[^a-zA-Z0-9]", "-", str(project))[:200]


def state_dir(project: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """Where this project's machine-local state lives."""
    home = environ.get("CCSTATE_HOME")
    if home:
        return Path(home) / "projects" / project_slug(project)
    return project / STATE_DIR_NAME


def config_path(project: Path) -> Path:
    return project / CONFIG_NAME


def decisions_path(project: Path) -> Path:
    return project / DECISIONS_NAME


def project_settings_path(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def user_claude_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """`~/.claude`, or `$CLAUDE_CONFIG_DIR` when Claude Code is pointed elsewhere."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured)
    return Path(environ.get("HOME") or Path.home()) / ".claude"


def log_path(state: Path) -> Path:
    return state / "logs" / "hooks.log"


def heartbeat_dir(state: Path) -> Path:
    return state / "heartbeat"


def config_cache_path(state: Path) -> Path:
    return state / "cache" / "config.json"


def venv_dir(plugin_data: Path) -> Path:
    return plugin_data / "venv"


def venv_python(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"
