"""Where a project's root and state are (issue #12, item 7)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ccstate import paths
from helpers import make_payload, run_hook


def test_a_state_dir_alone_does_not_make_an_ancestor_the_project(tmp_path: Path) -> None:
    """`~/.ccstate` (a session once ran in ~) must not be adopted by every project below."""
    home = tmp_path / "home"
    (home / ".ccstate").mkdir(parents=True)
    project = home / "code" / "scratch"
    (project / "sub").mkdir(parents=True)
    # where a marker-less directory resolves when nothing in tmp_path marks a project: itself,
    # unless a directory above tmp_path is a project (a stray /tmp/.ccstate.yaml)
    above = paths.find_project_root_str(str(tmp_path / "nothing-here"))
    alone = str(project) if above == str(tmp_path / "nothing-here") else above
    assert paths.find_project_root_str(str(project)) == alone != str(home)
    (home / ".git").mkdir()
    assert paths.find_project_root_str(str(project)) == str(home)  # a real marker still counts
    (project / ".ccstate.yaml").write_text("version: 1\n")
    assert paths.find_project_root_str(str(project / "sub")) == str(project)


def test_a_hook_run_from_the_filesystem_root_writes_nothing_there() -> None:
    existed = os.path.exists("/.ccstate")
    payload = make_payload("PostToolUse", Path("/"), tool_name="Bash")
    payload["cwd"] = "/"
    try:
        assert run_hook("PostToolUse", payload, cwd=Path("/"))[:4] == (0, None, "", "")
        start = {**payload, "hook_event_name": "SessionStart", "source": "startup"}
        assert run_hook("SessionStart", start, cwd=Path("/"))[:4] == (0, None, "", "")
        assert existed or not os.path.exists("/.ccstate")
    finally:
        if not existed and os.path.isdir("/.ccstate"):
            shutil.rmtree("/.ccstate")
