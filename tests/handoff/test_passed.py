"""The commands that passed, per branch, newest first (#39.2)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from ccstate.handoff import passed
from ccstate.handoff.checks import Check, Verdict
from ccstate.secrets.redact import Redactor


def entry(
    command: str,
    tool: str = "pytest",
    kind: str = "test",
    session: str = "s1",
    time: str = "2026-03-01T10:00:00Z",
) -> dict[str, str]:
    return {"command": command, "tool": tool, "kind": kind, "session": session, "time": time}


def test_merge_is_newest_first_once_per_command_and_bounded() -> None:
    data = passed.merge(
        passed.empty(), "main", [entry("pytest -q"), entry("ruff check .", "ruff check", "lint")]
    )
    data = passed.merge(
        data, "main", [entry("pytest -q", session="s2", time="2026-03-02T00:00:00Z")]
    )
    main = data["branches"]["main"]
    assert [(e["command"], e["session"], e["seq"]) for e in main] == [
        ("pytest -q", "s2", 3),
        ("ruff check .", "s1", 2),
    ]
    assert (
        passed.merge(data, "main", [entry("pytest -q", session="s2", time="2026-03-02T00:00:00Z")])
        == data
    )
    many = passed.empty()
    for n in range(passed.MAX_PER_BRANCH + 5):
        many = passed.merge(many, f"b{n % (passed.MAX_BRANCHES + 3)}", [entry(f"pytest t{n}.py")])
    assert len(many["branches"]) == passed.MAX_BRANCHES
    assert all(len(v) <= passed.MAX_PER_BRANCH for v in many["branches"].values())


def test_last_passing_and_the_list() -> None:
    data = passed.merge(
        passed.empty(),
        "main",
        [entry("make test", "make test"), entry("npm run build", "npm run build", "build")],
    )
    data = passed.merge(data, "feature/x", [entry("pytest -q tests/x.py")])
    assert passed.last_passing(data, "main") == ("main", data["branches"]["main"][1])
    assert passed.last_passing(data, "main", "build")[1]["command"] == "npm run build"  # type: ignore[index]
    assert passed.last_passing(data, "other") is None
    assert passed.last_passing(data, "other", any_branch=True) == (
        "feature/x",
        data["branches"]["feature/x"][0],
    )
    assert [e["command"] for e in passed.passing_commands(data, "main")] == [
        "npm run build",
        "make test",
    ]
    assert passed.passing_commands(data, "main", ("lint",)) == []


def test_found_in_keeps_passed_checks_only_redacted(tmp_path: Path) -> None:
    secret = "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345"
    checks = [
        Check(
            f"GITHUB_TOKEN={secret} pytest -q",
            Verdict("pytest", "test", "", "passed"),
            5,
            time="T5",
        ),
        Check("black --check .", Verdict("black", "lint", "", "not installed"), 3),
        Check("npm test | tail", Verdict("npm test", "test", "", "ran (status through a pipe)"), 4),
        Check("x" * 400, Verdict("pytest", "test", "", "passed"), 6),
    ]
    found = passed.found_in(checks, "s1", "WRITTEN", Redactor())
    assert [(e["command"], e["time"]) for e in found] == [
        ("GITHUB_TOKEN=[REDACTED:generic-api-key] pytest -q", "T5")
    ]


def test_record_writes_a_private_file_and_fails_open(tmp_path: Path) -> None:
    state = tmp_path / ".ccstate"
    assert passed.record(state, "main", [entry("pytest -q")])
    path = Path(passed.passed_path(state))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert not passed.record(state, "main", [entry("pytest -q")])  # the same run: no write
    assert passed.read_passed(state)["branches"]["main"][0]["command"] == "pytest -q"
    path.write_text("{not json")
    assert passed.read_passed(state) == passed.empty()
    assert passed.record(state, "main", [entry("pytest -q")])  # a corrupt store starts afresh
    if os.geteuid() != 0:
        path.parent.chmod(0o500)
        try:
            assert not passed.record(state, "main", [entry("make test", "make test")])
        finally:
            path.parent.chmod(0o700)
    assert json.loads(path.read_text())["schema_version"] == 1


def test_capsule_line() -> None:
    data = passed.merge(
        passed.empty(), "main", [entry("python3 -m pytest -q", session="ab12cd34-ffff")]
    )
    rows = passed.capsule_rows(data)
    assert passed.capsule_line(rows, "main") == [
        "- tests: `python3 -m pytest -q` passed (session ab12cd34)"
    ]
    assert passed.capsule_line(rows, "dev") == [
        "- tests: `python3 -m pytest -q` passed (session ab12cd34, branch main)"
    ]
    assert passed.capsule_line({}, "main") == []
    assert passed.capsule_line({"main": ["x", 3]}, "main") == []  # damaged: no line, no crash
