"""SessionStart: inject the capsule; in plugin mode, make sure the private venv exists."""

from __future__ import annotations

from ccstate import capsule, claude_md, decisions, handoff
from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    notice = _venv_notice(env)
    if not env.config.get("capsule.enabled"):
        return HookResult(system_message=notice or None, detail={"source": inp.source})
    sections = [
        handoff.capsule_section(env.project_dir, env.state_dir, env.config, inp.source),
        decisions.capsule_section(env.project_dir, env.config),
        claude_md.capsule_section(env.project_dir, env.state_dir, env.config),
    ]
    budget = int(env.config.get("capsule.budget_tokens"))
    text = capsule.render_capsule(env.project_dir.name, sections, budget)
    return HookResult(
        additional_context=text,
        system_message=notice or None,
        detail={"source": inp.source, "capsule_chars": len(text)},
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
