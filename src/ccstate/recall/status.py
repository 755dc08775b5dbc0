"""The capsule's one recall line, from `recall/summary.json` (SessionStart: no SQLite).

Byte-identical for identical state: it names only the count of indexed sessions with work
in them (`index.stats`), which changes when such a session ends, not with the clock or a
quick question. Nothing is recalled unasked.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.config import Config

LINE = (
    "- recall: {sessions} past session(s) indexed; before re-exploring earlier work, "
    "`ccstate recall KEYWORDS`"
)


def capsule_section(state: str, config: Config) -> list[str]:
    """One line saying recall exists and how many sessions it holds; [] when disabled or
    before the first index (SessionEnd and PreCompact build it)."""
    if not config.get("recall.enabled"):
        return []
    try:
        with open(os.path.join(state, "recall", "summary.json"), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return []
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, int) or sessions <= 0:
        return []
    return [LINE.format(sessions=sessions)]
