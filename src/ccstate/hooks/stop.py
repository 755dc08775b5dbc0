"""Stop: count what ccstate kept out of the session so far, as Claude Code applied it, into
the counter the status line reads (moments/kept.py; docs/MOMENTS.md).

Registered `async`: Claude Code does not wait for it, so a turn never ends later for it (a
headless `claude -p` cancels it as it exits: SessionEnd counts too, hooks/session_end.py).
A turn whose new lines hold no ccstate mark adds nothing to the figure: the counter's covered
bytes move on without a scan (`moments.kept.advanced`); otherwise the session's files are
scanned again whole (about 12 ms a MB with orjson). The figure is `report.applied`'s, the one
`ccstate report` credits, over the main transcript and its subagents'. Prints nothing.
"""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    return HookResult.noop(**count_kept(inp, env, "Stop"))


def count_kept(inp: HookInput, env: HookEnv, event: str) -> dict[str, object]:
    """Bring the session's counter up to date (also at SessionEnd: a headless `claude -p`
    exits before an async Stop hook is done, and Claude Code cancels it); what was done, for
    the heartbeat. A scan the hook's deadline stops saves nothing (the counter keeps its last
    whole figure) and says so in hooks.log; the next run scans again (#37)."""
    if not env.config.get("moments.statusline.enabled"):
        return {"kept": "disabled"}
    main = inp.transcript_path
    if not main:
        return {"kept": "no transcript"}
    from ccstate.moments import kept

    if kept.counter_path(env.state, inp.session_id) is None:
        return {"kept": "session id names no file"}
    data = kept.load(env.state, inp.session_id)
    if kept.is_current(data, main):
        return {"kept": "current"}
    moved, before = kept.advanced(data, main), kept.figure(data)
    if moved is not None and before is not None:  # nothing new of ccstate's: no scan
        kept.save(env.state, inp.session_id, main, before, moved, env.now)
        return {"kept": before[0], "scan": "none: no ccstate mark since"}
    from ccstate.hooks import budget
    from ccstate.report.applied import session_kept

    found = session_kept(kept.session_files(main), budget.deadline(env, event, "kept"))
    if found.stopped:
        budget.note_stopped(
            env, event, f"kept-out count {found.stopped}: not saved; the next Stop counts again"
        )
        return {"kept": f"stopped: {found.stopped}"}
    if not found.covered:
        return {"kept": "transcript not readable"}
    figure = (found.tokens, found.saved_chars, found.replacements)
    kept.save(env.state, inp.session_id, main, figure, found.covered, env.now)
    return {"kept": found.tokens, "replacements": found.replacements}
