"""Makefile targets and justfile recipes, with the first line each runs (pure).

Neither format has a maintained Python parser; both are read only as far as their manuals
define a rule's head (GNU make 4.3 "Rule Syntax", just's "Recipes"): a target at the start of a
line followed by `:`, not `:=`/`::=`/`?=`, recipe lines indented below it. Pattern rules
(`%.o: %.c`), special targets (`.PHONY`), files (`a.out`, `build/x`) and variables are left out:
only names a person types after `make` or `just`.
"""

from __future__ import annotations

import re

from ccstate.scaffold.found import Command, clip, kind_of

MAX_TARGETS = 24  # a generated Makefile with hundreds of rules says nothing a person types
# `name other: deps ## help` (the common self-documenting comment after the prerequisites).
_MAKE_RULE = re.compile(
    r"^([A-Za-z0-9_][A-Za-z0-9_-]*(?:[ \t]+[A-Za-z0-9_][A-Za-z0-9_-]*)*)"
    r"[ \t]*::?(?![=:])(.*)$"
)
_MAKE_ASSIGN = re.compile(r"^[A-Za-z0-9_.-]+[ \t]*(?:[:?+!]|::)?=")
_HELP = re.compile(r"##+[ \t]*(.+)$")
_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_-]*)((?:[ \t]+[^:=]*?)?)[ \t]*:(?!=)(.*)$")
_JUST_SKIP = ("alias ", "export ", "set ", "import ", "mod ", "[")
_SETUP = re.compile(
    r"(?:\S*python3?\s+-m\s+)?(?:pip3?|npm|pnpm|yarn|uv\s+pip)\s+(?:install|ci)\b|"
    r"(?:cd|echo|mkdir|printf|rm)\b"
)


def makefile(text: str, source: str = "Makefile") -> list[Command]:
    """The targets of a Makefile a person would type, each with the first line it runs."""
    found: dict[str, Command] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(("\t", "#", " ")) or _MAKE_ASSIGN.match(line):
            continue
        match = _MAKE_RULE.match(line)
        if match is None:
            continue
        helptext = _HELP.search(match.group(2))
        runs = _recipe(lines, i + 1, tab_only=True)
        says = helptext.group(1) if helptext else runs
        note = says or _deps(match.group(2))
        for name in match.group(1).split():
            if name not in found and name.lower() not in ("phony", "default_goal"):
                kind = kind_of(name, says)
                found[name] = Command(kind, f"make {name}", source, clip(note))
    return list(found.values())[:MAX_TARGETS]


def justfile(text: str, source: str = "justfile") -> list[Command]:
    """The recipes of a justfile, with their parameters, doc comment or first line."""
    found: list[Command] = []
    lines = text.splitlines()
    doc = ""
    for i, line in enumerate(lines):
        if line.startswith("#") and not line.startswith("#!"):
            doc = line.lstrip("#").strip()
            continue
        if not line or line[0].isspace() or line.startswith(_JUST_SKIP):
            doc = "" if not line.startswith("[") else doc
            continue
        match = _JUST_RECIPE.match(line)
        if match is None or ":=" in line.split(":", 1)[0] + ":" + line.split(":", 1)[-1][:1]:
            doc = ""
            continue
        name, params = match.group(1), " ".join(match.group(2).split())
        runs = _recipe(lines, i + 1, tab_only=False)
        says = f"{doc} {runs}".strip()
        note = doc or runs or _deps(match.group(3))
        command = f"just {name}" + (f" {params.upper()}" if params else "")
        found.append(Command(kind_of(name, says), command, source, clip(note)))
        doc = ""
    return found[:MAX_TARGETS]


def _recipe(lines: list[str], start: int, *, tab_only: bool) -> str:
    """The telling command line of the recipe starting at `start` ('' when it has none): the
    first that does more than set up (install, cd, echo, mkdir), else the first."""
    body = []
    for line in lines[start : start + 12]:
        indented = line.startswith("\t") if tab_only else line[:1] in ("\t", " ")
        if not indented:
            break
        text = line.strip().lstrip("@-+").strip()
        if text and not text.startswith(("#", "$(info", "$(warning")):
            body.append(text)
    telling = [text for text in body if not _SETUP.match(text)]
    return (telling or body or [""])[0]


def _deps(rest: str) -> str:
    """A rule with no recipe line runs its prerequisites: say which."""
    rest = rest.split("#", 1)[0].strip()
    return f"runs {rest}" if rest else ""
