"""`ccstate lint`, `ccstate split`, the `init` pointer layout and the pre-commit manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ccstate.cli import COMMAND_MODULES, cli
from claude_md_cases import build_case, normalise
from helpers import REPO


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": "100"})
    return result.exit_code, result.stdout, result.stderr


def test_lint_json_is_the_golden_report_and_errors_exit_1(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = build_case("dead-pointers", tmp_path, isolated_home)
    code, out, err = invoke("lint", str(project), "--json")
    assert (code, err) == (1, "")
    expected = json.loads(
        (REPO / "tests/fixtures/claude_md/dead-pointers/expected.json").read_text()
    )
    assert normalise(json.loads(out), project) == expected


def test_lint_accepts_the_claude_md_path_and_exits_0_without_errors(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = build_case("vague-pointer", tmp_path, isolated_home)
    code, out, err = invoke("lint", str(project / "CLAUDE.md"))
    assert (code, err) == (0, "")
    assert "Loaded into every session before the first prompt" in out
    assert "tokens: tiktoken cl100k_base (offline), an estimate of Claude's tokenizer" in out
    lines = out.splitlines()
    assert "Findings: 0 error(s), 3 warning(s), 0 info(s)" in lines  # the verdict, then the rows
    rows = [n for n, line in enumerate(lines) if line.startswith("│ warning │ CLAUDE.md:")]
    assert len(rows) == 3 and lines.index("Findings: 0 error(s), 3 warning(s), 0 info(s)") < rows[0]
    assert lines[rows[0]].startswith("│ warning │ CLAUDE.md:5     │ this index line")
    assert "│         │ (vague-pointer) │" in out


def test_lint_path_to_a_rules_file_or_dot_claude_index_lints_the_project(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = build_case("rules", tmp_path, isolated_home)
    (project / ".git").mkdir()
    expected = invoke("lint", str(project), "--json")[1]
    for path in (project / ".claude" / "CLAUDE.md", project / ".claude/rules/style.md"):
        assert invoke("lint", str(path), "--json")[1] == expected
    code, out, _ = invoke("lint", str(tmp_path / "home"))
    assert code == 0 and "nothing loads before the first prompt" in out


def test_lint_text_shows_each_file_with_its_tokens_and_the_pointer_to_use(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = build_case("imports", tmp_path, isolated_home)
    code, out, _ = invoke("lint", str(project))
    assert code == 1
    rows = [line for line in out.splitlines() if line.startswith("│ docs/style.md ")]
    assert rows == ["│ docs/style.md        │ import │     3 │     12 │ CLAUDE.md:4             │"]
    finding = out[out.index("│ warning │ CLAUDE.md:4 ") :].split("\n│ warning")[0]  # its rows
    cell = " ".join(line.split("│")[3].strip() for line in finding.splitlines())
    assert cell.endswith("use: `docs/style.md` (Style: Format with ruff; keep functions short.)")
    assert "│ total                │        │       │  1,098 │                         │" in out


def test_lint_fix_rewrites_imports_and_reports_the_saving(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = build_case("rw-readme-import", tmp_path, isolated_home)
    code, out, err = invoke("lint", str(project), "--fix")
    assert (code, err) == (0, "")
    # 691 = README.md's tokens and 747 the total in rw-readme-import/expected.json
    assert "fixed CLAUDE.md:5: @README.md -> plain pointer (-691 tokens)" in out
    assert "always-loaded tokens: 747 before the fix, 73 now" in out
    text = (project / "CLAUDE.md").read_text()
    assert text.split("\n")[4] == (
        "See `README.md` (jr: This topic file covers the command line tool for the example "
        "project.) for the project overview."
    )
    assert invoke("lint", str(project), "--fix", "--json")[1].count('"fixed": []') == 1


def test_lint_writes_the_hook_cache_only_in_a_ccstate_project(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = build_case("clean", tmp_path, isolated_home)
    invoke("lint", str(project))
    assert not (project / ".ccstate").exists()  # pre-commit in a foreign repo leaves no trace
    (project / ".ccstate").mkdir()
    invoke("lint", str(project))
    cached = json.loads((project / ".ccstate" / "cache" / "claude_md.json").read_text())
    assert cached["exact"] is True and cached["errors"] == 0


def test_lint_bad_config_is_one_line_error(tmp_path: Path, isolated_home: Path) -> None:
    project = build_case("clean", tmp_path, isolated_home)
    (project / ".ccstate.yaml").write_text("lint:\n  import_max_tokens: lots\n")
    code, out, err = invoke("lint", str(project))
    assert (code, out) == (1, "")
    assert err == (
        f"Error: {project}/.ccstate.yaml: 'lint.import_max_tokens' must be a whole number "
        "of tokens, e.g. 500 (got 'lots')\n"
    )


# ----------------------------------------------------------------------------- split


def write_long(project: Path) -> Path:
    index = project / "CLAUDE.md"
    body = "\n".join(f"- step {i}: run the thing and check it" for i in range(14))
    index.write_text(f"# P\n\nIntro.\n\n## Deploy\n\n{body}\n\n## Notes\n\nshort\n")
    return index


def test_split_prints_the_plan_then_applies_it(git_project: Path) -> None:
    index = write_long(git_project)
    code, out, err = invoke("split", str(index), "--dry-run")
    plan = [
        "plan for CLAUDE.md:",
        "  move '## Deploy' (14 lines, 6-21) -> docs/claude/deploy.md",
        "  CLAUDE.md: 24 -> 11 lines",
    ]
    assert (code, out.splitlines(), err) == (0, plan, "")
    assert not (git_project / "docs").exists()
    code, out, _ = invoke("split", str(index))
    assert out.splitlines() == [*plan, " created  docs/claude/deploy.md", " updated  CLAUDE.md"]
    assert invoke("split", str(index))[1] == (
        "nothing to split: no section of CLAUDE.md is longer than 12 lines\n"
    )


def test_split_honours_the_config(git_project: Path) -> None:
    index = write_long(git_project)
    (git_project / ".ccstate.yaml").write_text("lint:\n  topic_dir: .claude/topics\n")
    (git_project / ".ccstate.yaml").write_text(
        "lint:\n  topic_dir: .claude/topics\n  split_min_lines: 20\n"
    )
    assert invoke("split", str(index))[1].startswith("nothing to split")
    (git_project / ".ccstate.yaml").write_text("lint:\n  topic_dir: .claude/topics\n")
    invoke("split", str(index))
    assert (git_project / ".claude" / "topics" / "deploy.md").exists()


# ----------------------------------------------------------------------------- init


def test_init_scaffolds_a_layout_that_lints_clean(git_project: Path) -> None:
    (git_project / "README.md").write_text("# P\n\nA tool that greets people.\n")
    (git_project / "Makefile").write_text("test:\n\tpytest -q\nlint:\n\truff check .\n")
    assert invoke("init", "-C", str(git_project))[0] == 0
    index = (git_project / "CLAUDE.md").read_text()
    assert index.startswith("# project\n")
    assert "Other commands (lint): `docs/claude/workflow.md`" in index
    assert (git_project / "docs" / "claude" / "workflow.md").read_text().startswith("# Workflow")
    code, out, _ = invoke("lint", str(git_project))
    assert code == 0 and out.splitlines()[-1] == "no findings"


def test_init_keeps_an_existing_claude_md_and_offers_split_when_over_budget(
    git_project: Path,
) -> None:
    index = git_project / "CLAUDE.md"
    original = "# Mine\n\n" + "\n".join(f"- rule {i}" for i in range(250)) + "\n"
    index.write_text(original)
    code, out, _ = invoke("init", "-C", str(git_project), "--force")
    assert code == 0
    assert index.read_text() == original
    lines = [line for line in out.splitlines() if "CLAUDE.md" in line or "docs/claude" in line]
    assert lines == [
        "        skip  CLAUDE.md  (exists, 252 lines / 1,253 tokens, over the 200-line / "
        "2,000-token budget: run 'ccstate split CLAUDE.md' to move long sections into "
        "docs/claude/)",
        "        skip  docs/claude/workflow.md  (not created: no command found beyond CLAUDE.md's)",
    ]
    assert not (git_project / "docs").exists()


# ----------------------------------------------------------------------------- pre-commit


def test_pre_commit_manifest_runs_ccstate_lint() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(hooks, list) and len(hooks) == 1
    (hook,) = hooks
    assert hook["id"] == "ccstate-lint"
    assert hook["entry"] == "ccstate lint"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False
    assert {"id", "name", "entry", "language"} <= set(hook)
    assert hook["entry"].split()[1] in COMMAND_MODULES


@pytest.mark.parametrize(
    ("path", "runs"),
    [
        ("CLAUDE.md", True),
        ("sub/CLAUDE.md", True),
        ("CLAUDE.local.md", True),
        (".claude/rules/style.md", True),
        ("docs/claude/testing.md", True),
        (".ccstate.yaml", True),
        ("src/app.py", False),
    ],
)
def test_pre_commit_hook_triggers_on_instruction_files(path: str, runs: bool) -> None:
    import re

    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert bool(re.search(hook["files"], path)) is runs


def test_init_treats_dot_claude_claude_md_as_the_existing_index(git_project: Path) -> None:
    index = git_project / ".claude" / "CLAUDE.md"
    index.parent.mkdir()
    index.write_text("# Project\n\n- `docs/x.md`: the x notes\n")
    result = CliRunner().invoke(cli, ["init", "-C", str(git_project)])
    assert result.exit_code == 0, result.output
    assert "skip  .claude/CLAUDE.md  (exists" in result.stdout
    assert not (git_project / "CLAUDE.md").exists()
