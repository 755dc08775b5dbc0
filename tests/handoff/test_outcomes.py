"""The signs of a missing tool, and the summary dispatch, in a check's output (#42)."""

from __future__ import annotations

import pytest

from ccstate.handoff import outcomes


def test_colours_are_ignored() -> None:
    assert outcomes.summary("pytest", outcomes.clean("\x1b[32m3 passed\x1b[0m in 0.1s\r")) == (
        True,
        "3 passed",
    )


@pytest.mark.parametrize(
    ("names", "text", "expected"),
    [
        (("black", "python3"), "/usr/bin/python3: No module named black", True),
        (("black", "python3"), "ModuleNotFoundError: No module named 'black'", True),
        (("black",), "/bin/bash: line 1: black: command not found", True),
        (("black",), "zsh: command not found: black", True),
        (("black",), "sh: 1: black: not found", True),
        (("eslint",), "'eslint' is not recognized as an internal or external command,", True),
        ((".venv/bin/pytest", "pytest"), "bash: .venv/bin/pytest: No such file or directory", True),
        (("pytest",), "error: Failed to spawn: `pytest`\n  Caused by: No such file", True),
        (("cargo", "nextest"), "error: no such command: `nextest`", True),
        (("pytest", "python3"), "E   ModuleNotFoundError: No module named 'numpy'", False),
        (("black",), "black: MISSING", False),
        (("pytest",), "1 passed in 0.1s", False),
    ],
)
def test_missing(names: tuple[str, ...], text: str, expected: bool) -> None:
    assert outcomes.missing(names, text) is expected
