"""SessionStart: inject the capsule; in plugin mode, make sure the private venv exists."""

from __future__ import annotations

import os

from ccstate import capsule, paths
from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    notice = _venv_notice(env)
    if not env.config.get("capsule.enabled"):
        return HookResult(system_message=notice or None, detail={"source": inp.source})
    text = capsule.render_capsule(_facts(env))
    return HookResult(
        additional_context=text,
        system_message=notice or None,
        detail={"source": inp.source, "capsule_chars": len(text)},
    )


def _facts(env: HookEnv) -> capsule.CapsuleFacts:
    decisions = paths.decisions_path(env.project_dir)
    try:
        state_rel = os.path.relpath(env.state_dir, env.project_dir)
    except ValueError:  # another drive on Windows
        state_rel = str(env.state_dir)
    return capsule.CapsuleFacts(
        project_name=env.project_dir.name,
        state_rel=state_rel,
        decisions_file=decisions.name if decisions.is_file() else None,
    )


def _venv_notice(env: HookEnv) -> str:
    """Plugin mode only: start the venv build once; relay a failure to the user."""
    if env.plugin_root is None or env.plugin_data is None:
        return ""
    from ccstate import bootstrap

    state = bootstrap.check(env.plugin_root, env.plugin_data)
    if state.status == "missing":
        bootstrap.start_build(env.plugin_root, env.plugin_data)
    return state.message if state.status == "failed" else ""
