"""The handoff writer as PreCompact and SessionEnd run it (#4): one adapter for both."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.hookio import HookInput
    from ccstate.hooks import HookEnv


def write_handoff(inp: HookInput, env: HookEnv, event: str) -> dict[str, object]:
    """The handoff writer as PreCompact and SessionEnd run it (#4); heartbeat detail back."""
    if not env.config.get("handoff.enabled"):
        return {"handoff": "disabled"}
    from ccstate.handoff import store as handoff_store

    return handoff_store.write_for_hook(
        env.project_dir,
        env.state_dir,
        env.config,
        inp.session_id,
        inp.transcript_path,
        event=event,
        now=env.now,
    )
