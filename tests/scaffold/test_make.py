"""Makefile targets and justfile recipes, read from real projects' files."""

from __future__ import annotations

from pathlib import Path

from ccstate.scaffold import make

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"


def targets(project: str, name: str = "Makefile") -> dict[str, tuple[str, str]]:
    reader = make.justfile if name == "justfile" else make.makefile
    text = (FIXTURES / project / name).read_text()
    return {c.command: (c.kind, c.note) for c in reader(text, name)}


def test_requests_makefile_names_its_targets_and_what_each_runs() -> None:
    found = targets("requests")
    assert found["make test"] == ("test", "python -m pytest tests")
    assert found["make init"] == ("install", "python -m pip install -r requirements-dev.txt")
    assert found["make docs"][0] == "docs"
    assert found["make publish"][0] == "release"
    # `.PHONY` and `.publishenv` (a file target) are not commands a person types
    assert not [name for name in found if name.startswith("make .")]


def test_a_recipe_is_told_by_its_first_line_that_is_more_than_set_up() -> None:
    found = targets("more-itertools")
    # `coverage` installs its requirements first: the line that counts is the run
    assert found["make coverage"] == (
        "test",
        'coverage run --include="more_itertools/*.py" -m unittest',
    )
    assert found["make test"] == ("test", "python -m unittest -v ${tests}")
    assert found["make check"] == ("lint", "ruff format --check .")
    assert found["make format"] == ("format", "ruff format .")
    assert found["make all-checks"] == ("lint", "runs requirements coverage check docs package")


def test_variables_and_conditionals_are_not_targets() -> None:
    found = targets("cobra")
    assert "make BIN" not in found and "make SRC" not in found
    assert found["make test"] == ("test", "go test -v $(GO_TEST_FLAGS) ./...")
    assert found["make lint"] == ("lint", "golangci-lint run -v")


def test_justfile_recipes_with_parameters_doc_comments_and_attributes() -> None:
    found = targets("just", "justfile")
    assert found["just test"][0] == "test"
    assert found["just filter PATTERN"] == ("test", "only run tests matching `PATTERN`")
    assert found["just fmt"] == ("format", "cargo fmt --all")
    assert found["just replace FROM TO"][0] == "other"
    # `alias t := test`, `log := "warn"` and `export JUST_LOG := log` are not recipes
    assert not [n for n in found if n.split()[1] in ("t", "log", "JUST_LOG", "export")]


def test_a_huge_generated_makefile_is_cut_to_what_a_person_reads() -> None:
    text = "".join(f"target{i}:\n\techo {i}\n" for i in range(500))
    assert len(make.makefile(text)) == make.MAX_TARGETS
