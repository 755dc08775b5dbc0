"""workflow.md's generated part at session end: hand edits survive, churn only on change."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.scaffold import refresh

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"
PASSED = [
    {"command": "python3 -m pytest -q", "kind": "test", "session": "b", "time": "t2"},
    {"command": "ruff check .", "kind": "lint", "session": "a", "time": "t1"},
    {"command": "python3 -m pytest -q", "kind": "test", "session": "a", "time": "t1"},
]


def initialised(tmp_path: Path) -> Path:
    root = Path(shutil.copytree(FIXTURES / "requests", tmp_path / "requests"))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert CliRunner().invoke(cli, ["init", "-C", str(root)]).exit_code == 0
    return root


def test_learned_lines_are_distinct_and_in_a_stable_order() -> None:
    lines = refresh.learned_lines(PASSED)
    assert lines == ["- `python3 -m pytest -q` (test, passed)", "- `ruff check .` (lint, passed)"]
    assert refresh.learned_lines(reversed(PASSED)) == lines  # no churn from the order of runs


def test_the_block_is_rewritten_and_hand_edits_outside_it_survive(tmp_path: Path) -> None:
    root = initialised(tmp_path)
    path = root / "docs" / "claude" / "workflow.md"
    path.write_text(path.read_text() + "\n## Notes\n\nRun the slow tests on Fridays.\n")
    state = root / ".ccstate"
    learned = refresh.learned_lines(PASSED)
    assert refresh.refresh(root, "docs/claude", state, learned) == "refreshed"
    text = path.read_text()
    assert "## Passed in recent sessions\n\n- `python3 -m pytest -q` (test, passed)" in text
    assert text.endswith("\n## Notes\n\nRun the slow tests on Fridays.\n")
    assert refresh.refresh(root, "docs/claude", state, learned) == "unchanged"
    (root / "Makefile").write_text((root / "Makefile").read_text() + "\nlint:\n\truff check .\n")
    assert refresh.refresh(root, "docs/claude", state, learned) == "refreshed"  # files changed
    assert "- `make lint`: ruff check . (Makefile)" in path.read_text()


def test_a_file_without_markers_or_no_file_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "docs" / "claude").mkdir(parents=True)
    state = root / ".ccstate"
    assert refresh.refresh(root, "docs/claude", state, ["- `x` (test, passed)"]) == "absent"
    mine = root / "docs" / "claude" / "workflow.md"
    mine.write_text("# My workflow\n\nmake test\n")
    assert refresh.refresh(root, "docs/claude", state, ["- `x` (test, passed)"]) == (
        "no markers (the user's file)"
    )
    assert mine.read_text() == "# My workflow\n\nmake test\n"
