"""Handoff and progress notes (issue #4 fills this in)."""

from __future__ import annotations

import os
from pathlib import Path

from ccstate.config import Config


def capsule_section(project: Path, state: Path, config: Config, source: str | None) -> list[str]:
    """Capsule lines about the last handoff. Standard library only; runs at every SessionStart."""
    try:
        state_rel = os.path.relpath(state, project)
    except ValueError:  # another drive on Windows
        state_rel = str(state)
    return [f"- handoff: none yet (written to {state_rel}/ at compaction and session end)"]
