"""Normalising and classifying output lines (outputs/lines.py)."""

from __future__ import annotations

import pytest

from ccstate.outputs import lines as L


def test_normalize_strips_terminal_codes_and_keeps_the_last_redraw() -> None:
    text = "\x1b[32m✓\x1b[39m ok\r\n\r[#..] 10%\r[##.] 50%\r[###] 100%\nend\x1b]0;title\x07"
    assert L.normalize(text) == ["✓ ok", "[###] 100%", "end"]


def test_normalize_leaves_plain_text_as_it_is() -> None:
    assert L.normalize("a\nb\n") == ["a", "b", ""]


@pytest.mark.parametrize(
    "line, kind",
    [
        ("", "blank"),
        (" ✓ src/a.test.ts > handles an error 3ms", "pass"),  # a test's name is no failure
        ("test store::tests::round_trip ... ok", "pass"),
        ("tests/test_a.py::test_x PASSED                    [ 10%]", "pass"),
        ("--- PASS: TestThing (0.00s)", "pass"),
        ("ok  \texample.com/app/api\t0.12s", "pass"),
        (" ↓ src/slow.test.ts > skipped case", "pass"),
        ("tests/test_a.py ....s..   [ 40%]", "pass"),
        ("      Tests  3 failed | 117 passed (120)", "summary"),
        ("=== 1 failed, 83 passed, 1 warning in 2.41s ===", "summary"),
        ("test result: FAILED. 39 passed; 1 failed; 0 ignored", "summary"),
        ("added 412 packages, and audited 413 packages in 9s", "summary"),
        ("Exit code 2", "summary"),
        (" \u00d7 src/cart.test.ts > cart > case 07 12ms", "error"),  # vitest's cross
        ("E       assert 29 == 30", "error"),
        ("TypeError: Cannot read properties of undefined", "error"),
        ("error[E0308]: mismatched types", "error"),
        ("[ERROR] Failed to execute goal", "error"),
        ("thread 'main' panicked at src/main.rs:2:5:", "error"),
        ("  1) test creates a user (MyApp.UserTest)", "error"),
        ("/work/src/errors/api-errors.ts", "other"),  # a path, not an error
        ("src/utils/error-handler.test.ts", "other"),
        ("  onError: (e) => log(e),", "other"),
        ("warning: unused variable: `cfg`", "warning"),
        ("npm warn deprecated glob@7.2.3: no longer supported", "warning"),
        ("   Compiling serde v1.0.210", "noise"),
        ("  Downloaded regex v1.10.6", "noise"),
        ("Collecting requests==2.32.3", "noise"),
        ("#5 sha256:4f1c 12.0MB / 24.0MB 1.2s", "noise"),
        (" create mode 100644 src/app.py", "noise"),
        ("[#####.....] 50% (5/10)", "noise"),
        ("    at connect (/work/db.js:10:3)", "frame"),
        ('  File "/work/run.py", line 88, in <module>', "frame"),
        ("just some text", "other"),
    ],
)
def test_classify(line: str, kind: str) -> None:
    assert L.classify(line) == kind


def test_a_failure_line_is_an_error_line_that_is_no_passing_test() -> None:
    assert L.is_failure_line("FAIL src/a.test.ts")
    assert not L.is_failure_line(" ✓ src/a.test.ts > throws an error")
    assert not L.is_failure_line("src/errors/index.ts")


def test_shape_stands_in_for_numbers_and_with_names_for_quoted_names() -> None:
    assert L.shape("GET /items/12 200 in 7ms") == L.shape("GET /items/913 200 in 12ms")
    assert L.shape("commit 4f1c2d3e9a") == L.shape("commit 0a1b2c3d4e")
    a, b = "  12:5  warning  'a' is unused", "  7:19  warning  'bb' is unused"
    assert L.shape(a) != L.shape(b) and L.shape(a, names=True) == L.shape(b, names=True)
    assert L.shape('"id": 1,') != L.shape('"name": 2,')  # data lines keep their names
