"""SessionEnd: write the session's handoff and a progress entry, refresh `workflow.md`'s
generated part with the checks sessions ran green (#39.2), index the session for recall
(transcript + git, no LLM), start the detached code indexer (#41), then count what
ccstate kept out for the status line (hooks/stop.py)."""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv
from ccstate.hooks.handoff_writer import write_handoff
from ccstate.hooks.recall_indexer import update_recall
from ccstate.hooks.stop import count_kept
from ccstate.repo import status as repo_status


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    written = write_handoff(inp, env, "SessionEnd")  # first: recall indexes the new handoff
    workflow = _workflow(env)
    indexed = update_recall(inp, env, "SessionEnd")
    code = {"find": repo_status.trigger(env.project, env.state, env.config)}  # detached (#41)
    return HookResult.noop(
        **written, **workflow, **indexed, **code, **_kept(inp, env), reason=inp.reason
    )


def _workflow(env: HookEnv) -> dict[str, object]:
    """`workflow.md`'s generated part from the project's files and the commands that passed
    (handoff/passed.py, which the handoff writer just updated); a failure costs only that."""
    try:
        from ccstate.handoff import passed
        from ccstate.scaffold import refresh

        data = passed.read_passed(env.state)
        learned = refresh.learned_lines(e for rows in data["branches"].values() for e in rows)
        topic_dir = str(env.config.get("lint.topic_dir")).strip("/") or "docs/claude"
        return {"workflow": refresh.refresh(env.project_dir, topic_dir, env.state_dir, learned)}
    except Exception as exc:  # logged in the heartbeat's detail, never raised
        return {"workflow": f"failed: {type(exc).__name__}: {exc}"}


def _kept(inp: HookInput, env: HookEnv) -> dict[str, object]:
    """The status line's kept-out counter, last (the handoff matters more); a failure here
    costs only the counter."""
    try:
        return count_kept(inp, env, "SessionEnd")
    except Exception as exc:  # logged in the heartbeat's detail, never raised
        return {"kept": f"failed: {type(exc).__name__}: {exc}"}
