"""The originals a digest names (outputs/store.py)."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from ccstate.outputs import store


def test_an_original_is_kept_byte_for_byte_private_and_content_addressed(tmp_path: Path) -> None:
    data = "ok\r\n\x1b[31mFAIL\x1b[0m é\n".encode()
    path = store.keep(str(tmp_path), data)
    assert Path(path).read_bytes() == data
    assert Path(path).parent == tmp_path / "out"
    assert Path(path).name == store.path_for(str(tmp_path), data).rsplit("/", 1)[-1]
    assert len(Path(path).stem) == store.NAME_HEX
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "out").st_mode) == 0o700
    assert store.keep(str(tmp_path), data) == path  # the same bytes, the same file
    assert len(list((tmp_path / "out").iterdir())) == 1


def test_a_short_name_taken_by_other_bytes_gets_the_long_name(tmp_path: Path) -> None:
    data = b"the output"
    short = Path(store.path_for(str(tmp_path), data))
    short.parent.mkdir(parents=True)
    short.write_bytes(b"something of another size")
    longer = store.keep(str(tmp_path), data)
    assert longer != str(short) and len(Path(longer).stem) == 64
    assert Path(longer).read_bytes() == data


def test_prune_drops_the_least_recently_used_beyond_the_cap(tmp_path: Path) -> None:
    paths = [store.keep(str(tmp_path), bytes([i]) * 1000) for i in range(5)]
    now = time.time()
    for age, path in enumerate(reversed(paths)):
        os.utime(path, (now - age * 60, now - age * 60))
    # 1,000 bytes take a 4 KiB block each (the cap counts blocks on disk); an eviction goes
    # down to three quarters of the cap (capped.LOW_WATER): 20 KiB to at most 9 KiB.
    removed = store.prune(str(tmp_path), max_bytes=3 * 4096)
    assert sorted(removed) == sorted(Path(p).name for p in paths[:3])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        Path(p).name for p in paths[3:]
    )
    assert store.prune(str(tmp_path / "nowhere"), max_bytes=0) == []


def test_a_persisted_output_is_read_unless_too_large(tmp_path: Path) -> None:
    small = tmp_path / "a.txt"
    small.write_bytes(b"x" * 10)
    assert store.read_original(str(small)) == b"x" * 10
    assert store.read_original(str(tmp_path / "missing.txt")) is None


def test_every_write_keeps_the_originals_within_the_cap_on_disk(tmp_path: Path) -> None:
    cap, folder = 64 * 1024, tmp_path / "out"
    for i in range(40):  # 40 originals of 3,000 bytes: one 4 KiB block each, 160 KiB in all
        path = store.keep(str(tmp_path), f"{i:04d}".encode() * 750, max_bytes=cap)
        assert Path(path).exists()  # the original a digest names is never the one evicted
        assert sum(p.stat().st_blocks * 512 for p in folder.iterdir()) <= cap
    assert (tmp_path / "out.size").read_text().split()[2] == str(
        sum(p.stat().st_blocks * 512 for p in folder.iterdir())
    )


def test_an_original_larger_than_the_cap_is_not_kept(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        store.keep(str(tmp_path), b"x" * (2 << 20), max_bytes=1 << 20)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
