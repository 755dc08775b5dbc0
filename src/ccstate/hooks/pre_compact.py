"""PreCompact: write the session's handoff before the context is summarised (#4), index the
session for recall (#17), and print the block the summariser must keep (#26): Claude Code
appends it to the summariser's instructions after the user's own `/compact` ones.

PreCompact can fire 2-4 times for one compaction: the write is idempotent, and identical
state prints identical bytes.
"""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv
from ccstate.hooks.handoff_writer import write_handoff_facts
from ccstate.hooks.recall_indexer import update_recall

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    ledger = _ledger_epoch(inp, env)  # first: forgetting must not depend on the handoff
    written, facts, handoff_path = write_handoff_facts(inp, env, "PreCompact")
    recall = update_recall(inp, env, "PreCompact")  # after the handoff, which it indexes too
    block, steer = _steer(inp, env, facts, handoff_path)
    detail = {**written, **recall, **ledger, **steer, "trigger": inp.trigger}
    return HookResult(compact_instructions=block or None, detail=detail)


def _steer(
    inp: HookInput, env: HookEnv, facts: dict[str, Any], handoff_path: str
) -> tuple[str, dict[str, object]]:
    """The block and what it asked for (recorded for PostCompact); a failure here is logged
    and costs only the block: the handoff and recall are written already."""
    if not env.config.get("compaction.enabled"):
        return "", {"steer": "disabled"}
    if inp.agent_id:  # a subagent's own compaction: its reminder would reach the main thread
        return "", {"steer": "not for a subagent"}
    try:
        from ccstate.compaction import steer
        from ccstate.compaction import store as compaction_store
        from ccstate.decisions import capsule as decisions
        from ccstate.secrets import redact

        active, problem = decisions.active_decisions(env.project, env.state)
        if problem:
            _log(env, f"compaction block: {problem}")
        redactor = redact.for_project(env.project_dir)
        items = [
            (kind, redactor.redact(key), redactor.redact(text))
            for kind, key, text in steer.items_from(facts, active, handoff_path)
        ]
        block, listed = steer.build(items, int(env.config.get("compaction.steer_tokens")))
        compaction_store.ask(
            env.state,
            inp.session_id,
            trigger=inp.trigger or "unknown",
            items=listed,
            handoff=handoff_path,
            custom=bool(inp.custom_instructions),
            now=env.now,
        )
    except Exception as exc:  # never lose the compaction over the block
        _log(env, f"compaction block not printed: {type(exc).__name__}: {exc}")
        return "", {"steer": f"error: {type(exc).__name__}"}
    return block, {"steer_items": len(listed), "steer_chars": len(block)}


def _log(env: HookEnv, line: str) -> None:
    from ccstate import hooklog

    hooklog.append_log(env.state, line, max_bytes=int(env.config.get("log.max_bytes")), now=env.now)


def _ledger_epoch(inp: HookInput, env: HookEnv) -> dict[str, object]:
    """The context is about to be summarised: the read ledger forgets what it held (#3)."""
    from ccstate.ledger import lifecycle as ledger_lifecycle

    return ledger_lifecycle.on_lifecycle(
        env.state,
        "PreCompact",
        inp.session_id,
        None,
        now=env.now,
        store_max_bytes=int(env.config.get("dedupe.store_max_mb")) << 20,
        log_max_bytes=int(env.config.get("log.max_bytes")),
    )
