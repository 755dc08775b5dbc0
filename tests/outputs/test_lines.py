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
        ("src/errors/ValidationError.ts 11ms (unchanged)", "other"),  # nor an exception's file
        ("test/errors/NotFoundException.test.ts 3ms", "other"),
        ("lib\\failures\\retry.ex", "other"),
        ("java.lang.IllegalStateException: pool closed", "error"),
        ("src/a.ts(3,9): error TS2304: Cannot find name 'x'.", "error"),
        ("npm ERR! code ELIFECYCLE", "error"),
        ("FAILED tests/test_cart.py::test_total - assert 2 == 3", "error"),
        ("E   AssertionError: totals differ", "error"),
        ("Error: connect ECONNREFUSED 127.0.0.1:5432", "error"),
        ('{"message":"not found\\n","status":404}', "error"),  # `\n` in JSON text: an escape
        (".", "pass"),  # ExUnit's dot per passing test
        ("..", "pass"),
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
    a = "12:01:07.412 [warning] no stock for sku 3f2a9c1e-8b7d-4e6f-a5b4-c3d2e1f0a9b8"
    b = "12:01:07.415 [warning] no stock for sku 9b8a7c6d-5e4f-4a3b-b2c1-d0e9f8a7b6c5"
    assert L.shape(a) == L.shape(b)  # a UUID is an id, whatever its letters


def test_parts_stand_in_for_ids_times_and_durations_but_keep_counts() -> None:
    a = L.parts("src/api/client.ts 53ms (unchanged)")
    assert a == ["src/api/client.ts", "#", "(unchanged)"]
    assert L.name_at(a, L.parts("src/api/attio-client.ts 9ms (unchanged)")) == 0
    assert L.name_at(a, L.parts("src/api/client.ts 12ms (unchanged)")) == -1  # no difference
    assert L.parts("2026-03-04T09:00:15.555Z took 1.5s for 12 files at 09:00:16") == [
        "#", "took", "#", "for", "12", "files", "at", "#"
    ]  # fmt: skip
    assert L.name_at(L.parts("  ash 3.16.0"), L.parts("  bunt 1.0.0")) is None  # two words
    assert L.name_at(L.parts("Line 12: x"), L.parts("Line 13: x")) is None  # a count, no name
    assert L.name_at(L.parts("a b"), L.parts("a b c")) is None


def test_a_gutter_line_is_a_drawn_diagnostics_margin_not_a_table() -> None:
    for line in ("    │", " 264 │   defp x do", "  |", "2 |     let x = 5;", "    └─ lib/a.ex:3:5"):
        assert L.is_gutter(line), line
    for line in ("| name | size |", "a | b", "plain"):
        assert not L.is_gutter(line), line
