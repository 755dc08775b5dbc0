"""PostToolUse notes every edited path for the code index (#41): one line, nothing parsed,
no third-party import, whatever else is switched off."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import hook_env, make_payload, run_hook


def payload(project: Path, tool: str, path: Path) -> dict[str, object]:
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    tool_input = {key: str(path), "old_string": "a", "new_string": "b", "content": "b"}
    return make_payload(
        "PostToolUse", project, tool_name=tool, tool_input=tool_input, tool_response={}
    )


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit", "NotebookEdit"])
def test_each_edit_tool_notes_its_path_and_loads_no_parser(git_project: Path, tool: str) -> None:
    target = git_project / "src" / "new.py"
    argv = [sys.executable, "-X", "importtime", "-m", "ccstate.hooks", "PostToolUse"]
    code, _parsed, raw, err = run_hook(
        "PostToolUse", payload(git_project, tool, target), cwd=git_project, argv=argv
    )
    assert (code, raw) == (0, "")
    assert "tree_sitter" not in err and "sqlite3" not in err and "ccstate.repo.index" not in err
    assert "ccstate.repo.notes" in err
    touched = git_project / ".ccstate" / "repo" / "touched"
    assert touched.read_text() == f"{target}\n"


def test_find_disabled_notes_nothing(git_project: Path) -> None:
    edit = payload(git_project, "Edit", git_project / "app.py")
    env = hook_env(CCSTATE_FIND="0")  # for one shell, as CCSTATE_DEDUPE=0
    assert run_hook("PostToolUse", edit, cwd=git_project, env=env)[:3] == (0, None, "")
    assert not (git_project / ".ccstate" / "repo" / "touched").exists()
    (git_project / ".ccstate.yaml").write_text("find:\n  enabled: false\n")
    assert run_hook("PostToolUse", edit, cwd=git_project)[:3] == (0, None, "")
    assert not (git_project / ".ccstate" / "repo" / "touched").exists()


def test_a_read_only_state_dir_never_breaks_the_hook(git_project: Path) -> None:
    state = git_project / ".ccstate"
    state.mkdir()
    (state / "repo").write_text("a file where the folder should be")
    code, _parsed, raw, _err = run_hook(
        "PostToolUse",
        payload(git_project, "Edit", git_project / "app.py"),
        cwd=git_project,
        env=hook_env(CCSTATE_DEDUPE="0"),
    )
    assert (code, raw) == (0, "")
