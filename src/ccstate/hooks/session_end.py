"""SessionEnd: write the session's handoff and a progress entry, then index the session for
recall (transcript + git, no LLM), then count what ccstate kept out for the status line
(hooks/stop.py)."""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv
from ccstate.hooks.handoff_writer import write_handoff
from ccstate.hooks.recall_indexer import update_recall
from ccstate.hooks.stop import count_kept


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    written = write_handoff(inp, env, "SessionEnd")  # first: recall indexes the new handoff
    indexed = update_recall(inp, env, "SessionEnd")
    return HookResult.noop(**written, **indexed, **_kept(inp, env), reason=inp.reason)


def _kept(inp: HookInput, env: HookEnv) -> dict[str, object]:
    """The status line's kept-out counter, last (the handoff matters more); a failure here
    costs only the counter."""
    try:
        return count_kept(inp, env, "SessionEnd")
    except Exception as exc:  # logged in the heartbeat's detail, never raised
        return {"kept": f"failed: {type(exc).__name__}: {exc}"}
