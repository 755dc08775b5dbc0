"""SessionEnd: write the session's handoff and a progress entry (transcript + git, no LLM)."""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv
from ccstate.hooks.handoff_writer import write_handoff


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    return HookResult.noop(**write_handoff(inp, env, "SessionEnd"), reason=inp.reason)
