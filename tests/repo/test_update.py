"""repo.update: only what changed is read again; noted paths first; bounded runs resume."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ccstate.repo import index, notes, update
from code_project import git

MB = 1 << 30


def refresh(project: Path, **kw: object) -> update.Progress:
    return update.refresh(project, project.parent / "state", max_bytes=MB, **kw)  # type: ignore[arg-type]


def con_of(project: Path) -> sqlite3.Connection:
    return index.connect(project.parent / "state")


def test_a_second_run_reads_nothing_and_an_edit_reads_one_file(code_project: Path) -> None:
    first = refresh(code_project)
    assert first.indexed == 6 and first.listed == 6 and not first.error  # notes.txt: windows
    assert refresh(code_project).indexed == 0
    path = code_project / "src" / "dates.py"
    path.write_text(path.read_text() + "\n\ndef next_day(value):\n    return value\n")
    again = refresh(code_project)
    assert again.indexed == 1
    names = {r[0] for r in con_of(code_project).execute("SELECT name FROM chunks")}
    assert "next_day" in names


def test_a_noted_path_is_read_even_when_its_stamp_did_not_move(code_project: Path) -> None:
    refresh(code_project)
    path = code_project / "src" / "dates.py"
    st = path.stat()
    path.write_text(path.read_text().replace("parse_date", "parse_day!"))  # same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert refresh(code_project).indexed == 0  # the stamp alone cannot see it
    notes.note_path(str(code_project.parent / "state"), str(path))
    assert refresh(code_project).indexed == 1


def test_deleted_and_renamed_files_are_forgotten(code_project: Path) -> None:
    refresh(code_project)
    git(code_project, "mv", "src/dates.py", "src/when.py")
    (code_project / "web" / "cart.ts").unlink()
    got = refresh(code_project)
    assert (got.indexed, got.removed) == (1, 2)
    paths = {r[0] for r in con_of(code_project).execute("SELECT path FROM files")}
    assert "src/when.py" in paths and "src/dates.py" not in paths and "web/cart.ts" not in paths


def test_a_bounded_run_says_how_far_it_got_and_the_next_goes_on(
    code_project: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(update, "BATCH", 1)
    got = refresh(code_project, deadline=0.0)  # past already: no batch starts
    assert (got.indexed, got.pending) == (0, 6) and "6 of 6 still to read" in got.line()
    assert refresh(code_project).indexed == 6


def test_bad_files_are_skipped_with_a_reason_and_nothing_else_is_lost(code_project: Path) -> None:
    (code_project / "latin.py").write_bytes("caf\xe9 = 1\n".encode("latin-1"))
    with (code_project / "generated.py").open("wb") as fh:
        fh.truncate(50 << 20)
    os.symlink("loop", code_project / "loop")
    git(code_project, "add", ".")
    got = refresh(code_project)
    assert got.indexed == 6 and got.skipped == 3
    stats = index.stats(con_of(code_project))
    assert stats.skipped == {
        "not UTF-8": ["latin.py"],
        "over the 1 MB cap": ["generated.py"],
        "symlink (not followed)": ["loop"],
    }
    assert stats.files == 6


def test_a_folder_that_is_not_git_is_an_error_not_a_crash(tmp_path: Path) -> None:
    got = update.refresh(tmp_path, tmp_path / "state", max_bytes=MB)
    assert "not a git repository" in got.error and got.line().startswith("code index: not a git")


def test_the_index_is_private(code_project: Path) -> None:
    refresh(code_project)
    path = index.index_path(code_project.parent / "state")
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700


def test_a_full_index_stops_taking_files(code_project: Path) -> None:
    got = update.refresh(code_project, code_project.parent / "state", max_bytes=1)
    assert got.indexed == 0
    assert "the index is full (find.max_mb)" in index.stats(con_of(code_project)).skipped


def test_parallel_workers_index_the_same_as_one_process(code_project: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(update, "PARALLEL_FROM", 1)
    refresh(code_project, jobs=2)
    rows = sorted(con_of(code_project).execute("SELECT name, start, end FROM chunks"))
    (code_project.parent / "state").rename(code_project.parent / "one")
    refresh(code_project, jobs=1)
    assert rows == sorted(con_of(code_project).execute("SELECT name, start, end FROM chunks"))
