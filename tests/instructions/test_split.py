"""`lint --fix` (imports -> pointers) and `split` (long sections -> topic files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ccstate import config, tokens
from ccstate.errors import CcstateError
from ccstate.instructions import lint as claude_md
from ccstate.instructions import split
from claude_md_cases import CASES, build_case


def lint(project: Path, home: Path) -> claude_md.Report:
    settings = config.load_config(project)
    return claude_md.lint(str(project), settings, {"HOME": str(home)}, tokens.count_tokens)


BIG = """# Service

Intro: what this service does, in one line.

## Build

{build}

```bash
# not a heading: a shell comment
make build
```

### Build flags

- `FAST=1` skips the docs.

## Testing

{testing}

<details>
## not a heading either (HTML block)
</details>

## Testing

{testing2}

## Short

Two lines
only.
"""


def big_text() -> str:
    fill = {
        key: "\n".join(f"- {key} rule {i}: keep it small and tested" for i in range(15))
        for key in ("build", "testing", "testing2")
    }
    return BIG.format(**fill)


def lines_of(text: str) -> set[str]:
    return {line for line in text.split("\n") if line.strip()}


def test_split_never_loses_a_line_and_is_idempotent(tmp_path: Path) -> None:
    index = tmp_path / "CLAUDE.md"
    original = big_text()
    index.write_text(original)
    changes = split.plan_split(str(index), str(tmp_path), "docs/claude", 12)
    written = split.apply_changes(changes)
    topics = sorted((tmp_path / "docs" / "claude").glob("*.md"))
    assert [p.name for p in topics] == ["build.md", "testing-2.md", "testing.md"]
    survived = lines_of(index.read_text()).union(*(lines_of(p.read_text()) for p in topics))
    assert lines_of(original) <= survived  # every original line is somewhere
    assert len(written) == 4
    assert split.plan_split(str(index), str(tmp_path), "docs/claude", 12) == []
    assert "## Short\n\nTwo lines\nonly.\n" in index.read_text()
    assert index.read_text().count("\n") < original.count("\n") / 3


def test_split_index_lines_point_at_topic_files_with_a_gist(tmp_path: Path) -> None:
    index = tmp_path / "CLAUDE.md"
    index.write_text(big_text())
    split.apply_changes(split.plan_split(str(index), str(tmp_path), "docs/claude", 12))
    text = index.read_text()
    assert "## Build\n\n`docs/claude/build.md` (build rule 0: keep it small and tested)\n" in text
    topic = (tmp_path / "docs" / "claude" / "build.md").read_text()
    assert topic.startswith("# Build\n\n- build rule 0: keep it small and tested\n")
    assert "# not a heading: a shell comment" in topic and "### Build flags" in topic
    report = lint(tmp_path, tmp_path)
    assert [f.rule for f in report.findings] == []


@pytest.mark.parametrize("case", CASES)
def test_split_keeps_every_line_of_every_fixture(case: str, tmp_path: Path) -> None:
    project = build_case(case, tmp_path, tmp_path / "home")
    for index in sorted(project.rglob("CLAUDE.md")):
        original = index.read_text()
        split.apply_changes(split.plan_split(str(index), str(project), "topics", 1))
        topics = list((project / "topics").glob("*.md")) if (project / "topics").is_dir() else []
        survived = lines_of(index.read_text()).union(*(lines_of(p.read_text()) for p in topics))
        assert lines_of(original) <= survived, index


def test_split_refuses_when_the_file_changed_after_planning(tmp_path: Path) -> None:
    index = tmp_path / "CLAUDE.md"
    index.write_text(big_text())
    changes = split.plan_split(str(index), str(tmp_path), "docs/claude", 12)
    index.write_text(big_text() + "\nlate edit\n")
    with pytest.raises(CcstateError, match="changed since the plan was made"):
        split.apply_changes(changes)
    assert not (tmp_path / "docs").exists()


def test_split_reuses_a_topic_file_it_already_wrote(tmp_path: Path) -> None:
    index = tmp_path / "CLAUDE.md"
    index.write_text(big_text())
    changes = split.plan_split(str(index), str(tmp_path), "docs/claude", 12)
    for change in changes[:1]:  # as if interrupted after the first topic file
        split.apply_changes([change])
    again = split.plan_split(str(index), str(tmp_path), "docs/claude", 12)
    assert [os.path.basename(c.path) for c in again] == [
        "build.md",
        "testing.md",
        "testing-2.md",
        "CLAUDE.md",
    ]
    assert again[0].before == again[0].after  # already there: not written twice


# ----------------------------------------------------------------------------- --fix


@pytest.mark.parametrize(
    ("line", "pairs", "fixed"),
    [
        ("@docs/a.md", [("docs/a.md", "A: what")], "`docs/a.md` (A: what)"),
        (
            "See @docs/a.md for the architecture and data flow.",
            [("docs/a.md", "A: what")],
            "See `docs/a.md` for the architecture and data flow.",
        ),
        ("| x | @a.md |", [("a.md", "gist")], "| x | `a.md` (gist) |"),
        ("`@a.md` and @a.md", [("a.md", "g")], "`@a.md` and `a.md` (g)"),
        ("@a.md#top @b\\ c.md", [("a.md#top", "A"), ("b\\ c.md", "B")], "`a.md` (A) `b c.md` (B)"),
        ("**@a.md**", [("a.md", "g")], "**`a.md` (g)**"),
    ],
)
def test_rewrite_imports(line: str, pairs: list[tuple[str, str]], fixed: str) -> None:
    assert split.rewrite_imports(line, pairs) == fixed


@pytest.mark.parametrize("case", [c for c in CASES if c.startswith("rw-") or c == "imports"])
def test_fix_removes_every_import_and_is_idempotent(
    case: str, tmp_path: Path, isolated_home: Path
) -> None:
    project = build_case(case, tmp_path, isolated_home)
    before = lint(project, isolated_home)
    changed = split.apply_changes(split.plan_fix(before))
    after = lint(project, isolated_home)
    assert changed
    assert not [f for f in after.findings if f.rule == "import"]
    assert [f.kind for f, _n in after.files if f.kind == "import"] == []
    assert after.total_tokens < before.total_tokens
    assert split.plan_fix(after) == []
    still_dead = {f.message for f in after.findings if f.rule == "dead-pointer"}
    assert still_dead == {f.message for f in before.findings if f.rule == "dead-pointer"}


def test_fix_notes_and_savings(tmp_path: Path, isolated_home: Path) -> None:
    project = build_case("rw-include-list", tmp_path, isolated_home)
    report = lint(project, isolated_home)
    changes = split.plan_fix(report)
    prefix = "@./ai-templates/main-includes/"
    assert [note for c in changes for note in c.notes] == [
        f"CLAUDE.md:7: {prefix}documentation.md -> plain pointer (-301 tokens)",
        f"CLAUDE.md:8: {prefix}agent-denied-files.md -> plain pointer (-18 tokens)",
        f"CLAUDE.md:9: {prefix}commands.md -> plain pointer (-286 tokens)",
    ]  # the costs in tests/fixtures/claude_md/rw-include-list/expected.json
    assert split.saved_tokens(report) == sum(n for f, n in report.files if f.kind == "import")
    assert changes[0].after.split("\n")[7] == (
        "`./ai-templates/main-includes/agent-denied-files.md` (Denied files: Never open .env, "
        "secrets/ or production dumps.)"
    )
