"""Every source of a project at once, and what happens to one that cannot be read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ccstate.scaffold import detect

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"


def copy(project: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / project, tmp_path / project))


@pytest.mark.parametrize(
    ("project", "sources"),
    [
        ("requests", {"Makefile", "pyproject.toml [tool.pytest]", "tox.ini"}),
        ("just", {"justfile", "Cargo.toml"}),
        ("cobra", {"Makefile", "go.mod"}),
        ("express", {"package.json"}),
        ("packaging", {"noxfile.py", "pyproject.toml [tool.pytest]"}),
    ],
)
def test_each_source_of_a_real_project_is_found(project: str, sources: set[str]) -> None:
    found = detect.detect(FIXTURES / project)
    assert found.skipped == []
    assert sources <= {c.source for c in found.commands}
    assert any(c.source.startswith(".github/workflows/") for c in found.commands) == (
        project != "packaging"  # its workflows were not copied
    )


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("pyproject.toml", lambda t: t.replace("[tool.ruff]", "[tool.ruff")),
        ("package.json", lambda t: t.replace('"scripts": {', '"scripts": {{')),
        ("Makefile", lambda t: t),  # control: an intact Makefile beside the broken file
        (".github/workflows/run-tests.yml", lambda t: t.replace("jobs:", "jobs: [")),
    ],
)
def test_a_malformed_source_is_skipped_and_nothing_else_is_lost(
    tmp_path: Path, name: str, damage
) -> None:
    project = copy("requests", tmp_path)
    shutil.copy(FIXTURES / "express" / "package.json", project / "package.json")
    intact = detect.detect(project)
    path = project / name
    path.write_text(damage(path.read_text()))
    found = detect.detect(project)
    lost = {c.source.split(" ")[0].rstrip(",") for c in intact.commands} - {
        c.source.split(" ")[0].rstrip(",") for c in found.commands
    }
    if name == "Makefile":
        assert found.skipped == [] and lost == set()
    else:
        assert [s.source for s in found.skipped] == [name]
        assert lost == {name}  # only the broken source's commands are gone


def test_oversized_binary_and_unreadable_sources_are_said(tmp_path: Path) -> None:
    project = copy("requests", tmp_path)
    (project / "Makefile").write_bytes(b"test:\n\techo \xff\n")
    (project / "tox.ini").write_text("[tox]\n" + "#" * (detect.MAX_BYTES + 1))
    found = detect.detect(project)
    reasons = {s.source: s.reason for s in found.skipped}
    assert reasons == {"Makefile": "not read (not UTF-8 text)", "tox.ini": "not read (over 1 MB)"}
    assert "make test" not in {c.command for c in found.commands}


def test_nothing_found_in_an_empty_folder(tmp_path: Path) -> None:
    found = detect.detect(tmp_path)
    assert (found.commands, found.skipped) == ([], [])
