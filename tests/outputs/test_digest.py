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
WORDS = [a + b for a in ("alpha", "beta", "gamma", "delta") for b in "klmnopqrst"]


def text_of(path: Path) -> str:
    """A fixture as a tool printed it: `\\r` redraws stay (`read_text` would make them line
    ends)."""
    return path.read_bytes().decode()


def golden(path: Path, actual: str) -> str:
    if UPDATE:
        path.write_text(actual)
    return path.read_text()


@pytest.mark.parametrize("case", CASES, ids=[p.stem for p in CASES])
def test_each_fixture_digests_to_its_reviewed_golden_file(case: Path) -> None:
    body = core.digest_for("Bash", text_of(case))
    assert body is not None
    expected = golden(case.with_suffix(".digest.txt"), body.text + "\n")
    assert body.text + "\n" == expected


@pytest.mark.parametrize("case", CASES, ids=[p.stem for p in CASES])
def test_every_failure_line_is_kept_and_the_digest_is_smaller(case: Path) -> None:
    text = text_of(case)
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
    prose = [f"Paragraph {w} says {w * 3} different things." for w in "abcdefghijklmnopq"]
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


# --------------------------------------------------------------------------- names and blocks


def test_lines_alike_but_for_a_name_list_the_names_and_keep_what_differs() -> None:
    text = (OUTPUTS / "prettier-write.txt").read_text()
    body = core.digest_for("Bash", text)
    assert body is not None and len(body.text) < 0.75 * len(text)
    kept = body.text.split("\n")
    # the files prettier changed, and its error, stay as lines; paths are no error lines
    assert {"src/handlers/refunds.ts 1ms", "src/services/coupon.ts 11ms"} <= set(kept)
    assert "[error] src/handlers/legacy.ts: SyntaxError: ',' expected. (41:17)" in kept
    assert not L.is_failure_line("src/errors/ValidationError.ts 11ms (unchanged)")
    # every unchanged file is still named: as a line, or in a marker under its folder
    marker = next(line for line in kept if "src/errors/{" in line)
    assert "more lines like the one above (lines 7-17) for: src/db/client.ts" in marker
    assert "src/errors/{http-errors.ts,ValidationError.ts,NotFoundException.ts,index.ts}" in marker
    names = [line.split()[0] for line in L.normalize(text) if line.endswith("(unchanged)")]
    listed = body.text.replace("{", "/").replace(",", " ").replace("}", " ")
    assert all(name.rsplit("/", 1)[-1] in listed for name in names)


def test_names_are_not_listed_when_that_saves_little_nor_for_two_differing_words() -> None:
    listing = ["head"] * 5 + [f"\t../{w}/" for w in WORDS] + ["tail"] * 8  # `git status`
    assert D.digest_lines(listing, max_chars=10_000) is None
    deps = ["head"] * 5 + [f"  {w} {i}.{i % 7}.0" for i, w in enumerate(WORDS)] + ["tail"] * 8
    assert D.digest_lines(deps, max_chars=10_000) is None  # a name and a version: data


def test_repeated_blocks_keep_the_first_and_name_the_rest() -> None:
    text = (OUTPUTS / "gradle-build.txt").read_text()
    body = core.digest_for("Bash", text)
    assert body is not None
    kept = body.text.split("\n")
    assert kept[5:8] == [
        "> Task :model:compileJava",
        "Note: Some input files use unchecked or unsafe operations.",
        "Note: Recompile with -Xlint:unchecked for details.",
    ]
    assert kept[9] == (
        "[ccstate: 6 more blocks like the 4 lines above (lines 10-32) for: :storage:compileJava, "
        ":pricing:compileJava, :catalog:compileJava, :orders:compileJava, :payments:compileJava, "
        ":shipping:compileJava]"
    )
    assert "> Task :api:compileJava FAILED" in kept and "BUILD FAILED in 38s" in kept


def test_blocks_see_through_ids_and_times_and_never_swallow_a_kept_line() -> None:
    text = (OUTPUTS / "mix-test-1-failure.txt").read_text()
    body = core.digest_for("Bash", text)
    assert body is not None
    kept = body.text.split("\n")
    assert "[ccstate: 8 more blocks like the 2 lines above (lines 60-75)]" in kept
    assert (
        kept[kept.index("  1) test reserves stock for a paid order (Shop.InventoryTest)") - 2]
        == "."
    )
    failures = [line for line in L.normalize(text) if L.is_failure_line(line)]
    assert failures and all(line in kept for line in failures)


def test_a_warning_drawn_with_a_gutter_is_one_block_repeats_give_their_locations() -> None:
    body = core.digest_for("Bash", (OUTPUTS / "mix-test-1-failure.txt").read_text())
    assert body is not None
    kept = body.text.split("\n")
    assert "    └─ lib/shop/cart.ex:14:13: Shop.Cart.total/2" in kept  # the first, whole
    marker = next(line for line in kept if "more warnings like" in line)
    assert marker.startswith("[ccstate: 20 lines omitted (lines 34-53): 3 more warnings like ")
    assert marker.endswith(
        "at lib/shop/cart.ex:27:20, lib/shop/billing.ex:41:17, lib/shop/billing.ex:58:31]"
    )
    assert " 27 │   def discount(items, rest) do" not in kept


# --------------------------------------------------------------------------- long lines


def test_a_long_line_keeps_its_head_and_tail_and_says_how_much_went() -> None:
    text = (OUTPUTS / "curl-minified.txt").read_text()
    rows = text.split("\n")
    body = core.digest_for("Bash", text)
    assert body is not None
    kept = body.text.split("\n")
    html = rows[0]
    left = len(html) - D.LONG_HEAD - D.LONG_TAIL
    assert kept[0] == (
        f"{html[: D.LONG_HEAD]}…[ccstate: {left:,} chars of this line left out]…"
        f"{html[-D.LONG_TAIL :]}"
    )
    assert len(rows[2]) > D.LONG_LINE and L.is_failure_line(rows[2])
    assert kept[2] == rows[2]  # a failure line stays whole, however long


def test_lines_up_to_the_limit_stay_whole() -> None:
    rows = ["x" * D.LONG_LINE, "y" * 40]
    assert D.digest_lines(rows, max_chars=100_000) is None
    got = D.digest_lines(["x" * (D.LONG_LINE + 1), "y" * 40], max_chars=100_000)
    assert got is not None and got.markers == 1 and len(got.text) < D.LONG_LINE


def test_a_grep_match_in_a_minified_file_is_cut_too() -> None:
    rows = [f"/repo/src/a.ts:{i}:  const a{i} = {i};" for i in range(1, 6)]
    rows.append("/repo/dist/app.min.js:1:" + "var q=1;" * 800)
    body = core.digest_for("Grep", "\n".join(rows))
    assert body is not None and body.how == "grep"
    assert body.text.split("\n")[:2] == ["/repo/src/a.ts", "1:  const a1 = 1;"]
    assert "chars of this line left out]" in body.text and len(body.text) < 1500
