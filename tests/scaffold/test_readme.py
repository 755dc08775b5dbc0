"""What the project is: the first prose paragraph of real READMEs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ccstate.scaffold import readme

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"


@pytest.mark.parametrize(
    ("project", "expected"),
    [
        ("requests", "Requests is a simple, yet elegant, HTTP library."),
        # rST: title with over- and underline, an image directive and its option first
        (
            "more-itertools",
            "Python's itertools library is a gem - you can compose elegant solutions for a "
            "variety of problems with the functions it provides.",
        ),
        # a setext title, then a paragraph longer than the cap: cut at a sentence end
        (
            "ripgrep",
            "ripgrep is a line-oriented search tool that recursively searches the current "
            "directory for a regex pattern.",
        ),
        # HTML, a rule and badge lists before the prose
        (
            "wizard-template",
            "This is a general-purpose template that aims to provide a magical start to any "
            "Python project.",
        ),
        # rST roles and links keep their text
        (
            "packaging",
            "Reusable core utilities for various Python Packaging interoperability specifications.",
        ),
        ("express", "Fast, unopinionated, minimalist web framework for Node.js."),
    ],
)
def test_first_paragraph(project: str, expected: str) -> None:
    assert readme.first_paragraph(FIXTURES / project) == expected


def test_no_readme_or_no_prose_says_nothing(tmp_path: Path) -> None:
    assert readme.first_paragraph(tmp_path) == ""
    (tmp_path / "README.md").write_text("# Title\n\n```\ncode\n```\n- a list\n")
    assert readme.first_paragraph(tmp_path) == ""
    (tmp_path / "README.md").write_bytes(b"\xff\xfe not utf-8")
    assert readme.first_paragraph(tmp_path) == ""


def test_a_readme_named_otherwise_is_found(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "express" / "Readme.md", tmp_path / "README.txt")
    assert readme.first_paragraph(tmp_path).startswith("Fast, unopinionated")
