"""The PostToolUse check after Claude edits an instruction file: one line when it hurts.

Runs only for Edit/Write/MultiEdit of a `CLAUDE.md`, `CLAUDE.local.md` or
`.claude/rules/**/*.md` (the hook tests the file name before importing this). It relints
with the chars/4 estimate (no tokenizer on the hot path), compares with the cached
previous result and says, in one short line, when the edit pushed the root CLAUDE.md
over its budget or added an `@import`. Standard library and string paths only.
"""

from __future__ import annotations

import os

from ccstate.instructions import cache as claude_md_cache
from ccstate.instructions import lint as claude_md

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ccstate.config import Config

INSTRUCTION_NAMES = frozenset({"CLAUDE.md", "CLAUDE.local.md"})
RULES_PART = os.sep + os.path.join(".claude", "rules") + os.sep


def is_instruction_file(path: str) -> bool:
    """Cheap name test: could editing `path` change what loads every session?"""
    name = os.path.basename(path)
    return name in INSTRUCTION_NAMES or (RULES_PART in path and name.endswith(".md"))


def check_edit(
    project: str,
    state: str,
    config: Config,
    environ: Mapping[str, str],
    file_path: str,
    tool_input: Mapping[str, Any],
) -> str:
    """Relint, refresh the cache, and return the warning line ("" when all is well)."""
    before = claude_md_cache.read(state)
    report = claude_md.lint(project, config, environ, claude_md.estimate, full=False)
    after = claude_md_cache.write(state, report.to_cache())
    edited = os.path.realpath(os.path.join(project, file_path))
    shown = claude_md.display(edited, report.context.project, environ)
    added = None if before is not None else added_text(tool_input)
    return warning_line(before, after, edited, shown, added)


def added_text(tool_input: Mapping[str, Any]) -> str:
    """The text an Edit, MultiEdit or Write put into the file."""
    parts = [tool_input.get("new_string"), tool_input.get("content")]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        parts += [e.get("new_string") for e in edits if isinstance(e, dict)]
    return "\n".join(p for p in parts if isinstance(p, str))


def warning_line(
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any],
    edited: str,
    shown: str,
    added: str | None = None,
) -> str:
    """The one line of context for the model, or "" (pure).

    Budget: the edited root is over it now and grew since the cached result (or there
    was none). Imports: those in the file now and not before; without a previous
    result, those whose `@token` appears in the text the edit added.
    """
    parts: list[str] = []
    settings = after["settings"]
    root = after["roots"].get(edited)
    if root is not None:
        lines, chars, tokens = root
        max_lines, max_tokens = settings["lint.root_max_lines"], settings["lint.root_max_tokens"]
        previous = (before or {}).get("roots", {}).get(edited)
        grew = previous is None or lines > previous[0] or chars > previous[1]
        if grew and (lines > max_lines or tokens > max_tokens):
            parts.append(
                f"{shown} is over its always-loaded budget: {lines} lines (max {max_lines}), "
                f"~{tokens:,} tokens (chars/4 estimate; max {max_tokens:,}); move detail into a "
                f"topic file (`ccstate split {shown}`)"
            )
    old = {row[0] for row in (before or {}).get("imports", {}).get(edited, [])}
    new = [row for row in after["imports"].get(edited, []) if row[0] not in old]
    if added is not None:
        new = [row for row in new if "@" + row[0] in added]
    loads = [f"@{raw} (~{cost:,} tokens)" for raw, status, cost in new if status == "loaded"]
    if loads:
        parts.append(
            f"the new {', '.join(loads)} in {shown} loads into every session (chars/4 "
            "estimate); prefer a plain pointer with a one-line gist (`ccstate lint --fix`)"
        )
    dead = [f"@{raw}" for raw, status, _cost in new if status == "missing"]
    if dead:
        parts.append(f"{', '.join(dead)} in {shown} names no file; Claude Code skips it silently")
    return ("ccstate: " + "; ".join(parts) + ".") if parts else ""
