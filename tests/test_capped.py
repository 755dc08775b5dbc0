"""Folders held under a byte cap counted in disk blocks, with a size ledger (capped.py, #14)."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from ccstate import capped, store

KIB = 1024


def _on_disk(folder: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in folder.iterdir() if p.is_file())


def _put(folder: Path, n: int, size: int = 10 * KIB, *, max_bytes: int = 1 << 20) -> str:
    data = (str(n).encode() + bytes([n % 256]) * size)[:size]  # `size` bytes, distinct per n
    name = store.sha256_hex(data)
    capped.put(str(folder), name, data, max_bytes=max_bytes)
    return name


def test_put_keeps_the_folder_under_its_cap_in_disk_blocks_at_every_write(tmp_path: Path) -> None:
    folder, cap = tmp_path / "blobs", 64 * KIB
    names = []
    for n in range(40):  # 40 files of 1,000 bytes: 40 KB apparent, 160 KiB on disk
        names.append(_put(folder, n, 1000, max_bytes=cap))
        assert _on_disk(folder) <= cap
    record = capped.current(str(folder))
    assert record is not None and record.total == _on_disk(folder)
    assert record.count == len(list(folder.iterdir()))
    assert (folder / names[-1]).exists() and not (folder / names[0]).exists()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / names[-1]).stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(capped.size_path(str(folder))).stat().st_mode) == 0o600


def test_the_least_recently_used_go_first_and_a_repeat_only_marks_use(tmp_path: Path) -> None:
    folder = tmp_path / "blobs"
    names = [_put(folder, n, 8 * KIB, max_bytes=1 << 20) for n in range(4)]
    now = time.time()
    for age, name in enumerate(reversed(names)):  # names[0] oldest
        os.utime(folder / name, (now - 100 - age, now - 100 - age))
    before = capped.current(str(folder))
    _put(folder, 0, 8 * KIB, max_bytes=1 << 20)  # delivered again: newest now, nothing written
    assert capped.current(str(folder)).total == before.total  # type: ignore[union-attr]
    # 4 files of 8 KiB + a new one = 40 KiB over a 36 KiB cap: down to 27 KiB, oldest first
    evicted = capped.put(str(folder), "new", b"n" * 8 * KIB, max_bytes=36 * KIB)
    assert evicted == [names[1], names[2]]
    assert sorted(p.name for p in folder.iterdir()) == sorted([names[0], names[3], "new"])


def test_a_lost_or_stale_size_ledger_is_rebuilt_with_one_scan(tmp_path: Path) -> None:
    folder = tmp_path / "blobs"
    for n in range(3):
        _put(folder, n)
    size = Path(capped.size_path(str(folder)))
    size.unlink()  # lost
    assert capped.current(str(folder)) is None
    assert capped.check(str(folder), 1 << 20) == []
    assert capped.current(str(folder)).total == _on_disk(folder)  # type: ignore[union-attr]
    (folder / "by-hand").write_bytes(b"x" * 50 * KIB)  # stale: the folder changed behind it
    assert capped.current(str(folder)) is None
    _put(folder, 9)  # the next write recounts
    record = capped.current(str(folder))
    assert record is not None and (record.total, record.count) == (_on_disk(folder), 5)
    size.write_bytes(b"garbled, and longer than the line\n" * 9)
    assert capped.read_record(str(folder)) is None and capped.current(str(folder)) is None
    assert capped.check(str(folder), 1 << 20) == []
    assert capped.current(str(folder)).total == _on_disk(folder)  # type: ignore[union-attr]
    assert size.stat().st_size == capped.RECORD_WIDTH


def test_check_is_one_stat_when_current_and_evicts_when_the_cap_was_lowered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "blobs"
    for n in range(6):
        _put(folder, n, 8 * KIB)
    scans: list[str] = []
    real = os.scandir

    def scandir(path: str) -> object:
        scans.append(path)
        return real(path)

    monkeypatch.setattr(capped.os, "scandir", scandir)
    assert capped.check(str(folder), 1 << 20) == [] and scans == []  # no scan of the blobs
    assert len(capped.check(str(folder), 24 * KIB)) == 4 and len(scans) == 1
    assert _on_disk(folder) <= 24 * KIB * capped.LOW_WATER
    assert capped.check(str(tmp_path / "nowhere"), 0) == []


def test_a_file_larger_than_the_cap_is_not_kept_and_the_newest_is_never_evicted(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "blobs"
    with pytest.raises(capped.TooLarge):
        capped.put(str(folder), "huge", b"x" * (20 * KIB), max_bytes=16 * KIB)
    assert not (folder / "huge").exists()
    _put(folder, 1, 4 * KIB, max_bytes=16 * KIB)
    capped.put(str(folder), "big", b"y" * (14 * KIB), max_bytes=16 * KIB)  # alone above 3/4
    assert [p.name for p in folder.iterdir()] == ["big"]


def test_temp_files_of_killed_writers_are_swept_and_never_counted(tmp_path: Path) -> None:
    folder = tmp_path / "blobs"
    _put(folder, 1)
    old, fresh = folder / "a.1.2.tmp", folder / "b.1.2.tmp"
    for path in (old, fresh):
        path.write_bytes(b"t" * KIB)
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    capped.check(str(folder), 1 << 20)
    assert not old.exists() and fresh.exists()
    record = capped.current(str(folder))
    assert record is not None and record.count == 1
