"""The recall index update as PreCompact and SessionEnd run it (#17): one adapter for both."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.hookio import HookInput
    from ccstate.hooks import HookEnv


def update_recall(inp: HookInput, env: HookEnv, event: str) -> dict[str, object]:
    """Index the session at hand by the hook's deadline for recall; heartbeat detail. A source
    the deadline cut short is read on from where it stopped next time, and hooks.log says so."""
    from ccstate.hooks import budget
    from ccstate.recall import update

    detail = update.update_for_hook(
        env.project_dir,
        env.state_dir,
        env.config,
        inp.transcript_path,
        deadline=budget.deadline(env, event, "recall"),
    )
    stopped = detail.get("recall_stopped")
    if isinstance(stopped, list) and stopped:
        shown = "; ".join(str(s) for s in stopped[:3])
        budget.note_stopped(env, event, f"recall index left for the next run: {shown}")
    elif detail.get("recall") == update.NO_TIME:
        budget.note_stopped(env, event, "recall index left for the next run: no time left")
    return detail
