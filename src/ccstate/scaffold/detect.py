"""Every command a project's files name, in a stable order, and the sources skipped.

Reads only known files at known places (no walk of the tree), each capped in size; a file that
is missing is silence, one that does not parse is a `Skipped` line for `init`'s output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ccstate.scaffold import ci, make, manifests, python
from ccstate.scaffold.found import Command, Skipped

MAX_BYTES = 1 << 20  # a source bigger than this is generated, not written: skipped
MAX_WORKFLOWS = 12


@dataclass
class Found:
    commands: list[Command] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def add(self, commands: list[Command], skipped: Skipped | None = None) -> None:
        self.commands.extend(commands)
        if skipped is not None:
            self.skipped.append(skipped)


def detect(project: Path) -> Found:
    found = Found()
    for names, reader in (
        (("GNUmakefile", "makefile", "Makefile"), make.makefile),
        (("justfile", "Justfile", ".justfile"), make.justfile),
    ):
        for name in names:  # the first that exists, as make and just look for them
            text = _read(project, name, found)
            if text is not None:
                found.add(reader(text, name))
                break
    _python(project, found)
    _manifests(project, found)
    for path in sorted(_workflows(project))[:MAX_WORKFLOWS]:
        rel = path.relative_to(project).as_posix()
        text = _read(project, rel, found)
        if text is not None:
            found.add(*ci.workflow(text, rel))
    return found


def _python(project: Path, found: Found) -> None:
    if _read(project, "pyproject.toml", found) is not None:
        data, skipped = python.read_toml(project / "pyproject.toml")
        found.add(python.pyproject(data) if data is not None else [], skipped)
    for name, reader in (
        ("tox.ini", python.tox_ini),
        ("setup.cfg", python.tox_ini),
        ("pytest.ini", python.tox_ini),
        ("noxfile.py", python.noxfile),
    ):
        text = _read(project, name, found)
        if text is not None:
            found.add(*reader(text, name))


def _manifests(project: Path, found: Found) -> None:
    text = _read(project, "package.json", found)
    if text is not None:
        try:
            data = json.loads(text)
        except ValueError as exc:
            found.skipped.append(Skipped("package.json", f"not read ({exc}); fix it and rerun"))
        else:
            manager = next(
                (m for lock, m in manifests.LOCKFILES if (project / lock).exists()), "npm"
            )
            found.add(manifests.package_json(data if isinstance(data, dict) else {}, manager))
    if _read(project, "Cargo.toml", found) is not None:
        data, skipped = python.read_toml(project / "Cargo.toml")
        found.add(manifests.cargo_toml(data) if data is not None else [], skipped)
    text = _read(project, "go.mod", found)
    if text is not None:
        found.add(manifests.go_mod(text))


def _workflows(project: Path) -> list[Path]:
    folder = project / ".github" / "workflows"
    try:
        return [p for p in folder.iterdir() if p.suffix in (".yml", ".yaml") and p.is_file()]
    except OSError:
        return []


def _read(project: Path, name: str, found: Found) -> str | None:
    """The text of a regular file within the size cap; None when absent or skipped (said)."""
    path = project / name
    try:
        if not path.is_file():
            return None
        if path.stat().st_size > MAX_BYTES:
            found.skipped.append(Skipped(name, f"not read (over {MAX_BYTES >> 20} MB)"))
            return None
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        found.skipped.append(Skipped(name, "not read (not UTF-8 text)"))
    except OSError as exc:
        found.skipped.append(Skipped(name, f"not read ({exc.strerror or exc})"))
    return None
