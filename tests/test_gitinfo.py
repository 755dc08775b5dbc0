from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ccstate import gitinfo
from helpers import BYTECODE_ENV, SRC


def git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), *args], check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def commit(project: Path, name: str, text: str, message: str) -> str:
    (project / name).write_text(text)
    git(project, "add", name)
    git(project, "commit", "-q", "-m", message)
    return git(project, "rev-parse", "HEAD")


def test_read_head_on_a_branch(git_project: Path) -> None:
    head = gitinfo.read_head(git_project)
    assert head == gitinfo.Head("main", git(git_project, "rev-parse", "HEAD"))


def test_read_head_from_a_subdirectory_and_outside_git(git_project: Path, tmp_path: Path) -> None:
    sub = git_project / "pkg" / "deep"
    sub.mkdir(parents=True)
    assert gitinfo.read_head(sub) == gitinfo.read_head(git_project)
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    assert gitinfo.read_head(lonely) is None


def test_read_head_detached_and_packed(git_project: Path) -> None:
    first = git(git_project, "rev-parse", "HEAD")
    commit(git_project, "b.txt", "b\n", "second")
    git(git_project, "pack-refs", "--all")
    assert not (git_project / ".git" / "refs" / "heads" / "main").exists()
    assert gitinfo.read_head(git_project) == gitinfo.Head(
        "main", git(git_project, "rev-parse", "HEAD")
    )
    git(git_project, "checkout", "-q", "--detach", first)
    assert gitinfo.read_head(git_project) == gitinfo.Head(None, first)


def test_read_head_unborn_branch(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(tmp_path)], check=True)
    assert gitinfo.read_head(tmp_path) == gitinfo.Head("trunk", None)


def test_read_head_in_a_linked_worktree(git_project: Path, tmp_path: Path) -> None:
    git(git_project, "pack-refs", "--all")
    tree = tmp_path / "wt"
    git(git_project, "worktree", "add", "-q", "-b", "topic", str(tree))
    assert (tree / ".git").is_file()
    sha = commit(tree, "t.txt", "t\n", "on topic")
    assert gitinfo.read_head(tree) == gitinfo.Head("topic", sha)
    assert gitinfo.read_head(git_project).branch == "main"


def test_head_at_reads_the_reflog(git_project: Path) -> None:
    log = git_project / ".git" / "logs" / "HEAD"
    first = git(git_project, "rev-parse", "HEAD")
    second = commit(git_project, "b.txt", "b\n", "second")
    zero = "0" * 40
    log.write_text(
        f"{zero} {first} T <t@e> 1000 +0000\tcommit (initial): initial\n"
        f"{first} {second} T <t@e> 2000 +0000\tcommit: second\n"
    )
    assert gitinfo.head_at(git_project, 999) is None
    assert gitinfo.head_at(git_project, 1500) == first
    assert gitinfo.head_at(git_project, 2000) == second
    assert gitinfo.head_at(git_project, 9999) == second


def test_snapshot_commits_diffstat_and_dirty_since_base(git_project: Path) -> None:
    base = git(git_project, "rev-parse", "HEAD")
    sha = commit(git_project, "b.txt", "one\ntwo\n", "add b")
    (git_project / "app.py").write_text("print('changed')\nprint(2)\n")
    (git_project / "new.txt").write_text("untracked\n")
    snap = gitinfo.snapshot(git_project, base)
    assert (snap.branch, snap.head, snap.head_subject, snap.base) == ("main", sha, "add b", base)
    assert snap.commits == ((sha, "add b"),)
    assert snap.diffstat == (("app.py", 2, 1), ("b.txt", 2, 0))
    assert snap.dirty == (" M app.py", "?? new.txt")
    assert snap.note == ""


def test_snapshot_without_base_or_with_a_vanished_base(git_project: Path) -> None:
    snap = gitinfo.snapshot(git_project, None)
    assert (snap.base, snap.commits, snap.diffstat) == (None, (), ())
    assert snap.note == "no session start recorded: no diffstat"
    gone = gitinfo.snapshot(git_project, "f" * 40)
    assert gone.base is None and gone.head_subject == "initial"
    assert gone.note.startswith("git: `git log` failed (fatal: ")


def test_snapshot_outside_git(tmp_path: Path) -> None:
    assert gitinfo.snapshot(tmp_path, None).note == "not a git repository"


def test_snapshot_needs_no_third_party_package(git_project: Path, bare_python: Path) -> None:
    """The plugin's first session runs its hooks on a bare python3 (the private venv is
    still building): the handoff must get the same git details there."""
    base = git(git_project, "rev-parse", "HEAD")
    sha = commit(git_project, "b.txt", "one\ntwo\n", "add b")
    (git_project / "app.py").write_text("print('changed')\n")
    code = (
        "import sys; from pathlib import Path; from ccstate import gitinfo; "
        "s = gitinfo.snapshot(Path(sys.argv[1]), sys.argv[2]); "
        "print(s.head_subject, s.commits, s.diffstat, s.dirty, repr(s.note), "
        "'git' in sys.modules)"
    )
    done = subprocess.run(
        [str(bare_python), "-c", code, str(git_project), base],
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(SRC), **BYTECODE_ENV},
    )
    assert done.stderr == ""
    assert done.stdout == (
        f"add b (('{sha}', 'add b'),) (('app.py', 1, 1), ('b.txt', 2, 0)) (' M app.py',) '' False\n"
    )


def test_snapshot_without_git_keeps_head(
    git_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(git_project / "no-bin"))
    snap = gitinfo.snapshot(git_project, None)
    head = (git_project / ".git" / "refs" / "heads" / "main").read_text().strip()
    assert (snap.branch, snap.head, snap.dirty) == ("main", head, ())
    assert snap.note == "git: git is not installed; git details omitted"


def test_read_only_git_calls_take_no_optional_locks(
    git_project: Path, tmp_path: Path, monkeypatch
) -> None:
    """#12 item 15: `git status` refreshes .git/index under index.lock unless told not to;
    a user's concurrent `git add` then fails. Every git call ccstate makes is read-only."""
    import shutil

    real = shutil.which("git")
    shim = tmp_path / "bin" / "git"
    shim.parent.mkdir()
    calls = tmp_path / "calls.log"
    shim.write_text(
        f'#!/bin/sh\necho "${{GIT_OPTIONAL_LOCKS:-unset}} $*" >> "{calls}"\nexec "{real}" "$@"\n'
    )
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    (git_project / "app.py").write_text("print('changed')\n")
    base = gitinfo.read_head(git_project).sha
    snap = gitinfo.snapshot(git_project, base)
    assert snap.dirty and snap.note == ""
    seen = calls.read_text().splitlines()
    assert any(" status " in f"{line} " for line in seen), seen
    assert all(line.startswith("0 ") for line in seen), seen
