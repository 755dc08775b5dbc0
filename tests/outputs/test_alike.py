"""Lines alike but for a name, and repeated blocks (outputs/alike.py), on the digest's keys."""

from __future__ import annotations

from ccstate.outputs import alike


def keys_for(lines: list[str]) -> list[str | None]:
    """The digest's keys for unprotected lines: quiet, blank or plain."""
    return ["" if not x.strip() else "pass" if x.strip(".") == "" else "shape:" + x for x in lines]


def test_a_name_run_keeps_its_first_line_and_marks_the_rest() -> None:
    names = ["Button", "Card", "Dialog", "Menu", "Popover", "Select", "Tabs", "Tooltip"]
    lines = [f"src/components/{n}.tsx {len(n)}ms (unchanged)" for n in names]
    lines = ["start", *lines, "done"]
    keys = keys_for(lines)
    alike.name_runs(lines, keys, 3)
    assert keys[1] is None and keys[2:9] == ["names:1:0"] * 7 and keys[9] == "shape:done"
    assert alike.run_names(lines, 2, 9, 0) == (
        "src/components/{Card.tsx,Dialog.tsx,Menu.tsx,Popover.tsx,Select.tsx,Tabs.tsx,Tooltip.tsx}"
    )


def test_a_kept_line_ends_a_name_run() -> None:
    lines = [f"src/{w}/main.rs 4ms (unchanged)" for w in ("alpha", "bravo", "charlie", "delta")]
    keys = keys_for(lines)
    keys[2] = None  # an error's context, say
    alike.name_runs(lines, keys, 3)
    assert keys == [*keys_for(lines)[:2], None, *keys_for(lines)[3:]]


def test_names_are_listed_with_counts_and_shared_folders() -> None:
    assert alike.listed(["a", "a", "a", "b"]) == "a (3x), b"
    assert alike.listed(["src/x.ts", "src/y.ts", "lib/z.ts", "src/w.ts"]) == (
        "src/{x.ts,y.ts}, lib/z.ts, src/w.ts"
    )
    assert alike.listed(["src/a/x.ts", "src/y.ts"]) == "src/a/x.ts, src/y.ts"  # not one folder


def test_blocks_repeated_line_by_line_with_a_last_block_cut_short() -> None:
    block = ["> Task :{}:compileJava", "Note: unchecked operations.", ""]
    mods = ["core", "api", "web", "cli"]
    lines = [line.format(m) for m in mods for line in block][:-1]  # the last blank is missing
    keys = keys_for(lines)
    alike.block_runs(lines, keys, 3)
    assert keys[:3] == [None] * 3 and keys[3:] == ["blocks:0:3"] * 8
    assert alike.block_names(lines, 3, 11, 0, 3) == ":api:compileJava, :web:compileJava, " + (
        ":cli:compileJava"
    )


def test_one_line_repeated_or_quiet_lines_alone_are_no_blocks() -> None:
    same = ["built a.o", "built b.o"] * 6  # lines alike: a name run's business
    keys = keys_for(same)
    alike.block_runs(same, keys, 3)
    assert keys == keys_for(same)
    quiet = ["..", ""] * 6
    keys = keys_for(quiet)
    alike.block_runs(quiet, keys, 3)
    assert keys == keys_for(quiet)
