"""UserPromptSubmit: hand the model the reminder a compaction left (#26), once.

The guard calls this only when a reminder waits for the session (one stat,
compaction/pending.py); otherwise the hook exits before anything else is loaded. Standard
library only: it runs at every prompt.
"""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    if inp.agent_id:
        return HookResult.noop(reminder="not for a subagent")
    from ccstate.compaction import pending

    line = pending.deliver(inp.session_id, env.environ, "UserPromptSubmit")
    if not line:
        return HookResult.noop(reminder="none")
    return HookResult(additional_context=line, detail={"reminder": "delivered"})
