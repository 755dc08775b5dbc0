"""Normalising and classifying output lines (outputs/lines.py)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccstate.outputs import lines as L
from ccstate.secrets import needs
from helpers import FIXTURES, PUBLIC


def test_normalize_strips_terminal_codes_and_keeps_the_last_redraw() -> None:
    text = "\x1b[32m✓\x1b[39m ok\r\n\r[#..] 10%\r[##.] 50%\r[###] 100%\nend\x1b]0;title\x07"
    assert L.normalize(text) == ["✓ ok", "[###] 100%", "end"]


def test_a_failure_a_redraw_drew_over_stays_before_the_last_frame() -> None:
    text = "get 10%\rERROR: connection reset by peer\rget 20%\rget 20%\nretry 1\rretry 2"
    assert L.normalize(text) == ["ERROR: connection reset by peer \u21b5 get 20%", "retry 2"]
    # a failure in the last frame is that frame; one repeated is said once
    text = "\u2717 a failed\rx\r\u2717 a failed\rdone: Error: boom"
    assert L.normalize(text) == ["\u2717 a failed \u21b5 done: Error: boom"]


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


# --------------------------------------------------------------------------- the quick checks
# `classify` and `is_failure_line` run each rule's parts only where they can match (`_is_pass`,
# `_is_summary`, `_is_error`...), and `shape` a quicker pattern: they must give what the whole
# patterns give, as `classify` ran them before (the reference below).
PASS = re.compile("|".join(L._PASS_PARTS))
SUMMARY = re.compile("|".join(L._SUMMARY_PARTS), re.IGNORECASE)
ERROR = re.compile(f"{L._ERROR_WORD}|{L._ERROR_MARK}", re.IGNORECASE)
NOISE = re.compile("|".join(L._NOISE_PARTS))
HEX = re.compile(L._HEX)


def reference_classify(line: str) -> str:
    if not line.strip():
        return "blank"
    if PASS.search(line):
        return "pass"
    if SUMMARY.search(line):
        return "summary"
    if ERROR.search(line) or L._EXCEPTION.search(line):
        return "error"
    if L._WARNING.search(line):
        return "warning"
    if line.split(None, 1)[0] in L._NOISE_WORDS or NOISE.search(line):
        return "noise"
    if L._FRAME.search(line):
        return "frame"
    return "other"


def _check_quick(rows: list[str]) -> None:
    assert L.classify_all(rows) == [reference_classify(row) for row in rows]
    assert L.failure_lines(rows) == [row for row in rows if L.is_failure_line(row)]
    for row in rows:
        assert L.classify(row) == reference_classify(row), row
        failure = bool(ERROR.search(row) or L._EXCEPTION.search(row)) and not PASS.search(row)
        assert L.is_failure_line(row) == failure, row
        assert L._HEX_QUICK.sub("0", row) == HEX.sub("0", row), row
        assert L.shape(row) == re.sub(r"\s+", " ", HEX.sub("0", row)).strip(), row


def test_the_quick_checks_give_what_the_patterns_give_on_the_fixtures() -> None:
    texts = [p.read_text() for p in sorted((FIXTURES / "outputs").glob("*.txt"))]
    assert len(texts) > 10
    for text in texts:
        _check_quick(L.normalize(text))


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="../shared/transcripts/public is not here")
def test_the_quick_checks_give_what_the_patterns_give_on_the_public_transcripts() -> None:
    rows = 0
    for path in sorted(PUBLIC.rglob("*.jsonl")):
        for raw in path.read_text(errors="replace").splitlines():
            record = json.loads(raw) if '"tool_result"' in raw else {}
            content = (record.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else ():
                text = block.get("content") if isinstance(block, dict) else None
                if isinstance(text, str) and len(text) > 500:
                    lines = L.normalize(text)
                    rows += len(lines)
                    _check_quick(lines)
    assert rows > 10_000


def test_a_line_lower_case_cannot_stand_for_runs_the_patterns_as_they_are() -> None:
    assert L._FOLDS_TO_ASCII == needs.FOLDS_TO_ASCII  # checked against every code point there
    # KELVIN SIGN and LONG S: `re.IGNORECASE` matches them with k and s, `str.lower` does not
    rows = ["a \u212aeyError", "a\u017fsertion failed", "3 pa\u017f\u017fed", "\u212a warn"]
    assert [L._lowered(row) for row in rows] == [None] * 4
    _check_quick(rows)
    assert [L.classify(row) for row in rows[1:3]] == ["error", "summary"]


def test_whitespace_as_a_pattern_sees_it_is_whitespace_as_a_line_split_sees_it() -> None:
    # `_NOISE_WORDS` is checked on `line.split()[0]`, `_PASS_ENDS` after `rstrip()`
    spaces = [chr(c) for c in range(0x3100) if re.fullmatch(r"\s", chr(c))]
    assert spaces == [chr(c) for c in range(0x3100) if chr(c).isspace()]


_WORDS = [
    *L._FAILURE_WORDS,
    *L._NOISE_WORDS,
    "...",
    "passed",
    ".py",
    " passing",
    "3 skipped",
    "12 Tests",
    " todo",
    "build succe",
    "warn",
    "deprecat",
    # whole matches of each part of the rules
    "3 todo",
    "1 xfailed",
    "2 Warnings",
    "BUILD FAILURE",
    "Build failed",
    "Done in 3s",
    "exit status 1",
    "=== x ===",
    "*** y ***",
    "added 3 packages",
    "2 files changed",
    "Ran 3 tests",
    "Snapshots: 1",
    "deprecated",
    "Deprecation",
    "WARN",
    "50% |████",
    "(3/10) 40%",
    "+ a==1.0",
    "E   ",
    "2) test",
    " PASSED [ 10%]",
    "a.py ..s",
    "panicked",
    "Traceback",
    "%",
    "==",
    ".go:",
    "PASSED",
    "Error",
    "TypeError",
    "Exception",
    "BUILD SUCCESS",
    "Build succeeded",
    "Test Suites:",
    "test result:",
    "Exit code",
    "exit status",
    "up to date",
    "packages",
    "Using cached",
    "go: downloading",
    "* Fetching",
    "Step 2/5",
    "---> ",
    "==> ",
    "#12 ",
    "4f1c2d3e9a0b: Pulling",
    "create mode 100644 ",
    'File "a.py", line 3',
    "at f (a.js:1:2)",
    "from a.rb:3",
    "12: 0x1f",
    "x.go:12",
    "(a.ts:3:9)",
    "1) test",
    "E   ",
    "===",
    "***",
    "---",
    "...",
    "..",
    ".py",
    "[ 40%]",
    "(3/10)",
    "####",
    "██",
    "requests==2.3",
    "\u2713",
    "\u00d7",
    "\u2193",
    "\u212a",
    "\u017f",
    "\u0130",
    "\u0131",
    "\r",
    "\t",
    "\x1c",
    "\u3000",
    "\u00a0",
    "12",
    "3ms",
    " ",
    "  ",
    "/",
    "-",
    "_",
    ".",
    ":",
    "'",
    "a",
    "src/errors/x.ts",
    " ... ok",
    "... PASSED  [ 50%]",
    "ignored\n",
    "deadbeef-dead-beef-dead-beefdeadbeef",
    "DEADBEEF-1234-ABCD-1234-123456789abc",
    "a1b2c3d4e5",
    "abcdefa",
    "0xff",
    "\u0661\u0662",  # Arabic-Indic digits: `\\d`, not `[0-9]`
    "\u2003",
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.lists(
            st.one_of(
                st.sampled_from(_WORDS),
                st.sampled_from(_WORDS).map(str.upper),
                st.sampled_from(_WORDS).map(str.title),
                st.text(max_size=4),
            ),
            max_size=8,
        ).map("".join),
        max_size=12,
    )
)
def test_the_quick_checks_give_what_the_patterns_give_on_generated_lines(
    rows: list[str],
) -> None:
    _check_quick(rows)
