"""repo.notes: the hot path's one appended line, taken once."""

from __future__ import annotations

import stat
from pathlib import Path

from ccstate.repo import notes


def test_noted_paths_are_taken_once_in_order_without_repeats(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    for path in ("/p/a.py", "/p/b.py", "/p/a.py"):
        assert notes.note_path(state, path)
    assert notes.pending(state)
    assert notes.take(state) == ["/p/a.py", "/p/b.py"]
    assert notes.take(state) == [] and not notes.pending(state)


def test_the_list_is_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    notes.note_path(str(state), "/p/a.py")
    assert stat.S_IMODE((state / "repo").stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "repo" / "touched").stat().st_mode) == 0o600


def test_a_path_with_a_newline_or_an_unwritable_state_is_not_noted(tmp_path: Path) -> None:
    assert not notes.note_path(str(tmp_path), "/p/a\nb.py")
    (tmp_path / "file").write_text("")
    assert not notes.note_path(str(tmp_path / "file"), "/p/a.py")  # state is a file: False
