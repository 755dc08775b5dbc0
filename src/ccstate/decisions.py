"""Numbered decision records in DECISIONS.md (issue #5 fills this in)."""

from __future__ import annotations

from pathlib import Path

from ccstate import paths
from ccstate.config import Config


def capsule_section(project: Path, config: Config) -> list[str]:
    """Capsule lines indexing active decisions. Stdlib only: runs at every SessionStart."""
    decisions = paths.decisions_path(project)
    if not decisions.is_file():
        return ["- decisions: none recorded yet"]
    return [f"- decisions: {decisions.name}; cite entries by ID (D1, D2, ...)"]
