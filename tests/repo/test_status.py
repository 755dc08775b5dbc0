"""repo.status: doctor's lines, the capsule's map, the hooks' trigger."""

from __future__ import annotations

import os
from pathlib import Path

from ccstate import config
from ccstate.repo import status, update
from code_project import git


def cfg(**values: object) -> config.Config:
    return config.Config({**config.defaults(), **values})


def test_doctor_reports_size_and_what_was_skipped_and_why(code_project: Path) -> None:
    state = code_project.parent / "state"
    assert status.doctor_lines(code_project, state, cfg()) == [
        ("code index", "info", "none yet: `ccstate find` or the next session builds it")
    ]
    (code_project / "blob.py").write_bytes(b"\0\1\2")
    os.symlink("loop", code_project / "loop")
    git(code_project, "add", ".")
    update.refresh(code_project, state, max_bytes=1 << 30)
    (main, skipped) = status.doctor_lines(code_project, state, cfg())
    assert main[:2] == ("code index", "ok")
    assert main[2].startswith("6 files, ") and "MB of 256 MB (find.max_mb)" in main[2]
    assert skipped == (
        "code index: skipped",
        "info",
        "binary: 1 (blob.py); symlink (not followed): 1 (loop)",
    )
    over = status.doctor_lines(code_project, state, cfg(**{"find.max_mb": 1}))
    assert over[0][1] == "ok"  # a tiny project stays under even 1 MB
    off = status.doctor_lines(code_project, state, cfg(**{"find.enabled": False}))
    assert off == [("code index", "info", "disabled (find.enabled: false)")]


def test_doctor_says_when_the_project_is_not_git(tmp_path: Path) -> None:
    update.refresh(tmp_path, tmp_path / "state", max_bytes=1 << 30)
    assert not (tmp_path / "state").exists()  # nothing written for it
    (line,) = status.doctor_lines(tmp_path, tmp_path / "state", cfg())
    assert line[0:2] == ("code index", "info") and line[2].startswith("not a git repository")


def test_the_capsule_map_only_when_asked(code_project: Path) -> None:
    state = code_project.parent / "state"
    update.refresh(code_project, state, max_bytes=1 << 30)
    asked = cfg(**{"capsule.repo_map_tokens": 200})
    assert status.capsule_map(str(state), asked) == ""  # nothing cached yet
    status.after_update(code_project, state, asked, None)
    text = status.capsule_map(str(state), asked)
    assert text.startswith(status.MAP_HEADER + "\nsrc/") and "src/webhook.py:" in text
    assert status.capsule_map(str(state), cfg()) == ""  # 0 tokens: off


def test_the_trigger_leaves_a_folder_that_is_not_git_alone(tmp_path: Path) -> None:
    assert status.trigger(str(tmp_path), str(tmp_path / "state"), cfg()) == "not a git repository"
    off = cfg(**{"find.enabled": False})
    assert status.trigger(str(tmp_path), str(tmp_path / "state"), off) == "disabled"


def test_doctor_says_how_far_a_bounded_first_index_got(code_project: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import time

    monkeypatch.setattr(update, "BATCH", 2)
    parse = update.parse_one

    def slow(item):  # type: ignore[no-untyped-def]
        time.sleep(0.2)  # a big file: the first batch outlasts the deadline
        return parse(item)

    monkeypatch.setattr(update, "parse_one", slow)
    state = code_project.parent / "state"
    got = update.refresh(code_project, state, max_bytes=1 << 30, deadline=time.monotonic() + 0.3)
    assert (got.indexed, got.pending) == (2, 4)
    (main, *_rest) = status.doctor_lines(code_project, state, cfg())
    assert main[2].endswith("; 4 of 6 changed files still to read (the next update goes on)")
