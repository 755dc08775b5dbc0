"""repo.files: what git lists, minus what is no code to read; every skip has a reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ccstate.repo import files


def test_tracked_and_untracked_files_but_not_ignored_ones(code_project: Path) -> None:
    (code_project / ".gitignore").write_text("build.log\n")
    (code_project / "build.log").write_text("noise\n")
    (code_project / "new.py").write_text("x = 1\n")
    listed = files.tracked(code_project)
    assert "new.py" in listed and "src/webhook.py" in listed and ".gitignore" in listed
    assert "build.log" not in listed


def test_a_folder_that_is_not_git_says_so(tmp_path: Path) -> None:
    with pytest.raises(files.NotGit, match="not a git repository"):
        files.tracked(tmp_path)


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("node_modules/x/index.js", "vendored or built"),
        ("a/dist/bundle.js", "vendored or built"),
        ("package-lock.json", "lock or minified file"),
        ("app.min.js", "lock or minified file"),
        ("logo.png", "data or media file"),
        ("data/events.jsonl", "data or media file"),
        ("src/app.py", ""),
        ("package.json", ""),
    ],
)
def test_skipped_by_name(path: str, why: str) -> None:
    assert files.skip_by_name(path) == why


def test_a_symlink_loop_is_skipped_not_followed(tmp_path: Path) -> None:
    os.symlink("loop", tmp_path / "loop")
    assert files.vetted(tmp_path, "loop").skip == "symlink (not followed)"


def test_a_50_mb_generated_file_is_skipped_by_its_size_unread(tmp_path: Path) -> None:
    with (tmp_path / "generated.py").open("wb") as fh:
        fh.truncate(50 << 20)  # sparse: 50 MB without writing them
    entry = files.vetted(tmp_path, "generated.py")
    assert entry.skip == "50.0 MB, over the 1 MB cap" and entry.size == 50 << 20


def test_binary_non_utf8_and_minified_files_are_skipped_with_why(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_bytes(b"x = 1\0\0")
    (tmp_path / "l.py").write_bytes("caf\xe9 = 1\n".encode("latin-1"))
    (tmp_path / "m.js").write_text("var a=1;" * 4000)
    (tmp_path / "ok.py").write_text("x = 'café'\n")
    why = {
        n: files.read_text(tmp_path, files.vetted(tmp_path, n))[2]
        for n in ("b.py", "l.py", "m.js", "ok.py")
    }
    assert why == {
        "b.py": "binary",
        "l.py": "not UTF-8 (byte 3)",
        "m.js": "minified (lines over 1,000 characters)",
        "ok.py": "",
    }
