"""SessionEnd: write the session's handoff and a progress entry (transcript + git, no LLM)."""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    return HookResult.noop(**_handoff(inp, env), reason=inp.reason)


def _handoff(inp: HookInput, env: HookEnv) -> dict[str, object]:
    if not env.config.get("handoff.enabled"):
        return {"handoff": "disabled"}
    from ccstate import handoff_store

    return handoff_store.write_for_hook(
        env.project_dir,
        env.state_dir,
        env.config,
        inp.session_id,
        inp.transcript_path,
        event="SessionEnd",
        now=env.now,
    )
