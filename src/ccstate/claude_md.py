"""CLAUDE.md pointer-architecture lint (issue #6 fills this in)."""

from __future__ import annotations

from pathlib import Path

from ccstate.config import Config


def capsule_section(project: Path, state: Path, config: Config) -> list[str]:
    """At most one capsule line about lint errors. Standard library only; runs at SessionStart."""
    return []
