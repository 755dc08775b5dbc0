"""`ccstate map`: grouped by file, within the budget, the same bytes twice."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ccstate.cli import cli
from code_project import make_code_project


def test_map_is_grouped_by_file_and_byte_identical(tmp_path: Path) -> None:
    project = make_code_project(tmp_path)
    first = CliRunner().invoke(cli, ["map", "-C", str(project)])
    second = CliRunner().invoke(cli, ["map", "--no-update", "-C", str(project)])
    assert first.exit_code == 0 and first.stdout == second.stdout
    lines = first.stdout.splitlines()
    assert "src/webhook.py:" in lines
    assert any(line.strip().startswith("12: def send_with_retry(") for line in lines)


def test_a_small_budget_gives_a_short_map(tmp_path: Path) -> None:
    project = make_code_project(tmp_path)
    result = CliRunner().invoke(cli, ["map", "--tokens", "64", "-C", str(project)])
    assert result.exit_code == 0 and len(result.stdout) <= 64 * 4 + 1


def test_another_budget_leaves_the_capsules_cached_map_alone(tmp_path: Path) -> None:
    from ccstate import paths
    from ccstate.repo import map as repo_map

    project = make_code_project(tmp_path)
    (project / ".ccstate.yaml").write_text("capsule:\n  repo_map_tokens: 256\n")
    CliRunner().invoke(cli, ["map", "-C", str(project)])
    cached = repo_map.read_cached(str(paths.state_dir(project)), 256)
    assert cached
    result = CliRunner().invoke(cli, ["map", "--tokens", "64", "-C", str(project)])
    assert result.exit_code == 0
    assert repo_map.read_cached(str(paths.state_dir(project)), 256) == cached
