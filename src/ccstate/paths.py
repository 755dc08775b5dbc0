"""Every filesystem location ccstate uses, resolved in one place.

`CCSTATE_HOME` (env) wins: when set, per-project state lives under
`$CCSTATE_HOME/projects/<slug>` instead of `<project>/.ccstate`.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

# The hot hooks use the `*_str` functions (os.path only): importing pathlib costs a
# PostToolUse hook about a fifth of its budget. Everything else may use the Path API,
# which imports pathlib on first use.

CONFIG_NAME = ".ccstate.yaml"
STATE_DIR_NAME = ".ccstate"
DECISIONS_NAME = "DECISIONS.md"
# A `.ccstate/` alone is no marker (#12): one left in `~` would make every marker-less
# project below it share `~`'s state and DECISIONS.md.
_ROOT_MARKERS = (CONFIG_NAME, ".git")


def find_project_root_str(start: str) -> str:
    """Nearest ancestor of `start` holding `.ccstate.yaml` or `.git`; else `start`."""
    start = os.path.realpath(start)
    candidate = start
    while True:
        if any(os.path.exists(os.path.join(candidate, marker)) for marker in _ROOT_MARKERS):
            return candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return start
        candidate = parent


def is_filesystem_root(project: str) -> bool:
    """No project at all (`/`): hooks write nothing there."""
    return os.path.dirname(project) == project


def find_project_root(start: Path) -> Path:
    from pathlib import Path

    return Path(find_project_root_str(os.fspath(start)))


def project_slug(project: Path | str) -> str:
    """Claude Code's slug for a directory: every non-alphanumeric character becomes '-'."""
    import re  # not at module level: the hooks import this module, and `re` costs ms

    return re.sub(r"[^a-zA-Z0-9]", "-", str(project))[:200]


def state_dir_str(project: str, environ: Mapping[str, str] = os.environ) -> str:
    """Where this project's machine-local state lives."""
    home = environ.get("CCSTATE_HOME")
    if home:
        return os.path.join(home, "projects", project_slug(project))
    return os.path.join(project, STATE_DIR_NAME)


def state_dir(project: Path, environ: Mapping[str, str] = os.environ) -> Path:
    from pathlib import Path

    return Path(state_dir_str(os.fspath(project), environ))


def config_path(project: Path) -> Path:
    return project / CONFIG_NAME


def decisions_path(project: Path) -> Path:
    return project / DECISIONS_NAME


def project_settings_path(project: Path) -> Path:
    """The project's shared Claude Code settings (committed; `ccstate init` writes hooks here)."""
    return project / ".claude" / "settings.json"


def local_settings_path(project: Path) -> Path:
    """The project's per-machine Claude Code settings (not committed)."""
    return project / ".claude" / "settings.local.json"


def user_claude_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """`~/.claude`, or `$CLAUDE_CONFIG_DIR` when Claude Code is pointed elsewhere."""
    from pathlib import Path

    configured = environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured)
    return Path(environ.get("HOME") or Path.home()) / ".claude"


def home_str(environ: Mapping[str, str] = os.environ) -> str:
    return environ.get("HOME") or os.path.expanduser("~")


def user_claude_dir_str(environ: Mapping[str, str] = os.environ) -> str:
    return environ.get("CLAUDE_CONFIG_DIR") or os.path.join(home_str(environ), ".claude")


def claude_json_path_str(environ: Mapping[str, str] = os.environ) -> str:
    """Claude Code's per-user state (`~/.claude.json`; inside $CLAUDE_CONFIG_DIR when set)."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return os.path.join(configured or home_str(environ), ".claude.json")


def auto_memory_path_str(project: str, environ: Mapping[str, str] = os.environ) -> str:
    """Claude Code's auto-memory index for a launch directory (reference §4 slug)."""
    return os.path.join(
        user_claude_dir_str(environ), "projects", project_slug(project), "memory", "MEMORY.md"
    )


def is_within(path: str, folder: str) -> bool:
    """Is `path` the folder itself or inside it (plain string test on normalised paths)?"""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def claude_md_cache_path_str(state: str) -> str:
    return os.path.join(state, "cache", "claude_md.json")


def log_path(state: Path) -> Path:
    return state / "logs" / "hooks.log"


def log_path_str(state: str) -> str:
    return os.path.join(state, "logs", "hooks.log")


def heartbeat_dir(state: Path) -> Path:
    return state / "heartbeat"


def heartbeat_dir_str(state: str) -> str:
    return os.path.join(state, "heartbeat")


def config_path_str(project: str) -> str:
    return os.path.join(project, CONFIG_NAME)


def config_cache_path_str(state: str) -> str:
    return os.path.join(state, "cache", "config.json")


def venv_dir(plugin_data: Path) -> Path:
    return plugin_data / "venv"


def venv_python(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def pending_dir_str(environ: Mapping[str, str] = os.environ) -> str:
    """Where a compaction's reminder waits for the next hook (#26; compaction/pending.py):
    `$CCSTATE_HOME/pending`, else `$XDG_STATE_HOME/ccstate/pending`, else
    `~/.local/state/ccstate/pending`. Outside any project, so a hot hook finds out with one
    stat, before the project is looked up."""
    if environ.get("CCSTATE_HOME"):
        return os.path.join(environ["CCSTATE_HOME"], "pending")
    base = environ.get("XDG_STATE_HOME") or os.path.join(home_str(environ), ".local", "state")
    return os.path.join(base, "ccstate", "pending")


def pending_path_str(session: str, environ: Mapping[str, str] = os.environ) -> str:
    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in session)[:120] or "_"
    return os.path.join(pending_dir_str(environ), name + ".json")


def reminder_waits(session: str, environ: Mapping[str, str] = os.environ) -> bool:
    """Is a compaction's reminder waiting for this session? One stat."""
    return bool(session) and os.path.exists(pending_path_str(session, environ))


def user_cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Machine-local caches that are safe to delete: `$CCSTATE_HOME/cache`, else
    `$XDG_CACHE_HOME/ccstate`, else `~/.cache/ccstate` (`ccstate report`'s scan cache)."""
    from pathlib import Path

    if environ.get("CCSTATE_HOME"):
        return Path(environ["CCSTATE_HOME"]) / "cache"
    base = environ.get("XDG_CACHE_HOME") or os.path.join(home_str(environ), ".cache")
    return Path(base) / "ccstate"
