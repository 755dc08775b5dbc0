"""SessionEnd: write the session's handoff and a progress entry, then index the session for
recall (transcript + git, no LLM)."""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv
from ccstate.hooks.handoff_writer import write_handoff
from ccstate.hooks.recall_indexer import update_recall


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    written = write_handoff(inp, env, "SessionEnd")  # first: recall indexes the new handoff
    return HookResult.noop(**written, **update_recall(inp, env, "SessionEnd"), reason=inp.reason)
