"""Bash re-prints: `cat F`, `head F`, `sed -n 'A,Bp' F` of lines the context already holds.

Detected and counted (hook stats, `ccstate replay`), never replaced. Standard library only.
"""

from __future__ import annotations

from ccstate.ledger.core import known_lines, normpath

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.ledger.core import Ledger, Loader

_SHELL_META = set("|&;<>`$(){}*?[]~!\\\n")


def parse_command(command: str, cwd: str) -> tuple[str, int, int | None] | None:
    """(path, first line, last line or None for "to the end") when `command` only prints part
    of one file: `cat F`, `head [-n N|-N] F`, `sed -n 'A[,B]p' F`."""
    unquoted = "".join(command.split("'")[::2])  # single-quoted text is literal
    if not command or any(ch in _SHELL_META for ch in unquoted):
        return None
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 2 or words[-1].startswith("-"):
        return None
    path, opts = normpath(words[-1], cwd), words[1:-1]
    if words[0] == "cat" and not opts:
        return path, 1, None
    if words[0] == "head":
        count = _head_count(opts)
        return (path, 1, count) if count else None
    if words[0] == "sed" and len(opts) == 2 and opts[0] == "-n":
        return _sed_range(opts[1], path)
    return None


def _head_count(opts: list[str]) -> int | None:
    if not opts:
        return 10
    spec = opts[1] if opts[0] == "-n" and len(opts) == 2 else None
    if len(opts) == 1 and opts[0].startswith("-n"):
        spec = opts[0][2:]
    elif len(opts) == 1 and opts[0].startswith("-"):
        spec = opts[0][1:]
    return int(spec) if spec and spec.isdigit() and int(spec) > 0 else None


def _sed_range(script: str, path: str) -> tuple[str, int, int | None] | None:
    body = script.replace(" ", "")
    if not body.endswith("p"):
        return None
    first, _, last = body[:-1].partition(",")
    if not first.isdigit() or (last and not last.isdigit() and last != "$"):
        return None
    start = int(first)
    end = None if last == "$" else int(last) if last else start
    return (path, start, end) if start >= 1 and (end is None or end >= start) else None


def is_known_output(
    ledger: Ledger, target: tuple[str, int, int | None], output: str, load: Loader
) -> bool:
    """True when a Bash command's output repeats lines this context already holds unchanged."""
    path, start, _end = target
    text = output[:-1] if output.endswith("\n") else output
    if not text or path not in ledger.paths:
        return False
    printed = text.split("\n")
    known = known_lines(ledger, path, start, start + len(printed) - 1, load)
    return known is not None and [line.rstrip() for line in known] == [
        line.rstrip() for line in printed
    ]
