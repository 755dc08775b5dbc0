"""What a compaction must keep, from the handoff's scan and git (#26)."""

from __future__ import annotations

from ccstate.gitinfo import Snapshot
from ccstate.handoff.checks import Check, Verdict
from ccstate.handoff.facts import steer_facts
from ccstate.handoff.scan import Problem, Scan, Todo, Touch
from ccstate.secrets.redact import Redactor

ROOT = "/work/demo"


def _scan() -> Scan:
    scan = Scan()
    for n, path in enumerate(("src/a.py", "src/b.py", "notes/new.md"), 1):
        scan.touches[f"{ROOT}/{path}"] = Touch(f"{ROOT}/{path}", "edited", 1, n, n)
    failed = Verdict("pytest", "test", "", "FAILED", "1 failed")
    scan.checks["pytest"] = Check("pytest -q", failed, 10, "1 failed")
    scan.checks["ruff check"] = Check("ruff check", Verdict("ruff check", "lint", "", "passed"), 11)
    scan.problems["Bash:deploy"] = Problem(
        "Bash",
        "deploy --token sk-ant-api03-" + "aB3xK9mQ2vL8pR5tW1zY7nC4",
        "no",
        12,  # no x-run: a placeholder stays
    )
    scan.todos = [Todo("completed", "done", 5), Todo("in_progress", "the  parser", 6)]
    return scan


def test_edited_files_git_still_shows_changed_failing_checks_errors_todos_notes() -> None:
    snap = Snapshot("main", "abc", dirty=(" M src/a.py", "?? notes/"))
    facts = steer_facts(_scan(), snap, ["ship it"], Redactor(), [ROOT])
    assert facts["edited"] == ["notes/new.md", "src/a.py"]  # src/b.py was committed
    assert facts["failing"] == ["pytest -q"]
    ((tool, subject, message),) = facts["errors"]
    assert tool == "Bash" and "sk-ant" not in subject and message == "no"
    assert facts["todos"] == [["in_progress", "the parser"]]
    assert facts["next"] == ["ship it"] and facts["git"] is True


def test_without_git_every_edited_file_is_listed() -> None:
    facts = steer_facts(
        _scan(), Snapshot(None, None, note="not a git repository"), [], Redactor(), [ROOT]
    )
    assert facts["git"] is False
    assert facts["edited"] == ["notes/new.md", "src/b.py", "src/a.py"]
