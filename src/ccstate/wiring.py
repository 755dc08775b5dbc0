"""Which hooks ccstate registers, for the plugin (hooks/hooks.json) and for a
project's `.claude/settings.json` (written by `ccstate init`). One table, two renderings.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ccstate import paths

# event, matcher (None = every source/tool), timeout in seconds.
# SessionEnd gets 1.5 s unless a timeout is set (at most 60 s): the handoff writer needs more.
# PostToolUse's matcher is a regular expression (it names MCP tools by their prefix), so it is
# anchored: Claude Code searches an unanchored one anywhere in the tool name (reference §2.2).
POST_TOOL_USE_TOOLS = "Read|Edit|MultiEdit|Write|NotebookEdit|Bash|Grep|Glob|WebFetch|mcp__.*"
HOOK_SPECS: tuple[tuple[str, str | None, int], ...] = (
    ("SessionStart", None, 15),
    ("SessionEnd", None, 30),
    ("PreCompact", None, 30),
    ("PreToolUse", "Read", 10),
    ("PostToolUse", f"^({POST_TOOL_USE_TOOLS})$", 10),
)
PLUGIN_COMMAND = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/run.py" '
MARKERS = ("ccstate.hooks", "ccstate-hook", "hooks/run.py")
PLUGIN_NAME = "ccstate"


def plugin_hooks() -> dict[str, Any]:
    """The content of the plugin's hooks/hooks.json."""
    return {
        "description": "ccstate: keeps project state outside the context window "
        "(capsule, handoff, read ledger).",
        "hooks": {
            event: [_group(matcher, PLUGIN_COMMAND + event, timeout)]
            for event, matcher, timeout in HOOK_SPECS
        },
    }


def project_command(python: str, event: str) -> str:
    """The settings.json command, absolute so it works outside any venv.

    The `ccstate-hook` console script installed beside `python` when there is one: it skips
    `-m`'s runpy machinery, a few ms on every tool call; else `python -m ccstate.hooks`.
    """
    folder = os.path.dirname(python)
    script = os.path.join(folder, "ccstate-hook.exe" if os.name == "nt" else "ccstate-hook")
    if folder and os.path.isfile(script):
        return f"{shlex.quote(script)} {event}"
    return f"{shlex.quote(python)} -m ccstate.hooks {event}"


def merge_settings(settings: Mapping[str, Any], python: str) -> dict[str, Any]:
    """`settings` with ccstate's hooks (re)placed; every other key and hook kept as is."""
    merged = copy.deepcopy(dict(settings))
    hooks = merged.get("hooks")
    if not isinstance(hooks, dict):
        hooks = {}
    for event, matcher, timeout in HOOK_SPECS:
        groups = [g for g in _without_ours(hooks.get(event)) if g.get("hooks")]
        groups.append(_group(matcher, project_command(python, event), timeout))
        hooks[event] = groups
    merged["hooks"] = hooks
    return merged


def remove_ours(settings: Mapping[str, Any]) -> dict[str, Any]:
    """`settings` without ccstate's hooks (used when the plugin already provides them)."""
    merged = copy.deepcopy(dict(settings))
    hooks = merged.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            groups = [g for g in _without_ours(hooks[event]) if g.get("hooks")]
            if groups:
                hooks[event] = groups
            else:
                del hooks[event]
        if not hooks:
            del merged["hooks"]
    return merged


def wired_events(settings: Mapping[str, Any]) -> set[str]:
    """Events for which `settings` runs a ccstate hook."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return set()
    return {
        event
        for event, groups in hooks.items()
        if isinstance(groups, list) and any(_is_ours(h) for g in groups for h in _entries(g))
    }


def plugin_enabled(project: Path, environ: Mapping[str, str]) -> str | None:
    """The settings file that enables the ccstate plugin, if any (user, project or local)."""
    candidates = [
        paths.user_claude_dir(environ) / "settings.json",
        paths.project_settings_path(project),
        project / ".claude" / "settings.local.json",
    ]
    for path in candidates:
        enabled = read_settings(path).get("enabledPlugins")
        if isinstance(enabled, dict) and any(
            key.split("@", 1)[0] == PLUGIN_NAME and value for key, value in enabled.items()
        ):
            return str(path)
    return None


def read_settings(path: Path) -> dict[str, Any]:
    """A settings file as a dict; {} when absent. ValueError when it is not a JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    data = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object at the top level")
    return data


def _group(matcher: str | None, command: str, timeout: int) -> dict[str, Any]:
    group: dict[str, Any] = {}
    if matcher:
        group["matcher"] = matcher
    group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
    return group


def _without_ours(groups: Any) -> list[dict[str, Any]]:
    if not isinstance(groups, list):
        return []
    kept = []
    for group in groups:
        if not isinstance(group, dict):
            continue
        entries = [h for h in _entries(group) if not _is_ours(h)]
        kept.append({**group, "hooks": entries})
    return kept


def _entries(group: Any) -> list[Any]:
    entries = group.get("hooks") if isinstance(group, dict) else None
    return entries if isinstance(entries, list) else []


def _is_ours(entry: Any) -> bool:
    command = entry.get("command") if isinstance(entry, dict) else None
    return isinstance(command, str) and any(marker in command for marker in MARKERS)
