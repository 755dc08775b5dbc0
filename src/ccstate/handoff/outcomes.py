"""What a check's output says: the tool missing, the run refused, or the tool's own summary
(pure; #42).

`missing(names, text)` finds "command not found", "No module named X", "is not recognized"
and their kin for one tool; `summary(family, text)` reads the summary lines a tool prints
(`3 failed, 10 passed in 1.2s`, `Ran 817 tests ... OK`, `Found 2 errors`, `would reformat`,
`test result: ok.`, `Tests:  1 failed, 4 passed`...; the readers are in summaries.py) into
(passed?, figure).
"""

from __future__ import annotations

import re

from ccstate.handoff.summaries import ALL, FAMILIES, Parser

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")
REFUSED = re.compile(
    r"^(?:<tool_use_error>|\S*Bash operation blocked by hook|PreToolUse:\S+ hook error|"
    r"Permission for this action was denied|Permission to use \S+ (?:with command .* )?has been "
    r"denied|cd to '.*' was blocked)"
)
_NO_SCRIPT = re.compile(
    r"Missing script:|ERR_PNPM_NO_SCRIPT|error Command \"[^\"]+\" not found|No rule to make "
    r"target|No targets specified and no makefile found|Justfile does not contain recipe|"
    r"could not find `Cargo\.toml`|no Go files in|Task '[^']+' not found in"
)
_INNER_MISSING = re.compile(
    r"^(?:\S+: (?:line \d+: |\d+: )?)?([\w.+-]+): (?:command not found|not found|Command not "
    r"found)$|^make(?:\[\d+\])?: ([\w.+-]+): (?:No such file or directory|Command not found)",
    re.M,
)


def clean(text: str) -> str:
    """The output without terminal colours and carriage returns."""
    return _ANSI.sub("", text)


def missing(names: tuple[str, ...], text: str) -> bool:
    """Does the output say one of `names` (a tool, its module, its interpreter) is missing?"""
    for name in names:
        n = re.escape(name)
        short = re.escape(name.rsplit("/", 1)[-1])
        if re.search(
            rf"(?:^|[\s:]){n}: (?:command )?not found|command not found: {short}\b|"
            rf"No module named '?{short}'?(?:$|\s|\.$)|'{short}' is not recognized as an|"
            rf"(?:^|[\s:]){n}: No such file or directory|can't open file '[^']*{short}'|"
            rf"Failed to spawn: `{short}`|no such (?:sub)?command:? [`']?{short}\b|"
            rf"exec: \"?{short}\"?: executable file not found",
            text,
            re.M,
        ):
            return True
    return bool(
        re.search(r"could not determine executable to run|This is not the tsc command", text)
    )


def inner_missing(text: str) -> str:
    """For a runner (`make test`, `npm test`): the program its recipe could not find."""
    match = _INNER_MISSING.search(text)
    return (match.group(1) or match.group(2)) if match else ""


def no_script(text: str) -> bool:
    """A runner told to run a script, target or recipe it does not have."""
    return _NO_SCRIPT.search(text) is not None


def parsers(family: str) -> tuple[Parser, ...]:
    """The summary readers of a family ("any" and unknown families: all of them)."""
    return FAMILIES.get(family, ALL)


def summary(family: str, text: str) -> tuple[bool, str] | None:
    """(passed?, figure) from the tool's own summary lines; None when it printed none.
    Any failing summary decides (a crate or a suite that failed fails the run); else the last."""
    found = sorted(f for parser in parsers(family) for f in parser(text))
    if not found:
        return None
    failing = [f for f in found if not f[1]]
    _pos, ok, figure = failing[-1] if failing else found[-1]
    return ok, figure


def crashed(text: str) -> bool:
    """A Python traceback that ends the output: the tool died before any summary."""
    tail = text.rstrip().rsplit("\n", 3)
    return "Traceback (most recent call last):" in text and bool(
        re.match(r"^\w+(?:\.\w+)*(?:Error|Exception|Interrupt)\b", tail[-1])
    )
