"""Which hooks ccstate registers, for the plugin (hooks/hooks.json) and for a
project's `.claude/settings.json` (written by `ccstate init`). One table, two renderings.

Project hooks are committed with the project, so their commands hold no machine path:
each runs `ccstate-hook` from PATH (install.sh links it), and where it is missing the
command exits 0 in silence, except SessionStart, which shows the user one message
saying what to install (reference §2.6: `systemMessage` never reaches the model).
"""

from __future__ import annotations

import copy
import json
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
# Never add PreSkillShellCommand while TESTED_CLAUDE[0] < 2.1.332: settings naming it make
# 2.1.331 and older open a dialog at start (reference §9; tests/install/test_wiring.py keeps
# it out).
# PreToolUse is not registered (#14): it only wrote a heartbeat, and cost every Read a Python
# start. `merge_settings` takes an older ccstate's PreToolUse entry out of a settings file.
# PostCompact and UserPromptSubmit (#26) are in TESTED_CLAUDE[0]'s event list (2.1.328; its
# binary's hook-event names, checked by tests/e2e/test_compaction.py).
# PreModelSwitch (#25): the switch warning; Claude Code waits for it before `/model` switches.
HOOK_SPECS: tuple[tuple[str, str | None, int], ...] = (
    ("SessionStart", None, 15),
    ("SessionEnd", None, 30),
    ("PreCompact", None, 30),
    ("PostCompact", None, 30),
    ("PostToolUse", f"^({POST_TOOL_USE_TOOLS})$", 10),
    ("UserPromptSubmit", None, 10),
    ("PreModelSwitch", None, 10),
    ("Stop", None, 30),  # the status line's kept-out counter (hooks/stop.py)
)
# Events whose hook runs in the background (`async`, 2.1.328's hook schema): Claude Code does
# not wait for it, and it has nothing to say.
ASYNC_EVENTS = frozenset({"Stop"})
# The hook events each supported Claude Code knows, as its binary lists them (the zod enum of
# event names; tests/install/test_wiring.py re-reads it from the pinned binaries when they
# are there).
# Nothing is registered for an event the oldest supported version does not know: settings
# naming an event a version does not know can open a dialog at start (reference §9).
CLAUDE_EVENTS: dict[str, tuple[str, ...]] = {
    "2.1.328": (
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Notification",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "SessionStart",
        "SessionEnd",
        "Stop",
        "StopFailure",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
        "PreModelSwitch",
        "PostModelSwitch",
        "PermissionRequest",
        "PermissionDenied",
        "Setup",
        "TeammateIdle",
        "TaskCreated",
        "TaskCompleted",
        "Elicitation",
        "ElicitationResult",
        "ConfigChange",
        "WorktreeCreate",
        "WorktreeRemove",
        "InstructionsLoaded",
        "CwdChanged",
        "FileChanged",
        "DirectoryAdded",
        "MessageDisplay",
    ),
}
CLAUDE_EVENTS["2.1.332"] = (*CLAUDE_EVENTS["2.1.328"], "PreSkillShellCommand")
PLUGIN_COMMAND = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/run.py" '
HOOK_SCRIPT = "ccstate-hook"  # src/bin/ccstate-hook; install.sh links it into a bin dir on PATH
MARKERS = ("ccstate.hooks", HOOK_SCRIPT, "hooks/run.py")
NOT_INSTALLED = (
    "ccstate: this project's hooks (.claude/settings.json) run `ccstate-hook`, which is not "
    "on PATH here, so ccstate is off in this session. Install it: `bash install.sh` in a "
    "clone of ccstate (or add the bin dir of an existing install to PATH)."
)
PLUGIN_NAME = "ccstate"
# The status line (docs/MOMENTS.md). Plugins cannot declare one, so `ccstate init --statusline`
# writes it into the project's or the user's settings, only where none is set. Like the hooks
# it runs a command from PATH (install.sh links it), so a committed file holds no machine path.
STATUSLINE_SCRIPT = "ccstate-statusline"
STATUSLINE_MARKERS = (STATUSLINE_SCRIPT, "ccstate statusline", "ccstate.moments.statusline")
# Claude Code re-runs the line after each assistant message, at `prompt_cache.expires_at`, and
# every `refreshInterval` seconds: without the last, the countdown stops while the session idles.
STATUSLINE_REFRESH_S = 5
STATUSLINE_MISSING = f"{STATUSLINE_SCRIPT}: not on PATH (bash install.sh)"
# The Claude Code versions the e2e suite runs on: the oldest supported and the newest pinned.
# scripts/test.sh installs both, tests/e2e runs on each, `ccstate doctor` names the range.
TESTED_CLAUDE = ("2.1.328", "2.1.332")
# The plugin's one skill (skills/ccstate/SKILL.md; tests/install/test_wiring.py keeps the two
# equal), listed to the model in every request as `- ccstate:ccstate: <this>` (#43).
SKILL_DESCRIPTION = (
    "`ccstate recall KEYWORDS` searches past sessions before you redo work; `ccstate decide` "
    "records a settled choice (cite Dn); `ccstate handoff note` leaves next steps."
)


def plugin_hooks() -> dict[str, Any]:
    """The content of the plugin's hooks/hooks.json."""
    return {
        "description": "ccstate: keeps project state outside the context window "
        "(capsule, handoff, read ledger).",
        "hooks": {
            event: [_group(matcher, PLUGIN_COMMAND + event, timeout, event in ASYNC_EVENTS)]
            for event, matcher, timeout in HOOK_SPECS
        },
    }


def project_command(event: str) -> str:
    """The settings.json command for `event`: the same on every machine (no path in it).

    Claude Code runs it with /bin/sh. `exec` hands the hook's stdin and exit status to
    `ccstate-hook`; without it, SessionStart prints the one message, every other event
    exits 0 with no output, so a teammate without ccstate sees no failing hook.
    """
    found = f"command -v {HOOK_SCRIPT} >/dev/null 2>&1 && exec {HOOK_SCRIPT} {event}"
    if event == "SessionStart":
        message = json.dumps({"systemMessage": NOT_INSTALLED})
        return f"{found}; printf '%s\\n' {shlex.quote(message)}"
    return f"{found}; exit 0"


def merge_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """`settings` with ccstate's hooks (re)placed, and taken out of the events ccstate no
    longer registers; every other key and hook kept as is."""
    merged = copy.deepcopy(dict(settings))
    hooks = merged.get("hooks")
    if not isinstance(hooks, dict):
        hooks = {}
    wanted = {event for event, _m, _t in HOOK_SPECS}
    for event in [e for e in hooks if e not in wanted and e in wired_events(merged)]:
        groups = [g for g in _without_ours(hooks[event]) if g.get("hooks")]  # PreToolUse (#14)
        if groups:
            hooks[event] = groups
        else:
            del hooks[event]
    for event, matcher, timeout in HOOK_SPECS:
        groups = [g for g in _without_ours(hooks.get(event)) if g.get("hooks")]
        groups.append(_group(matcher, project_command(event), timeout, event in ASYNC_EVENTS))
        hooks[event] = groups
    merged["hooks"] = hooks
    return merged


def remove_ours(settings: Mapping[str, Any]) -> dict[str, Any]:
    """`settings` without ccstate's hooks (`init --remove`, or when the plugin provides them);
    every other key and hook kept, events left empty dropped."""
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


def statusline_command() -> str:
    """The statusLine command: `ccstate-statusline` from PATH, or one line saying it is not
    there (Claude Code runs it with a shell and passes the JSON on stdin; `exec` hands it on)."""
    found = f"command -v {STATUSLINE_SCRIPT} >/dev/null 2>&1 && exec {STATUSLINE_SCRIPT}"
    return f"{found}; echo {shlex.quote(STATUSLINE_MISSING)}"


def statusline_entry(refresh: int = STATUSLINE_REFRESH_S) -> dict[str, Any]:
    return {"type": "command", "command": statusline_command(), "refreshInterval": refresh}


def is_our_statusline(value: Any) -> bool:
    command = value.get("command") if isinstance(value, dict) else None
    return isinstance(command, str) and any(m in command for m in STATUSLINE_MARKERS)


def with_statusline(
    settings: Mapping[str, Any], refresh: int = STATUSLINE_REFRESH_S
) -> tuple[dict[str, Any], str | None]:
    """(`settings` with ccstate's status line, the command of someone else's status line that
    is kept instead, or None). Every other key is kept as is."""
    merged = copy.deepcopy(dict(settings))
    current = merged.get("statusLine")
    if current is not None and not is_our_statusline(current):
        command = current.get("command") if isinstance(current, dict) else None
        return merged, command if isinstance(command, str) else json.dumps(current)
    merged["statusLine"] = statusline_entry(refresh)
    return merged, None


def without_statusline(settings: Mapping[str, Any]) -> dict[str, Any]:
    """`settings` without ccstate's status line (someone else's is kept)."""
    merged = copy.deepcopy(dict(settings))
    if is_our_statusline(merged.get("statusLine")):
        del merged["statusLine"]
    return merged


def statusline_addition(command: str) -> list[str]:
    """How to add ccstate's line to an existing status-line command: a shell command that runs
    both on the same stdin, or, for ccstatusline, its custom-command widget."""
    segment = f"{STATUSLINE_SCRIPT} --segment"
    if "ccstatusline" in command:
        return [
            f"in ccstatusline's settings (npx ccstatusline), add a Custom Command widget "
            f"running `{segment}`: it gets the same JSON and prints ccstate's part"
        ]
    both = (
        f"input=$(cat); printf '%s · %s\\n' \"$(printf '%s' \"$input\" | {command})\" "
        f'"$(printf \'%s\' "$input" | {segment})"'
    )
    return ["or set statusLine.command to run both on the same stdin:", f"  {both}"]


def plugin_enabled(project: Path, environ: Mapping[str, str]) -> str | None:
    """The settings file that enables the ccstate plugin, if any (user, project or local)."""
    candidates = [
        paths.user_claude_dir(environ) / "settings.json",
        paths.project_settings_path(project),
        paths.local_settings_path(project),
    ]
    for path in candidates:
        enabled = read_settings(path).get("enabledPlugins")
        if isinstance(enabled, dict) and any(
            key.split("@", 1)[0] == PLUGIN_NAME and value for key, value in enabled.items()
        ):
            return str(path)
    return None


def hook_on_path(environ: Mapping[str, str]) -> str | None:
    """Where the project hooks' `ccstate-hook` resolves with this PATH; None when it does not."""
    import shutil

    return shutil.which(HOOK_SCRIPT, path=environ.get("PATH"))


def read_settings(path: Path) -> dict[str, Any]:
    """A settings file as a dict; {} when absent. ValueError (naming the file) when it is not
    a JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        where = getattr(exc, "lineno", None)
        at = f" at line {where}, column {getattr(exc, 'colno', '?')}" if where else ""
        reason = getattr(exc, "msg", str(exc))
        raise ValueError(f"{path}: not valid JSON ({reason}{at})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object at the top level")
    return data


def _group(
    matcher: str | None, command: str, timeout: int, background: bool = False
) -> dict[str, Any]:
    group: dict[str, Any] = {}
    if matcher:
        group["matcher"] = matcher
    entry: dict[str, Any] = {"type": "command", "command": command, "timeout": timeout}
    if background:
        entry["async"] = True
    group["hooks"] = [entry]
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
