"""GitHub workflows: the commands CI runs on a change."""

from __future__ import annotations

from pathlib import Path

from ccstate.scaffold import ci

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"


def run(project: str, name: str) -> list[tuple[str, str]]:
    rel = f".github/workflows/{name}"
    found, skipped = ci.workflow((FIXTURES / project / rel).read_text(), rel)
    assert skipped is None
    return [(c.kind, c.command) for c in found]


def test_the_steps_ci_runs_on_a_change() -> None:
    assert run("more-itertools", "python-app.yml") == [
        ("test", "make coverage"),
        ("lint", "make requirements check"),
        ("docs", "make docs"),
        ("build", "make package"),
    ]
    assert ("test", "make ci") in run("requests", "run-tests.yml")
    assert ("lint", "npm run lint") in run("express", "ci.yml")


def test_a_workflow_not_run_on_a_change_says_nothing_about_checks() -> None:
    assert run("requests", "close-issues.yml") == []  # issues and a schedule only


def test_shell_scripts_and_ci_expressions_are_left_out() -> None:
    commands = [command for _kind, command in run("ripgrep", "ci.yml")]
    assert not [c for c in commands if "${{" in c or c.startswith(("if ", "fi", "set "))]


def test_malformed_yaml_is_skipped_with_its_reason() -> None:
    found, skipped = ci.workflow("jobs:\n  a: [unclosed\n", ".github/workflows/bad.yml")
    assert found == [] and skipped is not None
    assert skipped.source == ".github/workflows/bad.yml"
    assert skipped.reason.startswith("not read (") and skipped.reason.endswith("fix it and rerun")
