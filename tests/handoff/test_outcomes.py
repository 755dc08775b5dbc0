"""Reading a tool's own summary, and the signs of a missing tool, from its output (#42)."""

from __future__ import annotations

import pytest

from ccstate.handoff import outcomes


@pytest.mark.parametrize(
    ("family", "text", "expected"),
    [
        ("pytest", "....\n4 passed, 1 skipped in 0.31s\n", (True, "4 passed, 1 skipped")),
        (
            "pytest",
            "=== 2 failed, 10 passed, 3 warnings in 1.20s ===",
            (False, "2 failed, 10 passed"),
        ),
        (
            "pytest",
            "ERROR: file or directory not found: t.py\n\nno tests ran in 0.01s",
            (False, "no tests ran"),
        ),
        ("pytest", "!!! Interrupted: 1 error during collection !!!\n", None),
        (
            "pytest",
            "Interrupted: 2 errors during collection\n",
            (False, "2 errors during collection"),
        ),
        ("unittest", "...\n-----\nRan 817 tests in 3.2s\n\nOK\n", (True, "817 tests OK")),
        ("unittest", "Ran 5 tests in 0.1s\n\nOK (skipped=2)", (True, "5 tests OK (skipped=2)")),
        (
            "unittest",
            "Ran 9 tests in 0.1s\n\nFAILED (failures=2, errors=1)",
            (False, "9 tests, FAILED (failures=2, errors=1)"),
        ),
        ("unittest", "Ran 0 tests in 0.000s\n\nOK", (False, "no tests ran")),
        (
            "jest",
            "Test Suites: 1 failed, 3 passed, 4 total\nTests:       20 passed, 20 total",
            (False, "1 failed, 3 passed, 4 total"),
        ),
        (
            "vitest",
            " Test Files  2 passed (2)\n      Tests  117 passed (117)",
            (True, "tests: 117 passed"),
        ),
        (
            "cargo",
            "test result: ok. 5 passed; 0 failed;\ntest result: ok. 0 passed; 0 failed;",
            (True, "5 passed, 0 failed"),
        ),
        (
            "cargo",
            "error[E0425]: cannot find value `x`\nerror: could not compile `app`",
            (False, "compile error"),
        ),
        (
            "go",
            "ok  \tgithub.com/a/b\t0.01s\n--- FAIL: TestX (0.00s)\nFAIL\tgithub.com/a/c\t0.02s",
            (False, "1 package failed"),
        ),
        (
            "black",
            "would reformat a.py\nOh no! 💥 💔 💥\n1 file would be reformatted.",
            (False, "1 would be reformatted"),
        ),
        (
            "black",
            "All done! ✨ 🍰 ✨\n12 files would be left unchanged.",
            (True, "12 files formatted"),
        ),
        ("ruff", "All checks passed!", (True, "all checks passed")),
        ("ruff", "a.py:1:1: F401 unused\nFound 3 errors.\n[*] 2 fixable", (False, "3 errors")),
        ("ruff", "Found 2 errors (2 fixed, 0 remaining).", (True, "0 errors")),
        ("mypy", "Success: no issues found in 12 source files", (True, "no issues in 12 files")),
        (
            "mypy",
            "a.py:3: error: x\nFound 1 error in 1 file (checked 4 source files)",
            (False, "1 error"),
        ),
        (
            "tsc",
            "src/a.ts(3,1): error TS2322: x\nsrc/b.ts(1,1): error TS2304: y",
            (False, "2 errors"),
        ),
        ("eslint", "✖ 3 problems (0 errors, 3 warnings)", (True, "0 errors")),
        ("flake8", "a.py:1:80: E501 line too long\nb.py:2:1: F401 unused", (False, "2 findings")),
        ("any", "make: *** [Makefile:4: test] Error 1", (False, "make error")),
        (
            "any",
            "> x@1 test\n> jest\n\nTests:       2 passed, 2 total",
            (True, "tests: 2 passed, 2 total"),
        ),
        ("mvn", "[INFO] BUILD SUCCESS", (True, "build successful")),
        ("any", "Finished in 0.1 seconds\n5 tests, 0 failures", (True, "5 tests, 0 failures")),
        ("any", "10 examples, 1 failure", (False, "10 examples, 1 failures")),
        ("pytest", "nothing to see", None),
    ],
)
def test_summary(family: str, text: str, expected: tuple[bool, str] | None) -> None:
    assert outcomes.summary(family, outcomes.clean(text)) == expected


def test_colours_are_ignored() -> None:
    assert outcomes.summary("pytest", outcomes.clean("\x1b[32m3 passed\x1b[0m in 0.1s\r")) == (
        True,
        "3 passed",
    )


@pytest.mark.parametrize(
    ("names", "text", "expected"),
    [
        (("black", "python3"), "/usr/bin/python3: No module named black", True),
        (("black", "python3"), "ModuleNotFoundError: No module named 'black'", True),
        (("black",), "/bin/bash: line 1: black: command not found", True),
        (("black",), "zsh: command not found: black", True),
        (("black",), "sh: 1: black: not found", True),
        (("eslint",), "'eslint' is not recognized as an internal or external command,", True),
        ((".venv/bin/pytest", "pytest"), "bash: .venv/bin/pytest: No such file or directory", True),
        (("pytest",), "error: Failed to spawn: `pytest`\n  Caused by: No such file", True),
        (("cargo", "nextest"), "error: no such command: `nextest`", True),
        (("pytest", "python3"), "E   ModuleNotFoundError: No module named 'numpy'", False),
        (("black",), "black: MISSING", False),
        (("pytest",), "1 passed in 0.1s", False),
    ],
)
def test_missing(names: tuple[str, ...], text: str, expected: bool) -> None:
    assert outcomes.missing(names, text) is expected
