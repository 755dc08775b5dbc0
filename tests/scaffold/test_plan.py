"""`ccstate init` in real projects: CLAUDE.md and workflow.md with content, never a pointer to
an empty file, never the user's file replaced (#39)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.scaffold import plan

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def project_from(name: str, tmp_path: Path) -> Path:
    root = Path(shutil.copytree(FIXTURES / name, tmp_path / name))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def pointers(claude_md: str) -> list[str]:
    return [part.split("`")[0] for part in claude_md.split("`")[1::2] if part.endswith(".md")]


def test_a_project_with_a_makefile_and_a_pytest_config(tmp_path: Path) -> None:
    root = project_from("requests", tmp_path)
    code, out, err = invoke("init", "-C", str(root))
    assert (code, err.startswith("note:") or err == "") == (0, True)
    index = (root / "CLAUDE.md").read_text()
    assert "Tests: `make test` (runs `python -m pytest tests`)" in index
    assert "DECISIONS.md" not in index  # pointed to once it holds a decision (the capsule)
    for pointer in pointers(index):  # every file CLAUDE.md points to has content
        assert "- `" in (root / pointer).read_text(), pointer
    assert pointers(index) == ["docs/claude/workflow.md"]
    assert "create  docs/claude/workflow.md  (the commands found; CLAUDE.md points here)" in out


def test_a_project_with_one_test_command_gets_no_topic_file(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    assert invoke("init", "-C", str(root))[0] == 0
    assert (root / "CLAUDE.md").read_text().endswith("Tests: `python -m pytest`\n")
    assert not (root / "docs").exists()


def test_a_project_with_nothing_to_say_gets_no_claude_md(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "app.py").write_text("print('hi')\n")
    code, out, _ = invoke("init", "-C", str(root))
    assert code == 0
    assert "skip  CLAUDE.md  (not created: no README paragraph and no test command" in out
    assert not (root / "CLAUDE.md").exists() and not (root / "docs").exists()


def test_the_users_claude_md_is_kept_and_nothing_points_to_an_empty_file(tmp_path: Path) -> None:
    root = project_from("requests", tmp_path)
    (root / "CLAUDE.md").write_text("# Mine\n\nRun `make test`.\n")
    assert invoke("init", "--force", "-C", str(root))[0] == 0
    assert (root / "CLAUDE.md").read_text() == "# Mine\n\nRun `make test`.\n"
    assert not (root / "docs" / "claude" / "workflow.md").exists()


def test_the_empty_scaffold_of_an_older_ccstate_is_filled_in(tmp_path: Path) -> None:
    root = project_from("requests", tmp_path)
    old_index, old_topic = plan._legacy_texts(root, "docs/claude")
    (root / "CLAUDE.md").write_text(old_index)
    (root / "docs" / "claude").mkdir(parents=True)
    (root / "docs" / "claude" / "workflow.md").write_text(old_topic)
    code, out, _ = invoke("init", "-C", str(root))
    assert code == 0
    assert "update  CLAUDE.md  (the empty template an older ccstate wrote, filled)" in out
    assert "Tests: `make test`" in (root / "CLAUDE.md").read_text()
    assert "## Test\n\n- `make test`" in (root / "docs/claude/workflow.md").read_text()
    # ... and in a project with nothing to say, the empty files go
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "CLAUDE.md").write_text(plan._legacy_texts(bare, "docs/claude")[0])
    (bare / "docs" / "claude").mkdir(parents=True)
    (bare / "docs" / "claude" / "workflow.md").write_text(old_topic)
    assert invoke("init", "-C", str(bare))[0] == 0
    assert not (bare / "CLAUDE.md").exists() and not (bare / "docs").exists()


def test_dry_run_shows_what_would_be_written_and_writes_nothing(tmp_path: Path) -> None:
    root = project_from("express", tmp_path)
    code, out, _ = invoke("init", "--dry-run", "-C", str(root))
    assert code == 0
    assert "would create  CLAUDE.md  (what the project is and how to test it)" in out
    assert "              | Tests: `npm test`" in out
    assert "              | - `npm run lint`: eslint . (package.json)" in out
    assert not (root / "CLAUDE.md").exists()


def test_a_malformed_source_is_one_line_and_the_rest_is_written(tmp_path: Path) -> None:
    root = project_from("requests", tmp_path)
    text = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(text.replace("[tool.ruff]", "[tool.ruff"))
    code, out, _ = invoke("init", "-C", str(root))
    assert code == 0
    skipped = [line for line in out.splitlines() if "pyproject.toml" in line]
    assert len(skipped) == 1 and skipped[0].lstrip().startswith("skip  pyproject.toml  (not read (")
    assert "Tests: `make test`" in (root / "CLAUDE.md").read_text()
    assert "ruff check ." not in (root / "docs/claude/workflow.md").read_text()


def test_remove_takes_back_what_init_wrote(tmp_path: Path) -> None:
    root = project_from("requests", tmp_path)
    assert invoke("init", "-C", str(root))[0] == 0
    code, out, _ = invoke("init", "--remove", "-C", str(root))
    assert code == 0
    assert "delete  CLAUDE.md  (unchanged since 'ccstate init' wrote it)" in out
    assert "delete  docs/claude/workflow.md  (unchanged since 'ccstate init' wrote it)" in out
    assert not (root / "CLAUDE.md").exists() and not (root / "docs").exists()
