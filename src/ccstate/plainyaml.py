"""`.ccstate.yaml` without PyYAML: the plain subset ccstate's settings are written in.

A bare `python3` (a plugin's hooks before its venv is built) has no yaml. Without this the
hooks would run on the defaults, and a team's `dedupe.enabled: false` would not hold in a
newcomer's first session. `parse` reads nested block mappings of plain or quoted scalars,
comments and blank lines (what `ccstate init` writes and the docs show) and resolves scalars
as PyYAML's SafeLoader does (YAML 1.1: `yes`/`off` are booleans, `~` is null). Anything else
(flow collections, lists, anchors, tags, multi-line scalars, escapes, tabs, dates, numbers
written with `_`, octal or hex) returns None: "not sure", and the caller falls back to its
defaults as before. `tests/test_plainyaml.py` checks it against PyYAML on generated documents.
Standard library only (`re`).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)[ ]*:(?:[ ]+(.*))?$")
_BOOL = {
    **dict.fromkeys(["yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"], True),
    **dict.fromkeys(["no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"], False),
}
_NULL = frozenset({"~", "null", "Null", "NULL", ""})
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]*$|\.[0-9]+$")
# Plain scalars PyYAML would resolve otherwise, or read otherwise: leave them to it.
_UNSURE = re.compile(
    r"[-+]?[0-9][0-9_:]*[_:][0-9_:]*$"  # 1_000, 1:30 (sexagesimal)
    r"|[-+]?0[0-7]+$|[-+]?0[xXbBoO]"  # octal, hex, binary
    r"|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$"  # .inf, .nan (`nan` alone is a word)
    r"|[-+]?\.?[0-9][0-9.]*[eE]"  # exponents (YAML 1.1 needs a sign and a dot)
    r"|\d{4}-\d"  # dates and times
    r"|[-?:,\[\]{}#&*!|>'\"%@`]|<<|=$"  # an indicator first, a merge or value key
    r"|.*(?::\s|\s#|:$|\t)"  # a mapping or comment inside, a tab
)


def parse(text: str) -> dict[str, Any] | None:
    """The document as PyYAML's safe_load gives it, or None when it is outside the subset."""
    root: dict[str, Any] = {}
    stack: list[tuple[int, dict[str, Any]]] = [(-1, root)]
    opened: tuple[int, dict[str, Any], str] | None = None  # a `key:` whose value may be a block
    if "\t" in text or "\ufeff" in text:
        return None  # tabs (YAML refuses most) and a byte-order mark: left to PyYAML
    lines = text.splitlines()
    if lines and lines[0].rstrip() == "---":
        lines = lines[1:]
    for raw in lines:
        line = _uncommented(raw)
        if line is None:
            return None
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if line[indent] == "\t" or (line.startswith("---") or line.startswith("...")):
            return None
        if opened is not None:
            at, parent, key = opened
            opened = None
            if indent > at:  # the block of that key
                child: dict[str, Any] = {}
                parent[key] = child
                stack.append((indent, child))
        while stack[-1][0] > indent:
            stack.pop()
        level, mapping = stack[-1]
        if level != indent and level != -1:
            return None  # indented into no block, or out to no level of its own
        if level == -1:
            stack[-1] = (indent, mapping)
        match = _KEY.match(line, indent)
        if match is None:
            return None
        key, value = match.group(1), match.group(2)
        if _UNSURE_KEY.match(key):
            return None
        if value is None or not value.strip():
            mapping[key] = None
            opened = (indent, mapping, key)
            continue
        scalar = _scalar(value.strip())
        if scalar is _NOT_SURE:
            return None
        mapping[key] = scalar
    return root


_NOT_SURE = object()
_UNSURE_KEY = re.compile(r"(?:yes|no|true|false|on|off|null|[0-9].*)$", re.IGNORECASE)


def _uncommented(line: str) -> str | None:
    """`line` without its comment (a `#` at the start or after a space, outside quotes); None
    when a quote does not close on the line."""
    quote = ""
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"" and (i == 0 or line[i - 1] in " :"):
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return None if quote else line.rstrip()


def _scalar(value: str) -> Any:
    if value[0] in "'\"":
        quote = value[0]
        if len(value) < 2 or value[-1] != quote:
            return _NOT_SURE
        inner = value[1:-1]
        if quote == "'":
            if "'" in inner.replace("''", ""):
                return _NOT_SURE
            return inner.replace("''", "'")
        return _NOT_SURE if "\\" in inner or '"' in inner else inner
    if value in _BOOL:
        return _BOOL[value]
    if value in _NULL:
        return None
    if _INT.match(value):
        return int(value)
    if _FLOAT.match(value):
        return float(value)
    if _UNSURE.match(value):
        return _NOT_SURE
    return value
