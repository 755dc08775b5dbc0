"""PreCompact: write the session's handoff before the context is summarised (#4), and index
the session for recall (#17).

PreCompact can fire 2-4 times for one compaction: the write is idempotent.
"""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv
from ccstate.hooks.handoff_writer import write_handoff
from ccstate.hooks.recall_indexer import update_recall


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    ledger = _ledger_epoch(inp, env)  # first: forgetting must not depend on the handoff
    written = write_handoff(inp, env, "PreCompact")
    recall = update_recall(inp, env, "PreCompact")  # after the handoff, which it indexes too
    return HookResult.noop(**written, **recall, **ledger, trigger=inp.trigger)


def _ledger_epoch(inp: HookInput, env: HookEnv) -> dict[str, object]:
    """The context is about to be summarised: the read ledger forgets what it held (#3)."""
    from ccstate.ledger import store as ledger_store

    return ledger_store.on_lifecycle(
        env.state,
        "PreCompact",
        inp.session_id,
        None,
        now=env.now,
        store_max_bytes=int(env.config.get("dedupe.store_max_mb")) << 20,
        log_max_bytes=int(env.config.get("log.max_bytes")),
    )
