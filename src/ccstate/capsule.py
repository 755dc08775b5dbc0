"""The SessionStart capsule: a small, deterministic pointer block (pure).

Byte-identical for identical state: no clock, no random ids, stable order,
so it never breaks the prompt cache. Pointers, not content.
"""

from __future__ import annotations

from dataclasses import dataclass

HEADER = "[ccstate] project state"


@dataclass(frozen=True)
class CapsuleFacts:
    project_name: str
    state_rel: str  # state dir shown to the model, e.g. ".ccstate"
    decisions_file: str | None  # relative path when DECISIONS.md exists


def render_capsule(facts: CapsuleFacts) -> str:
    """The capsule text; the handoff, decisions and lint features add their lines here."""
    lines = [f"{HEADER} for {facts.project_name}"]
    lines.append(
        f"- handoff: none yet (written to {facts.state_rel}/ at compaction and session end)"
    )
    if facts.decisions_file is None:
        lines.append("- decisions: none recorded yet")
    else:
        lines.append(f"- decisions: {facts.decisions_file}; cite entries by ID (D1, D2, ...)")
    return "\n".join(lines)
