"""The text `ccstate init` writes from what it found: CLAUDE.md's first lines and `workflow.md`
(pure). Claude Code sends CLAUDE.md with every request, wrapped in about 100 tokens of its own,
so it carries only what saves a turn: what the project is and how to run its tests; the rest
goes to `workflow.md`, pointed to only when it holds more (docs/CLAUDE-MD.md, #39).
"""

from __future__ import annotations

from collections.abc import Sequence

from ccstate.scaffold.found import KINDS, TITLES, Command

BEGIN = "<!-- ccstate:begin (generated: ccstate rewrites what is between these markers) -->"
END = "<!-- ccstate:end -->"
INDEX_NOTE = (
    "<!-- Written by `ccstate init` from README and the project's files. Claude Code sends\n"
    "this file with every request: keep it short (`ccstate lint`); point to topic files for\n"
    "the rest, one line each. HTML comments like this one are not sent. -->"
)
TOPIC_NOTE = (
    "<!-- The commands `ccstate init` found in this project's files (where, in brackets),\n"
    "and the checks sessions ran green. Claude reads this file when a task needs it; CLAUDE.md\n"
    "points here. Edit freely outside the ccstate markers. -->"
)
MAX_PER_KIND = 8
CI = "ci"  # commands from workflow files: their own section, after the kinds


def is_ci(command: Command) -> bool:
    return command.source.startswith(".github/")


def test_command(commands: Sequence[Command]) -> Command | None:
    """The one test command to name first: a target or script called `test` beats the rest,
    the project's own files beat CI's."""
    tests = [c for c in commands if c.kind == "test"]
    named = [c for c in tests if c.command.split()[-1] == "test" and not is_ci(c)]
    local = [c for c in tests if not is_ci(c)]
    chosen = named or local or tests
    return chosen[0] if chosen else None


def index_text(name: str, description: str, commands: Sequence[Command], topic: str) -> str:
    """CLAUDE.md for a project that has none; '' when there is nothing to say."""
    test = test_command(commands)
    lines = [description] if description else []
    if test is not None:
        lines.append(f"Tests: `{test.command}`" + (f" (runs `{test.note}`)" if _runs(test) else ""))
    more = _more_kinds(commands, test)
    if more:
        listed = ", ".join(more[:3]) + (", ..." if len(more) > 3 else "")
        lines.append(f"Other commands ({listed}): `{topic}`")
    if not lines:
        return ""
    return f"# {name}\n\n{INDEX_NOTE}\n\n" + "\n".join(lines) + "\n"


def topic_text(commands: Sequence[Command], learned: Sequence[str] = ()) -> str:
    """workflow.md: a note, then the generated block."""
    return f"# Workflow\n\n{TOPIC_NOTE}\n\n{block(commands, learned)}\n"


def block(commands: Sequence[Command], learned: Sequence[str] = ()) -> str:
    """The generated part between the markers: a section per kind that has a command."""
    parts = [BEGIN]
    for kind in (*KINDS, CI):
        if kind == CI:
            chosen = sorted((c for c in commands if is_ci(c)), key=lambda c: KINDS.index(c.kind))
        else:
            chosen = [c for c in commands if c.kind == kind and not is_ci(c)]
        if not chosen:
            continue
        title = "CI (GitHub workflows)" if kind == CI else TITLES[kind]
        parts += ["", f"## {title}", "", *(_line(c) for c in _unique(chosen)[:MAX_PER_KIND])]
    if learned:
        parts += ["", "## Passed in recent sessions", "", *learned]
    parts.append(END)
    return "\n".join(parts)


def holds_more(commands: Sequence[Command]) -> bool:
    """Whether workflow.md would say more than CLAUDE.md's test line."""
    test = test_command(commands)
    return any(c is not test for c in commands)


def _more_kinds(commands: Sequence[Command], test: Command | None) -> list[str]:
    """The kinds workflow.md holds beyond the test line, the telling ones first."""
    kinds = {CI if is_ci(c) else c.kind for c in commands if c is not test}
    order = ("lint", "build", "test", CI, "format", "docs", "install", "run", "release", "other")
    names = {"test": "tests", "install": "setup", CI: "CI"}
    return [names.get(k, k) for k in order if k in kinds]


def _runs(command: Command) -> bool:
    """Whether the note says what the command runs (a recipe line), not what it is for."""
    return (
        bool(command.note)
        and command.command.startswith(("make ", "just "))
        and (command.note.split()[0] not in ("runs",))
        and not command.note[0].isupper()
    )


def _line(command: Command) -> str:
    note = f": {command.note}" if command.note and command.note != command.command else ""
    return f"- `{command.command}`{note} ({command.source})"


def _unique(commands: Sequence[Command]) -> list[Command]:
    seen: set[str] = set()
    kept = []
    for command in commands:
        if command.command not in seen:
            seen.add(command.command)
            kept.append(command)
    return kept
