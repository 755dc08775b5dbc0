"""The handoff writer as PreCompact and SessionEnd run it (#4): one adapter for both."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ccstate.hookio import HookInput
    from ccstate.hooks import HookEnv


def write_handoff(inp: HookInput, env: HookEnv, event: str) -> dict[str, object]:
    """The handoff writer as PreCompact and SessionEnd run it (#4); heartbeat detail back."""
    return write_handoff_facts(inp, env, event)[0]


def write_handoff_facts(
    inp: HookInput, env: HookEnv, event: str
) -> tuple[dict[str, object], dict[str, Any], str]:
    """(heartbeat detail, what a compaction must keep (handoff/facts.py), the handoff file as
    the model is shown it: relative to the project when inside it; "" when none was written,
    or when it holds nothing the capsule does not say (#42: no pointer to keep then).
    The session's compaction records go into the handoff (#26). The transcript is scanned
    until the hook's deadline for the handoff (#37); where it stopped goes to hooks.log."""
    if not env.config.get("handoff.enabled"):
        return {"handoff": "disabled"}, {}, ""
    import os

    from ccstate.compaction import store as compaction_store
    from ccstate.handoff import store as handoff_store
    from ccstate.hooks import budget

    detail, result = handoff_store.write_for_hook(
        env.project_dir,
        env.state_dir,
        env.config,
        inp.session_id,
        inp.transcript_path,
        event=event,
        now=env.now,
        scan_deadline=budget.deadline(env, event, "handoff"),
        compactions=compaction_store.handoff_entries(env.state, inp.session_id),
    )
    if result.stopped:
        name = os.path.basename(inp.transcript_path)
        budget.note_stopped(
            env,
            event,
            f"handoff {result.stopped} of {name}: it covers the lines before; "
            "the next PreCompact or SessionEnd goes on from there",
        )
        detail["handoff_scan"] = result.stopped
    shown = ""
    if result.path is not None and result.adds:
        rel = os.path.relpath(result.path, env.project)
        shown = str(result.path) if rel.startswith("..") else rel
    return detail, result.facts, shown
