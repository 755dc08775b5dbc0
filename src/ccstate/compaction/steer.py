"""The block PreCompact prints: what the summariser must keep (pure; standard library only).

Claude Code 2.1.328 and 2.1.332 append a PreCompact hook's stdout to the summariser's
instructions after the user's own `/compact <args>`, under "Additional Instructions:"
(docs/COMPACTION.md). So the block adds to them and never restates or replaces them.

It lists, most important first: the active decisions (ID and title; superseded and reverted
ones never), the handoff file's path, files edited in the session and not committed, checks
whose last run failed, unresolved errors, open todos and the agent's own next steps. Each item
is also returned as `(kind, key, label)`: `key` is what the check looks for in the summary
(an ID, a path, a command); todos and next steps are asked for, not checked (their wording is
free). The text is bounded by `budget_tokens` (estimated at 3 characters a token, as the
handoff is): the lowest-priority items go first, and what is left out is counted and pointed
at the handoff file. Identical facts give identical bytes: no clock, no randomness, fixed order.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

CHARS_PER_TOKEN = 3
HEADER = "[ccstate] Keep across this compaction"
INTRO = (
    f"{HEADER}: in addition to any instructions above, the <summary> must carry each ID, path "
    "and command below word for word (ccstate checks it after the compaction)."
)
# kind -> (label, items listed before the budget trims further); the order is the priority
SECTIONS: tuple[tuple[str, str, int], ...] = (
    ("decision", "Active decisions (DECISIONS.md)", 12),
    ("handoff", "Handoff file", 1),
    ("file", "Edited, not committed", 10),
    ("failing", "Failing checks", 4),
    ("error", "Unresolved errors", 4),
    ("next", "Next steps (the agent's own)", 4),
    ("todo", "Open todos", 6),
)
CHECKED = frozenset({"decision", "handoff", "file", "failing", "error"})
# trimmed first -> last; the handoff path is never trimmed
TRIM_ORDER = ("todo", "error", "next", "failing", "file", "decision")
TITLE_MAX = 60
TEXT_MAX = 120

Item = tuple[str, str, str]  # (kind, key the check looks for, text shown)


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def items_from(
    facts: Mapping[str, Any], decisions: Sequence[tuple[int, str]], handoff_path: str
) -> list[Item]:
    """Every item the block could list, in section order (pure)."""
    items: list[Item] = [("decision", f"D{n}", f"D{n} {_cut(t, TITLE_MAX)}") for n, t in decisions]
    if handoff_path:
        items.append(("handoff", handoff_path, handoff_path))
    items += [("file", p, p) for p in _strings(facts.get("edited"))]
    failing = _strings(facts.get("failing"))
    items += [("failing", c, f"`{_cut(c, TEXT_MAX)}`") for c in failing]
    for error in facts.get("errors") or ():
        tool, subject, message = (str(part) for part in error)
        if subject in failing:
            continue  # a failed check is listed once, as a failing check
        shown = f"{tool} `{_cut(subject, 80)}`: " if subject else f"{tool}: "
        items.append(("error", subject, shown + _cut(message, 90)))
    items += [("next", "", _cut(n, TEXT_MAX)) for n in _strings(facts.get("next"))]
    for status, text in facts.get("todos") or ():
        state = f" ({status.replace('_', ' ')})" if status and status != "pending" else ""
        items.append(("todo", "", _cut(str(text), 90) + state))
    return items


def build(items: Sequence[Item], budget_tokens: int) -> tuple[str, list[Item]]:
    """(the block, the items it lists): within `budget_tokens`, lowest priority cut first.
    Nothing to keep but the handoff's path (which the capsule after the compaction names
    anyway): ("", [])."""
    if not [i for i in items if i[0] != "handoff"]:
        return "", []
    caps = {kind: cap for kind, _label, cap in SECTIONS}
    by_kind = {kind: [i for i in items if i[0] == kind] for kind, _l, _c in SECTIONS}
    shown = {kind: min(caps[kind], len(found)) for kind, found in by_kind.items()}
    ids_only = False
    text = _render(by_kind, shown, ids_only)
    while estimate_tokens(text) > budget_tokens:
        kind = next((k for k in TRIM_ORDER if shown[k] > (1 if k == "decision" else 0)), None)
        if kind is None and not ids_only:
            ids_only = True  # the last resort before dropping decisions: IDs without titles
        elif kind is None:
            break  # the intro, one decision and the handoff path: never cut further
        else:
            shown[kind] -= 1
        text = _render(by_kind, shown, ids_only)
    listed = [i for kind, found in by_kind.items() for i in found[: shown[kind]]]
    return text, listed


def _render(by_kind: Mapping[str, list[Item]], shown: Mapping[str, int], ids_only: bool) -> str:
    lines = [INTRO]
    for kind, label, _cap in SECTIONS:
        found = by_kind[kind]
        if not found:
            continue
        parts = [i[1] if ids_only and kind == "decision" else i[2] for i in found[: shown[kind]]]
        more = len(found) - shown[kind]
        if more:
            parts.append(f"+{more} more in the handoff file" if kind != "decision" else
                         f"+{more} more in DECISIONS.md")  # fmt: skip
        lines.append(f"- {label}: " + "; ".join(parts))
    return "\n".join(lines)


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else []
