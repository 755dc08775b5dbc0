"""The recall index update as PreCompact and SessionEnd run it (#17): one adapter for both."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.hookio import HookInput
    from ccstate.hooks import HookEnv


def update_recall(inp: HookInput, env: HookEnv, event: str) -> dict[str, object]:
    """Index the session at hand within what is left of the hook's budget; heartbeat detail."""
    from ccstate import wiring
    from ccstate.recall import update

    timeout = next(t for e, _m, t in wiring.HOOK_SPECS if e == event)
    return update.update_for_hook(
        env.project_dir,
        env.state_dir,
        env.config,
        inp.transcript_path,
        started=env.now,
        timeout=float(timeout),
    )
