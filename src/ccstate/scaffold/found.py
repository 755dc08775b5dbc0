"""A command found in a project's files, what kind of work it does, and why a source was skipped.

Pure. The kinds are the sections of `workflow.md`, in this order; a command's kind comes from
its name (a Makefile target, a script's key) when that says it, else from what it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("test", "lint", "format", "build", "docs", "run", "install", "release", "other")
TITLES = {
    "test": "Test",
    "lint": "Lint and type checks",
    "format": "Format",
    "build": "Build",
    "docs": "Docs",
    "run": "Run",
    "install": "Set up",
    "release": "Release",
    "other": "Other",
}
# Words that name a kind, tried on a name first, then on what the command runs. A name is
# split at non-letters, so `test-cov`, `lint:fix` and `check_types` are read word by word.
_WORDS = (
    ("format", r"fmt|format|prettier|black|isort|gofmt|rustfmt"),
    (
        "test",
        r"tests?|pytest|unittest|spec|jest|vitest|mocha|e2e|integration|unit|coverage|cov|"
        r"tox|nox|ctest|nextest|ci",
    ),
    (
        "lint",
        r"lint|linters?|check|checks|clippy|vet|mypy|pyright|typecheck|types?|typing|ruff|"
        r"flake8|pylint|eslint|golangci|stubtest|shellcheck|tsc|qa",
    ),
    ("build", r"build|compile|dist|package|wheel|bundle|sdist"),
    ("docs", r"docs?|man|book|sphinx|mkdocs"),
    ("install", r"install|deps|requirements|setup|bootstrap|init|sync|venv"),
    ("release", r"release|publish|deploy|upload|changelog|version|bump"),
    ("run", r"run|dev|serve|server|start|watch|repl|shell"),
)
_KIND_RES = tuple(
    (kind, re.compile(rf"(?:^|[^a-z])(?:{words})(?:$|[^a-z])")) for kind, words in _WORDS
)
# A format command that only checks is a lint: `ruff format --check`, `cargo fmt -- --check`.
_CHECK_ONLY = re.compile(r"--check\b|--diff\b|-l\b")


@dataclass(frozen=True)
class Command:
    """One command: what to type, where it was found, and a short note (what it runs)."""

    kind: str
    command: str
    source: str  # e.g. "Makefile", "pyproject.toml [tool.pytest.ini_options]"
    note: str = ""  # e.g. the recipe's first line, a script's text, a tox env list


@dataclass(frozen=True)
class Skipped:
    """A source that could not be read, and the one line saying why and what to do."""

    source: str
    reason: str


def kind_of(name: str, runs: str = "") -> str:
    """The kind of a command called `name` that runs `runs` (pure)."""
    if name.lower() == "ci":
        return "test"  # a target called `ci` runs what CI runs: the tests first
    for text in (name.lower(), runs.lower()):
        for kind, pattern in _KIND_RES:
            if pattern.search(text):
                if kind == "format" and _CHECK_ONLY.search(runs):
                    return "lint"
                return kind
    return "other"


def clip(text: str, limit: int = 100) -> str:
    """One line of at most `limit` characters: whitespace runs folded, an ellipsis if cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."
