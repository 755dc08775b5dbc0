"""The line digest (outputs/digest.py) on our own fixtures: golden digests, and the rules
every digest keeps (docs/OUTPUTS.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ccstate.outputs import core
from ccstate.outputs import digest as D
from ccstate.outputs import lines as L
from helpers import FIXTURES

OUTPUTS = FIXTURES / "outputs"
CASES = sorted(p for p in OUTPUTS.glob("*.txt") if not p.name.endswith(".digest.txt"))
UPDATE = os.environ.get("CCSTATE_UPDATE_GOLDEN") == "1"


def golden(path: Path, actual: str) -> str:
    if UPDATE:
        path.write_text(actual)
    return path.read_text()


@pytest.mark.parametrize("case", CASES, ids=[p.stem for p in CASES])
def test_each_fixture_digests_to_its_reviewed_golden_file(case: Path) -> None:
    body = core.digest_for("Bash", case.read_text())
    assert body is not None
    expected = golden(case.with_suffix(".digest.txt"), body.text + "\n")
    assert body.text + "\n" == expected


@pytest.mark.parametrize("case", CASES, ids=[p.stem for p in CASES])
def test_every_failure_line_is_kept_and_the_digest_is_smaller(case: Path) -> None:
    text = case.read_text()
    body = core.digest_for("Bash", text)
    assert body is not None
    kept = set(body.text.split("\n"))
    failures = [line for line in L.normalize(text) if L.is_failure_line(line)]
    assert [line for line in failures if line not in kept] == []
    assert len(body.text) < len(text)
    assert core.digest_for("Bash", text).text == body.text  # deterministic


def test_the_vitest_run_keeps_its_three_failures_and_summary_in_a_quarter() -> None:
    text = (OUTPUTS / "vitest-3-failures.txt").read_text()
    body = core.digest_for("Bash", text)
    assert body is not None and len(body.text) < len(text) / 4
    for case in ("cart > case 07", "pricing > case 03", "users > case 19"):
        assert f" FAIL  src/{case.split(' >')[0]}.test.ts > {case} computes totals" in body.text
    assert "      Tests  3 failed | 117 passed (120)" in body.text.split("\n")
    assert "\x1b" not in body.text


def test_a_run_of_passing_tests_becomes_one_line_with_count_lines_and_example() -> None:
    lines = [f"row {i}" for i in range(6)] + [f" ✓ t.test.ts > case {i}" for i in range(50)]
    lines += ["FAIL t.test.ts > boom", "  expected 1", ""] + [f"tail {i}" for i in range(9)]
    got = D.digest_lines(lines, max_chars=10_000)
    assert got is not None
    # the two lines before the failure stay as its context
    assert '[ccstate: 48 passing-test lines omitted (lines 7-54), e.g. "✓ t.test.ts > case 0"]' in (
        got.text.split("\n")
    )
    assert " ✓ t.test.ts > case 49" in got.text.split("\n")
    assert (got.total, got.markers) == (len(lines), 1)


def test_runs_of_one_shape_collapse_and_unique_lines_stay() -> None:
    lines = ["head"] * 5 + [f"GET /items/{i} 200 in {i % 7}ms" for i in range(30)]
    lines += [f"unique line {w}" for w in ("alpha", "beta", "gamma")] + ["end"] * 8
    got = D.digest_lines(lines, max_chars=10_000)
    assert got is not None
    text = got.text.split("\n")
    assert (
        '[ccstate: 30 similar lines omitted (lines 6-35), e.g. "GET /items/0 200 in 0ms"]' in text
    )
    assert "unique line beta" in text


def test_an_output_with_nothing_to_collapse_is_left_alone() -> None:
    prose = [f"Paragraph {w} says something different each time." for w in "abcdefghijklmnopq"]
    assert D.digest_lines(prose, max_chars=10_000) is None
    assert D.digest_lines(["too", "short"], max_chars=10_000) is None


def test_an_identical_error_block_is_shown_once() -> None:
    block = ["Error: connection refused", "    at connect (db.js:10:3)", "    at main (app.js:4:1)"]
    lines = ["start"] * 5 + block + ["between"] + block + ["between 2"] + block + ["end"] * 8
    got = D.digest_lines(lines, max_chars=10_000)
    assert got is not None
    assert got.text.split("\n").count("Error: connection refused") == 1
    assert "repeats of lines shown above" in got.text


def test_too_long_even_after_collapsing_means_every_unprotected_stretch_goes() -> None:
    lines = [f"step {i}: {'x' * (i % 13)}{chr(65 + i % 26)}" for i in range(400)]
    lines[200] = "ERROR: the one line that matters"
    got = D.digest_lines(lines, max_chars=2_000)
    assert got is not None and len(got.text) <= 2_000
    assert "ERROR: the one line that matters" in got.text.split("\n")
    assert (
        D.digest_lines(["ERROR: x" * 40] * 100, max_chars=2_000) is None
    )  # errors alone: too long


def test_marker_line_numbers_follow_the_numbers_given() -> None:
    lines = [f"l{i}" for i in range(5)] + [" ✓ a test with a long enough name"] * 10
    lines += [f"t{i}" for i in range(8)]
    got = D.digest_lines(lines, max_chars=10_000, numbers=range(101, 124))
    assert got is not None and "(lines 106-115)" in got.text
