"""What ccstate adds to every request of a session here (#39, #43), as `ccstate doctor` says it.

Three parts, each paid on every turn: the SessionStart capsule (as the last SessionStart sent
it: its heartbeat records the length), an instruction file `ccstate init` wrote (its text as
Claude Code sends it, plus the wrapper Claude Code puts around any CLAUDE.md), and the plugin's
one skill line. chars / 4, as the e2e footprint test measures the real first request.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path

from ccstate.install import wiring
from ccstate.instructions import loaded
from ccstate.scaffold import render

# "Codebase and user instructions are shown below. ... Contents of <path> (project
# instructions, checked into the codebase):" and its system-reminder block, as 2.1.332 sends
# it, in chars / 4 without the path: tests/e2e/test_footprint.py checks this estimate.
WRAPPER_TOKENS = 85
SKILL_LINE = "- ccstate:ccstate: " + wiring.SKILL_DESCRIPTION
CAPSULE_PREFIX = "SessionStart hook additional context: "


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def capsule_tokens(state: Path) -> int | None:
    """The last SessionStart capsule's size; None before any session (no heartbeat)."""
    try:
        beat = json.loads((state / "heartbeat" / "SessionStart.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    chars = beat.get("detail", {}).get("capsule_chars") if isinstance(beat, dict) else None
    if not isinstance(chars, int) or chars <= 0:
        return 0
    return tokens(CAPSULE_PREFIX) + math.ceil(chars / 4)


def init_instruction_tokens(project: Path, environ: Mapping[str, str]) -> list[tuple[str, int]]:
    """Each always-loaded file `ccstate init` wrote (it keeps init's note), as sent."""
    found = []
    for file in loaded.compute(str(project), environ).files:
        try:
            raw = Path(file.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if render.INDEX_NOTE.splitlines()[0] in raw:
            rel = os.path.relpath(file.path, project)
            found.append((rel, WRAPPER_TOKENS + tokens(file.text)))
    return found


def summary(project: Path, state: Path, environ: Mapping[str, str], plugin: bool) -> str:
    """One line for `ccstate doctor`: the total and its parts."""
    parts: list[tuple[str, int]] = []
    capsule = capsule_tokens(state)
    if capsule is None:
        parts.append(("capsule: no session yet", 0))
    else:
        parts.append(
            ("capsule (last SessionStart)" if capsule else "no capsule (nothing to say)", capsule)
        )
    parts += [
        (f"{rel} (written by ccstate init)", n)
        for rel, n in init_instruction_tokens(project, environ)
    ]
    if plugin:
        parts.append(("the plugin's skill line", tokens(SKILL_LINE)))
    total = sum(n for _what, n in parts)
    said = ", ".join(f"{what} {n}" if n else what for what, n in parts)
    return f"about {total} tokens in every request: {said}"
