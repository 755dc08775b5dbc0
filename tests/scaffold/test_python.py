"""pyproject.toml, tox.ini and noxfile.py of real Python projects."""

from __future__ import annotations

from pathlib import Path

from ccstate.scaffold import python

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"


def commands(project: str) -> dict[str, tuple[str, str, str]]:
    data, skipped = python.read_toml(FIXTURES / project / "pyproject.toml")
    assert skipped is None and data is not None
    return {c.command: (c.kind, c.source, c.note) for c in python.pyproject(data)}


def test_pytest_and_ruff_tables_say_how_requests_tests_and_lints() -> None:
    found = commands("requests")
    assert found["python -m pytest"] == (
        "test",
        "pyproject.toml [tool.pytest]",
        "testpaths: tests",
    )
    assert found["ruff check ."][0] == "lint"


def test_hatch_scripts_run_in_their_environment() -> None:
    found = commands("wizard-template")
    assert found["hatch run test"] == (
        "test",
        "pyproject.toml [tool.hatch.envs.default]",
        "pytest --cov --cov-report=term {args}",
    )
    assert found["hatch run test:extended"][0] == "test"
    assert found["hatch run docs:serve"][0] == "run"
    assert found["hatch run qa"][2] == "check; test; echo '✅ QA passed'"
    assert "hatch run _wizard" not in found  # a private helper of the other scripts


def test_tox_ini_gives_its_envs_and_what_they_run() -> None:
    found, skipped = python.tox_ini((FIXTURES / "requests" / "tox.ini").read_text())
    assert skipped is None
    (tox,) = found
    assert (tox.command, tox.kind) == ("tox", "test")
    assert tox.note.startswith("envs: py{310,311,312,313,314}") and "pytest {posargs" in tox.note


def test_nox_sessions_are_read_with_their_docstrings() -> None:
    found, skipped = python.noxfile((FIXTURES / "packaging" / "noxfile.py").read_text())
    assert skipped is None
    by = {c.command: (c.kind, c.note) for c in found}
    assert by["nox -s tests"] == ("test", "Run the tests, with coverage.")
    assert by["nox -s lint"] == ("lint", "Run the linters.")
    assert by["nox -s docs"][0] == "docs"


def test_malformed_files_are_skipped_with_their_reason(tmp_path: Path) -> None:
    broken = tmp_path / "pyproject.toml"
    real = (FIXTURES / "requests" / "pyproject.toml").read_text()
    broken.write_text(real.replace("[tool.pytest.ini_options]", "[tool.pytest.ini_options"))
    data, skipped = python.read_toml(broken)
    assert data is None and skipped is not None
    assert skipped.source == "pyproject.toml" and skipped.reason.startswith("not read (")
    found, skipped = python.noxfile("@nox.session\ndef tests(session)\n    pass\n")
    assert found == [] and skipped is not None and skipped.source == "noxfile.py"
    found, skipped = python.tox_ini("envlist = py3\n[testenv]\n")  # no [tox] header first
    assert found == [] and skipped is not None and skipped.source == "tox.ini"
