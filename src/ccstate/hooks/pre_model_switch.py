"""PreModelSwitch (`/model`, the model picker): tell the user what the switch re-writes and
costs when the cache is warm and the context large (docs/MOMENTS.md). Never denies; with
`moments.switch.ask` it asks Claude Code to confirm first, showing the same text (only where
someone can answer: a headless session would refuse the switch instead).

Claude Code fires the event once per permission mode whose model the switch changes (the
current mode, then plan mode), in turn, with the same `prompt_id`: only the first one of a
`prompt_id` speaks, so the user reads the message once.
"""

from __future__ import annotations

import os
import time

from ccstate import store
from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv
from ccstate.moments import rates, switch

MARKER = "switch.json"  # <state>/moments/switch.json: the last prompt_id that was answered


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    cfg = env.config
    if not cfg.get("moments.switch.enabled"):
        return HookResult.noop(switch="off")
    if _answered(env.state, inp):
        return HookResult.noop(switch="already answered for this prompt")
    text = switch.warning(
        inp.raw, _card_of(env), min_tokens=int(cfg.get("moments.switch.min_tokens"))
    )
    if text is None:
        return HookResult.noop(switch="nothing to say")
    _remember(env.state, inp)
    detail = {"switch": "warned", "to_model": str(inp.raw.get("to_model"))}
    if cfg.get("moments.switch.ask") and _can_ask(inp, env):
        return HookResult(permission_decision="ask", permission_reason=text, detail=detail)
    return HookResult(system_message=text, detail=detail)


def _can_ask(inp: HookInput, env: HookEnv) -> bool:
    """Only someone at the interactive CLI can answer: a headless session (`claude -p`, the
    SDK: CLAUDE_CODE_ENTRYPOINT sdk-*) or an SDK `set_model` would refuse the switch."""
    interactive = env.environ.get("CLAUDE_CODE_ENTRYPOINT", "cli") == "cli"
    return interactive and inp.raw.get("source") in ("command", "picker")


def _card_of(env: HookEnv) -> switch.CardOf:
    override = str(env.config.get("report.pricing"))
    if override and not os.path.isabs(override):
        override = os.path.join(env.project, override)
    today = time.strftime("%Y-%m-%d", time.gmtime(env.now))
    return lambda model: rates.card(model, today=today, override=override)


def _marker(state: str) -> str:
    return os.path.join(state, "moments", MARKER)


def _answered(state: str, inp: HookInput) -> bool:
    prompt = inp.raw.get("prompt_id")
    if not isinstance(prompt, str) or not prompt:
        return False
    try:
        with open(_marker(state), encoding="utf-8") as fh:
            seen = fh.read()
    except OSError:
        return False
    return seen == f"{inp.session_id}\n{prompt}\n"


def _remember(state: str, inp: HookInput) -> None:
    prompt = inp.raw.get("prompt_id")
    if not isinstance(prompt, str) or not prompt:
        return
    text = f"{inp.session_id}\n{prompt}\n"
    store.atomic_write_text(_marker(state), text, durable=False, private=True)
