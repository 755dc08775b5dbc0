"""SessionEnd: no-op in this release; the feature issues add their work here."""

from __future__ import annotations

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    return HookResult.noop()
