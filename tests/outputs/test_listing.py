"""Grep results regrouped under one heading per file, path lists under their shared folder
(outputs/listing.py): lossless, checked by rebuilding the original."""

from __future__ import annotations

from ccstate.outputs import listing

GREP = "\n".join(
    [
        "/repo/src/a.ts-39-  const FIELDS = [",
        "/repo/src/a.ts:40:    'email',",
        "/repo/src/a.ts-41-  ]",
        "--",
        "/repo/src/b-1-2/c.ts:7:email()",
        "/repo/src/b-1-2/c.ts-8-  next",
    ]
)


def test_grep_rows_go_under_one_heading_per_file_and_round_trip() -> None:
    headed = listing.grep_headings(GREP)
    assert headed == "\n".join(
        [
            "/repo/src/a.ts",
            "39-  const FIELDS = [",
            "40:    'email',",
            "41-  ]",
            "--",
            "/repo/src/b-1-2/c.ts",  # a "-1-" inside the path is not taken for a line number
            "7:email()",
            "8-  next",
        ]
    )
    assert listing.expand_headings(headed) == GREP


def test_an_exists_check_settles_an_ambiguous_path() -> None:
    row = "/repo/v-1-2/Makefile:3:all:"
    assert listing.grep_headings(row + "\n" + row, lambda p: p == "/repo/v-1-2/Makefile") == (
        "/repo/v-1-2/Makefile\n3:all:\n3:all:"
    )


def test_anything_but_numbered_grep_output_is_left_alone() -> None:
    assert listing.grep_headings("plain text\nmore text") is None
    assert listing.grep_headings("a.ts:no number here\nb.ts:nor here") is None
    assert listing.grep_headings("12:only numbers\n13:more") is None


def test_a_row_cut_short_at_the_end_stays_as_it_is() -> None:
    cut = GREP + "\n/repo/src/d.t\n\n... [39 lines truncated] ..."
    headed = listing.grep_headings(cut)
    assert headed is not None and headed.endswith("\n/repo/src/d.t\n\n... [39 lines truncated] ...")


def test_heading_numbers_map_rows_to_the_original_lines() -> None:
    headed = listing.grep_headings(GREP)
    assert headed is not None
    rows, numbers, headings = listing.heading_numbers(headed)
    assert headings == {0, 5}
    assert [numbers[i] for i in range(len(rows))] == [1, 1, 2, 3, 4, 5, 5, 6]


def test_common_folder() -> None:
    paths = ["/home/me/proj/src/a.py", "/home/me/proj/src/b/c.py", "", "/home/me/proj/README"]
    assert listing.common_folder(paths) == (
        "/home/me/proj/",
        ["src/a.py", "src/b/c.py", "", "README"],
    )
    assert listing.common_folder(["/a/x", "/b/y"]) is None  # nothing worth lifting
    assert listing.common_folder(["/home/me/proj/a"]) is None
