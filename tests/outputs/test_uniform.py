"""Grep matches and paths of one shape, said once (outputs/uniform.py, issue #24.3)."""

from __future__ import annotations

import random
import re

from hypothesis import given
from hypothesis import strategies as st

from ccstate.outputs import core, lines, uniform

WORDS = ("parse", "load", "cache", "retry", "split", "render", "merge", "flush", "index", "guard")
ODD = 'lib/m50.py:77:raise NotImplementedError("the v2 wire format")'


def todo_grep(n: int = 500, odd: int | None = 250) -> str:
    """`lib/mNN.py:N:# TODO: <word> N.N` x n, grouped by file as ripgrep prints them."""
    r = random.Random(7)
    rows = [
        f"lib/m{i * 100 // n:02d}.py:{3 * (i % 5) + r.randint(1, 3)}:"
        f"# TODO: {r.choice(WORDS)} {r.randint(1, 9)}.{r.randint(0, 9)}"
        for i in range(n)
    ]
    if odd is not None:
        rows[odd] = ODD
    return "\n".join(rows)


def test_the_issues_shape_collapses_to_its_runs_keeping_the_one_of_another_kind() -> None:
    text = todo_grep()
    body = core.digest_for("Grep", text)
    assert body is not None and body.how == "grep-uniform"
    assert len(body.text) < len(text) / 20  # was 72 % (one heading per file)
    out = body.text.split("\n")
    assert out[0] == text.split("\n")[0] and ODD in out  # the example and the odd row, whole
    counts = [int(m) for m in re.findall(r"\[ccstate: (\d+) more matches like", body.text)]
    assert sum(counts) + len(out) - len(counts) == 500  # every row is shown or counted
    assert "(lines 2-250) in 50 files: lib/m{00..49}.py;" in body.text
    assert "(lines 253-500) in 50 files: lib/m{50..99}.py;" in body.text
    for word in WORDS:  # the values the word takes are listed
        assert word in out[1] and word in out[-1]


def test_a_failure_line_is_never_inside_a_run() -> None:
    rows = [f"logs/app.log:{i}:ERROR timeout after {i % 7}s" for i in range(1, 300)]
    assert uniform.grep_runs("\n".join(rows)) is None  # every row names an error: kept
    text = todo_grep(odd=None).split("\n")
    text[100] = "lib/m20.py:5:# TODO: parse 1.2 raised AssertionError in CI"
    got = uniform.grep_runs("\n".join(text))
    assert got is not None and text[100] in got.split("\n")
    assert lines.failure_lines(got.split("\n")) == [text[100]]


def test_a_word_that_is_data_leaves_the_matches_alone() -> None:
    """`def test_<name>` over a test suite: the names are what the model asked for."""
    names = [f"case_{a}{b}" for a in "abcdefghij" for b in "klmnopqrst"]
    rows = [f"tests/t{i // 10}.py:{i}:def test_{name}(self):" for i, name in enumerate(names)]
    assert uniform.grep_runs("\n".join(rows)) is None
    body = core.digest_for("Grep", "\n".join(rows))
    assert body is not None and body.how == "grep"  # one heading per file, lossless


def test_match_and_context_rows_do_not_mix_and_separators_go_with_a_run() -> None:
    mixed = []
    for f in range(40):
        mixed += [f"src/f{f:02d}.ts-1-import x from 'y'", f"src/f{f:02d}.ts:2:  todo(42)", "--"]
    assert uniform.grep_runs("\n".join(mixed[:-1])) is None  # a context row, a match: 2 kinds
    matches = [row for row in mixed if ":2:" in row or row == "--"]
    got = uniform.grep_runs("\n".join(matches[:-1]))
    assert got is not None
    assert got.split("\n") == [
        "src/f00.ts:2:  todo(42)",
        "[ccstate: 39 more matches like the one above (lines 3-79) in 39 files: src/f{01..39}.ts]",
    ]


def test_short_or_unnumbered_output_is_left_to_the_other_digests() -> None:
    assert uniform.grep_runs("a.py:1:x\na.py:2:x\na.py:3:x") is None  # a marker would not pay
    assert uniform.grep_runs("no numbers here\nnor here") is None


def test_paths_group_by_folder_and_number_losslessly() -> None:
    paths = [f"src/components/widgets/w{i:03d}/index.tsx" for i in range(500)]
    paths[100] = "src/components/widgets/README.md"
    body = core.digest_for("Glob", "\n".join(paths))
    assert body is not None and body.how == "paths-grouped"
    assert body.text.split("\n") == [
        "[ccstate: the paths below are in src/components/widgets/]",
        "w{000..099}/index.tsx",
        "README.md",
        "w{101..499}/index.tsx",
    ]
    newest_first = [f"assets/icon_{i}.svg" for i in range(120, 0, -1)]
    assert uniform.path_runs("\n".join(newest_first)) == "assets/icon_{120..1}.svg"
    assert uniform.compact(["a/m8.py", "a/m9.py", "a/m10.py", "a/x.py", "a/y.py"]) == (
        "a/m{8..10}.py, a/{x.py,y.py}"
    )


def test_paths_with_braces_commas_or_repeats_stay_as_they_are() -> None:
    odd = ["src/{a,b}.ts", "src/a,b.ts", "src/c.ts", "src/c.ts"]
    assert uniform.path_runs("\n".join(odd)) is None


_SEGMENT = st.sampled_from(["src", "lib", "a", "b", "w1", "w2", "x10", "m07", "m08", "m09"])
_PATH = st.lists(_SEGMENT, min_size=1, max_size=4).map("/".join)


@given(st.lists(_PATH, max_size=40, unique=True))
def test_grouped_paths_expand_to_the_list_they_came_from(paths: list[str]) -> None:
    got = uniform.path_runs("\n".join(paths))
    assert uniform.expand_paths(got if got is not None else "\n".join(paths)) == (
        paths if paths else [""]
    )


@given(st.lists(st.integers(0, 1200), min_size=1, max_size=30), st.booleans())
def test_numbered_runs_expand_to_the_names_they_came_from(numbers: list[int], pad: bool) -> None:
    names = [f"out/part-{n:04d}.bin" if pad else f"out/part-{n}.bin" for n in numbers]
    names = list(dict.fromkeys(names))
    got = uniform.path_runs("\n".join(names))
    assert uniform.expand_paths(got if got is not None else "\n".join(names)) == names


def test_the_same_output_gives_the_same_digest() -> None:
    text = todo_grep()
    assert uniform.grep_runs(text) == uniform.grep_runs(text)
