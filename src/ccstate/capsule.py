"""The SessionStart capsule: a small, deterministic pointer block (pure).

Byte-identical for identical state: no clock, no random ids, stable order,
so it never breaks the prompt cache. Pointers, not content. Each feature
contributes one section (a list of lines, most important first, none when it has
no fact to give); the capsule keeps the header and trims sections from their ends
to fit the budget. With no line at all there is no capsule: a header alone would
be paid on every request for nothing (#43).
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

HEADER = "[ccstate] project state"
CHARS_PER_TOKEN = 4  # hooks cannot load tiktoken; a conservative estimate for English/code
TRIMMED = "- (more in the files above; capsule budget reached)"


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def render_capsule(project_name: str, sections: Sequence[Sequence[str]], budget_tokens: int) -> str:
    """Header plus the sections in order, cut line by line to stay within `budget_tokens`;
    "" when no section has a line."""
    if not any(sections):
        return ""
    header = f"{HEADER} for {project_name}"
    lines = [header]
    budget = budget_tokens * CHARS_PER_TOKEN - len(header)
    trimmed = False
    for section in sections:
        for line in section:
            cost = len(line) + 1
            if cost > budget - len(TRIMMED) - 1:
                trimmed = True
                break
            lines.append(line)
            budget -= cost
    if trimmed:
        lines.append(TRIMMED)
    return "\n".join(lines)
