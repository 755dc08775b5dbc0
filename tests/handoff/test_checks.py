"""A check passes only when ccstate can tell it ran (#42): one verdict per tool."""

from __future__ import annotations

import pytest

from ccstate.handoff.checks import Status, Verdict, classify, failure_line, status_of


def said(line: str, output: str, status: Status | None = None) -> list[str]:
    return [f"{v.key}: {v.text()}" for v in classify(line, output, status or Status(0))]


def test_the_issues_verification_section_told_the_truth_now() -> None:
    """The four lines #42 quotes, with the output their session saw."""
    lint = (
        "python3 -m black --check more_itertools 2>&1 | tail -3; "
        "python3 -m flake8 more_itertools | tail -5; python3 -m unittest 2>&1 | tail -5"
    )
    out = (
        "/usr/bin/python3: No module named black\n/usr/bin/python3: No module named flake8\n"
        "Ran 817 tests in 3.2s\n\nOK\n"
    )
    assert said(lint, out) == [
        "black: not installed",
        "flake8: not installed",
        "unittest: 817 tests OK",
    ]
    loop = (
        'for t in black flake8 stubtest; do command -v $t >/dev/null && echo "$t: ok" || '
        'echo "$t: MISSING"; done; black --check more_itertools'
    )
    out = (
        "black: MISSING\nflake8: MISSING\nstubtest: MISSING\nbash: line 1: black: command not found"
    )
    assert said(loop, out, Status(127)) == ["black: not installed"]
    assert said("python3 -m unittest 2>&1 | tail -5", "Ran 817 tests in 3.2s\n\nOK") == [
        "unittest: 817 tests OK"
    ]
    assert said("ls; ls tests; cat tox.ini Makefile 2>/dev/null | head -60", "[tox]\n") == []


@pytest.mark.parametrize(
    ("line", "output", "status", "expected"),
    [
        # the status through a pipe is tail's: not a pass by itself
        (
            "npm test 2>&1 | tail -20",
            "ok then",
            Status(0),
            ["npm test: ran (status through a pipe)"],
        ),
        ("pytest -q 2>&1 | tail -3", "...\n3 passed in 0.2s", Status(0), ["pytest: 3 passed"]),
        (
            "pytest -q | tail -3",
            "F..\n1 failed, 2 passed in 0.2s",
            Status(0),
            ["pytest: FAILED (1 failed, 2 passed)"],
        ),
        # the tool ends the line: its status is the line's
        ("tsc --noEmit", "", Status(0), ["tsc: passed"]),
        (
            "go vet ./...",
            "Exit code 1\nvet: x.go:3:2: bad",
            Status(1),
            ["go vet: FAILED (1 finding)"],
        ),
        ("flake8 src", "", Status(1), ["flake8: FAILED (exit 1)"]),
        (
            "pytest -q",
            "Exit code 127\npytest: command not found",
            Status(127),
            ["pytest: not installed"],
        ),
        # an echoed status
        ('pytest -q; echo "exit=$?"', "..F\nexit=1", Status(0), ["pytest: FAILED (exit 1)"]),
        (
            "pytest -q 2>&1 | tail -3; echo EXIT: ${PIPESTATUS[0]}",
            "x\nEXIT: 0",
            Status(0),
            ["pytest: passed"],
        ),
        (
            'pytest -q | tail -3; echo "exit=$?"',
            "x\nexit=0",
            Status(0),
            ["pytest: ran (status through a pipe)"],
        ),
        ("make test && echo PASS || echo FAIL", "FAIL", Status(0), ["make test: FAILED"]),
        ("make lint && echo LINT_OK", "LINT_OK", Status(0), ["make lint: passed"]),
        # `;` hides a status; `&&` after a tool that the line shows passed
        ("make test; echo done", "done", Status(0), ["make test: ran (status not shown)"]),
        ("cargo build && ./target/debug/app --help", "usage", Status(0), ["cargo build: passed"]),
        (
            "set -e; make build; make test",
            "",
            Status(0),
            ["make build: passed", "make test: passed"],
        ),
        # a failed step stops an `&&` chain: what follows never ran
        (
            "ruff check . && mypy src && pytest",
            "Found 3 errors.",
            Status(1),
            [
                "ruff check: FAILED (3 errors)",
                "mypy: did not run (an earlier step failed)",
                "pytest: did not run (an earlier step failed)",
            ],
        ),
        ("command -v black && black --check .", "", Status(1), ["black: not installed"]),
        (
            "npm run lint",
            'npm error Missing script: "lint"',
            Status(1),
            ["npm run lint: did not run (no such script or target)"],
        ),
        (
            "make test",
            "make: pytest: No such file or directory\nmake: *** [test] Error 127",
            Status(2),
            ["make test: FAILED (make error)"],
        ),
        (
            "pytest",
            "<tool_use_error>Blocked</tool_use_error>",
            Status(None),
            ["pytest: did not run (refused)"],
        ),
        ("pytest -x", "", Status(0, background=True), ["pytest: started in the background"]),
        ("pytest -x", "...", Status(None, interrupted=True), ["pytest: did not finish"]),
        # a summary says passed, the tool's own status says no: FAILED
        (
            "pytest --cov --cov-fail-under=90",
            "Exit code 1\n5 passed in 1s\nFAIL Required test coverage",
            Status(1),
            ["pytest: FAILED (5 passed; exit 1)"],
        ),
    ],
)
def test_verdicts(line: str, output: str, status: Status, expected: list[str]) -> None:
    assert said(line, output, status) == expected


def test_a_verdict_is_keyed_by_tool_and_target() -> None:
    (one,) = classify("uv run pytest tests/a.py -q", "1 passed in 0.1s", Status(0))
    assert one == Verdict("pytest", "test", "tests/a.py", "passed", "1 passed")
    assert (one.key, one.ok) == ("pytest tests/a.py", True)
    assert Verdict("black", "lint", "", "not installed").ok is False
    assert Verdict("npm test", "test", "", "ran (status through a pipe)").ok is None


def test_status_from_claude_codes_result() -> None:
    assert status_of(
        "Exit code 2\nboom", is_error=True, interrupted=False, background=False
    ) == Status(2)
    assert status_of("boom", is_error=True, interrupted=False, background=False) == Status(None)
    assert status_of("fine", is_error=False, interrupted=True, background=False) == Status(0, True)


def test_failure_line() -> None:
    assert (
        failure_line("Exit code 2\n> build\nError: Cannot find module 'x'")
        == "Error: Cannot find module 'x'"
    )
    assert failure_line("Exit code 1\nplain") == "plain"


def test_several_package_scripts_each_read_their_own_output() -> None:
    """`> name@1.0 script` lines cut the output per script; a post-script means the script
    passed; a script whose line never shows never started."""
    line = "npm run lint && npm run typecheck && npm run build && npm run test"
    out = (
        "> app@1.0.0 lint\n> eslint .\n\n\u2716 3 problems (0 errors, 3 warnings)\n\n"
        "> app@1.0.0 typecheck\n> tsc --noEmit\n\nsrc/a.ts(1,1): error TS2322: no\n"
    )
    assert said(line, "Exit code 2\n" + out, Status(2)) == [
        "npm run lint: 0 errors",
        "npm run typecheck: FAILED (1 error)",
        "npm run build: did not run (an earlier step failed)",
        "npm test: did not run (an earlier step failed)",
    ]
    piped = "npm run build 2>&1 | tail -3"
    assert said(piped, "\n> app@1.0.0 postbuild\n> chmod +x dist/cli.js\n") == [
        "npm run build: postbuild ran"
    ]
    quiet = "npm run lint && npm run -s build"
    assert said(quiet, "> app@1.0.0 lint\n> eslint .\n") == [
        "npm run lint: passed",
        "npm run build: passed",
    ]


def test_what_ran_is_the_command_without_its_output_plumbing() -> None:
    line = "cd web && FOO=1 npm test -- -t 'adds two' 2>&1 | tail -5; echo done"
    (verdict,) = classify(line, "Tests:  1 passed, 1 total", Status(0))
    assert verdict.ran == "cd web && FOO=1 npm test -- -t 'adds two'"
