"""Commands of a Python project: pyproject.toml (console scripts, pytest, tox, hatch, pdm, poe,
ruff, mypy), tox.ini, setup.cfg, pytest.ini and noxfile.py (pure but for reading files).

TOML is read with `tomllib` (`tomli` before Python 3.11), INI with `configparser`, a noxfile
with `ast`: each format's own parser. A source that does not parse is skipped with its line.
"""

from __future__ import annotations

import ast
import configparser
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ccstate.scaffold.found import Command, Skipped, clip, kind_of

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI
    import tomli as tomllib

MAX_SCRIPTS = 12


def read_toml(path: Path) -> tuple[dict[str, Any] | None, Skipped | None]:
    """The parsed file, or why it was skipped (one line naming the file and the fix)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return None, Skipped(path.name, f"not read ({_first_line(exc)}); fix it and rerun")


def pyproject(data: Mapping[str, Any], source: str = "pyproject.toml") -> list[Command]:
    """What pyproject.toml's tables say can be run."""
    tool = _table(data, "tool")
    found: list[Command] = []
    if "pytest" in tool and "ini_options" in _table(tool, "pytest"):
        paths = _table(_table(tool, "pytest"), "ini_options").get("testpaths")
        note = "testpaths: " + " ".join(map(str, paths)) if isinstance(paths, list) else ""
        found.append(Command("test", "python -m pytest", f"{source} [tool.pytest]", note))
    if "tox" in tool:
        found.append(Command("test", "tox", f"{source} [tool.tox]"))
    found += _hatch(_table(tool, "hatch"), source)
    found += _runner("pdm run", _table(_table(tool, "pdm"), "scripts"), f"{source} [tool.pdm]")
    found += _runner("poe", _table(_table(tool, "poe"), "tasks"), f"{source} [tool.poe]")
    if "ruff" in tool:
        found.append(Command("lint", "ruff check .", f"{source} [tool.ruff]"))
    if "mypy" in tool:
        found.append(Command("lint", "mypy", f"{source} [tool.mypy]"))
    scripts = _table(_table(data, "project"), "scripts") or _table(
        _table(tool, "poetry"), "scripts"
    )
    for name, target in list(scripts.items())[:MAX_SCRIPTS]:
        found.append(Command("run", str(name), f"{source} [project.scripts]", clip(str(target))))
    return found


def tox_ini(text: str, source: str = "tox.ini") -> tuple[list[Command], Skipped | None]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        return [], Skipped(source, f"not read ({_first_line(exc)}); fix it and rerun")
    found = []
    if parser.has_section("tox"):
        envs = clip(parser.get("tox", "envlist", fallback=""), 60)
        note = f"envs: {envs}" if envs else ""
        runs = parser.get("testenv", "commands", fallback="")
        note = "; ".join(part for part in (note, clip(runs, 60) if runs else "") if part)
        found.append(Command("test", "tox", source, note))
    if parser.has_section("pytest") or parser.has_section("tool:pytest"):
        found.append(Command("test", "python -m pytest", f"{source} [pytest]"))
    return found, None


def noxfile(text: str, source: str = "noxfile.py") -> tuple[list[Command], Skipped | None]:
    """`nox -s NAME` for each function decorated with `@nox.session` (read with `ast`)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        return [], Skipped(source, f"not read ({_first_line(exc)}); fix it and rerun")
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(map(_is_session, node.decorator_list)):
            doc = (ast.get_docstring(node) or "").strip().splitlines()
            note = doc[0] if doc else ""
            found.append(Command(kind_of(node.name, note), f"nox -s {node.name}", source, note))
    return found[:MAX_SCRIPTS], None


def _is_session(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Attribute) and target.attr == "session"


def _hatch(hatch: Mapping[str, Any], source: str) -> list[Command]:
    """`hatch run [ENV:]SCRIPT` for each script of each environment (`default` needs no ENV)."""
    found: list[Command] = []
    for env, table in _table(hatch, "envs").items():
        if not isinstance(table, Mapping):
            continue
        prefix = "hatch run " if env == "default" else f"hatch run {env}:"
        found += _runner(prefix, _table(table, "scripts"), f"{source} [tool.hatch.envs.{env}]")
    return found[: 2 * MAX_SCRIPTS]


def _runner(prefix: str, scripts: Mapping[str, Any], source: str) -> list[Command]:
    found = []
    joiner = "" if prefix.endswith((":", " ")) else " "
    for name, value in scripts.items():
        if str(name).startswith("_"):
            continue  # private helpers of other scripts
        runs = _script_text(value)
        found.append(
            Command(kind_of(str(name), runs), f"{prefix}{joiner}{name}", source, clip(runs))
        )
    return found[:MAX_SCRIPTS]


def _script_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "; ".join(_script_text(v) for v in value)
    if isinstance(value, Mapping):  # pdm/poe tables: {cmd = ...}, {shell = ...}, {help = ...}
        for key in ("cmd", "shell", "script", "composite", "call", "help"):
            if key in value:
                return _script_text(value[key])
    return ""


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
