"""Each tool's own summary lines, read into (passed?, figure) (#42)."""

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


@pytest.mark.parametrize(
    ("family", "text", "expected"),
    [
        ("credo", "Analysis took 1s\n326 mods/funs, found no issues.\n", (True, "no issues")),
        (
            "credo",
            "679 mods/funs, found 1 code readability issue, 1 software design suggestion.",
            (False, "2 issues"),
        ),
        (
            "dialyzer",
            "Total errors: 0, Skipped: 0\ndone (passed successfully)",
            (True, "passed successfully"),
        ),
        ("dialyzer", "lib/a.ex:25:guard_fail\nlib/b.ex:70:13:pattern_match", (False, "2 warnings")),
        ("mix", "Finished in 0.8 seconds\n18 tests, 0 failures", (True, "18 tests, 0 failures")),
        ("mix", "1 doctest, 12 tests, 2 failures", (False, "12 tests, 2 failures")),
        ("mix-compile", "== Compilation error in file lib/a.ex ==", (False, "compilation error")),
        ("cargo-build", "   Compiling a v0.1.0\n    Finished `dev` profile", (True, "finished")),
        ("go-build", "# example.com/a\n./a.go:3:2: undefined: x", (False, "1 finding")),
        ("jest", " FAIL  src/a.test.ts\n  ● adds", (False, "1 failing test file")),
        (
            "vitest",
            " FAIL  test/b.spec.tsx > suite > case\nAssertionError",
            (False, "1 failing test file"),
        ),
        ("vitest", " \u00d7 adds two numbers 3ms", (False, "1 failing test")),
        ("go", "FAIL src/a.test.js\n", None),  # jest's line, not go's (go puts a tab)
    ],
)
def test_more_summaries(family: str, text: str, expected: tuple[bool, str] | None) -> None:
    assert outcomes.summary(family, text) == expected
