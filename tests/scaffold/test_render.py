"""CLAUDE.md's first lines and workflow.md, from what was found."""

from __future__ import annotations

from pathlib import Path

from ccstate.scaffold import detect, readme, render
from ccstate.scaffold.found import Command

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"
TOPIC = "docs/claude/workflow.md"


def index_for(project: str) -> str:
    found = detect.detect(FIXTURES / project).commands
    return render.index_text(project, readme.first_paragraph(FIXTURES / project), found, TOPIC)


def test_requests_claude_md_says_what_it_is_and_how_to_test() -> None:
    assert index_for("requests") == (
        "# requests\n\n"
        f"{render.INDEX_NOTE}\n\n"
        "Requests is a simple, yet elegant, HTTP library.\n"
        "Tests: `make test` (runs `python -m pytest tests`)\n"
        "Other commands (lint, tests, CI, ...): `docs/claude/workflow.md`\n"
    )


def test_a_target_called_test_wins_over_ci_and_tools() -> None:
    assert "Tests: `npm test`\n" in index_for("express")
    assert "Tests: `just test`\n" in index_for("just")  # its note is a dependency: not shown
    assert "Tests: `hatch run test`\n" in index_for("wizard-template")
    assert "Tests: `cargo test --workspace`\n" in index_for("ripgrep")


def test_nothing_found_nothing_written() -> None:
    assert render.index_text("p", "", [], TOPIC) == ""
    assert render.holds_more([]) is False


def test_one_test_command_needs_no_topic_file() -> None:
    only = [Command("test", "python -m pytest", "pyproject.toml [tool.pytest]")]
    assert render.holds_more(only) is False
    text = render.index_text("p", "", only, "")
    assert text.endswith("Tests: `python -m pytest`\n") and "Other commands" not in text


def test_workflow_md_has_a_section_per_kind_found_and_none_empty() -> None:
    found = detect.detect(FIXTURES / "more-itertools").commands
    text = render.topic_text(found)
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections == [
        "## Test",
        "## Lint and type checks",
        "## Format",
        "## Build",
        "## Docs",
        "## Set up",
        "## CI (GitHub workflows)",
    ]
    body = text.split(render.BEGIN)[1]
    for section in body.split("\n## ")[1:]:
        assert "\n- `" in section  # every section holds a command
    assert "- `make test`: python -m unittest -v ${tests} (Makefile)" in text
    assert text.rstrip().endswith(render.END)


def test_learned_commands_get_their_own_section() -> None:
    found = [Command("test", "make test", "Makefile")]
    block = render.block(found, ["- `python3 -m pytest -q`: passed (session ab12cd34)"])
    assert "## Passed in recent sessions\n\n- `python3 -m pytest -q`" in block


def test_same_input_same_bytes() -> None:
    found = detect.detect(FIXTURES / "just").commands
    assert render.topic_text(found) == render.topic_text(list(found))
