"""What a session-boundary hook may spend, and each step's share of it (#37).

Claude Code kills a hook at its timeout (`wiring.HOOK_SPECS`: 15 s for SessionStart, 30 s for
PreCompact, SessionEnd and Stop). Its work must end before that on any transcript, however
malformed, long or still growing, so every step that reads one gets a deadline: the hook's
budget (`hooks.budget_seconds`, else the timeout less `MARGIN` for the interpreter's start,
the heartbeat and the exit; less when the plugin launcher runs it in an interpreter it kills
sooner) times the step's share, counted from the hook's start (`HookEnv.begun`). A step that
runs long so leaves the later ones their time, and the readers check the deadline as bytes
and lines go by, not only per record. What a step did not reach is left for the next run and
said in hooks.log (`note_stopped`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.hooks import HookEnv

MARGIN = 5.0  # seconds of the timeout kept for the interpreter, the heartbeat and the exit
LAUNCHER_BUDGET = "CCSTATE_HOOK_BUDGET_S"  # set by the plugin launcher for its venv's interpreter
# The share of its budget by which a hook's step is done, counted from the hook's start, in
# the order the hook runs them: the handoff first (it matters most), the recall index, the
# status line's kept-out counter. A step not listed has the whole budget.
SHARES = {
    ("PreCompact", "handoff"): 0.6,
    ("PreCompact", "recall"): 0.9,
    ("SessionEnd", "handoff"): 0.5,
    ("SessionEnd", "recall"): 0.8,
}


def seconds(env: HookEnv, event: str) -> float:
    """The hook's budget in seconds: `hooks.budget_seconds` when set, else its timeout less
    `MARGIN` (at least a second); never more than the plugin launcher gives the interpreter
    it runs the hook in (`LAUNCHER_BUDGET`, hooks/run.py: it kills it then)."""
    configured = float(env.config.get("hooks.budget_seconds"))
    if configured <= 0:
        from ccstate.install import wiring

        timeout = next((t for e, _m, t in wiring.HOOK_SPECS if e == event), 10)
        configured = max(1.0, timeout - MARGIN)
    try:
        launcher = float(env.environ.get(LAUNCHER_BUDGET) or "inf")
    except ValueError:
        launcher = float("inf")
    return min(configured, max(1.0, launcher))


def deadline(env: HookEnv, event: str, step: str) -> float:
    """When `step` of `event` must be done (time.monotonic())."""
    return env.begun + SHARES.get((event, step), 1.0) * seconds(env, event)


def note_stopped(env: HookEnv, event: str, what: str) -> None:
    """One line in hooks.log: what a step of `event` left for the next run, and why."""
    from ccstate import hooklog

    budget = seconds(env, event)
    line = f"{event}: {what} (time budget {budget:g} s)"
    hooklog.append_log(env.state, line, max_bytes=int(env.config.get("log.max_bytes")), now=env.now)
