from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ccstate import store
from ccstate.errors import StateError


def test_atomic_write_leaves_no_temp_files_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "a" / "state.json"
    store.atomic_write_json(target, {"b": 1, "a": [2, "é"]})
    assert target.read_text() == '{"b":1,"a":[2,"\\u00e9"]}\n'  # compact, in the caller's order
    os.chmod(target, 0o640)
    store.atomic_write_text(target, "x")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["state.json"]


def test_read_json_sets_a_corrupt_file_aside(tmp_path: Path) -> None:
    target = tmp_path / "ledger.json"
    target.write_text("{not json")
    assert store.read_json(target, now=1700000000) is None
    assert not target.exists()
    assert (tmp_path / "ledger.json.corrupt-1700000000").read_text() == "{not json"
    assert store.read_json(tmp_path / "absent.json") is None


def test_state_dir_ignores_itself(tmp_path: Path) -> None:
    state = tmp_path / ".ccstate"
    store.ensure_state_dir(state)
    assert (state / ".gitignore").read_text().splitlines()[-1] == "*"


HOLD = """
import sys, time
from pathlib import Path
from ccstate import store
with store.file_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""

INCREMENT = """
import sys
from pathlib import Path
from ccstate import store
target = Path(sys.argv[1])
for _ in range(int(sys.argv[2])):
    with store.file_lock(target, timeout=30):
        data = store.read_json(target) or {"n": 0}
        data["n"] += 1
        store.atomic_write_json(target, data)
"""


def test_lock_excludes_other_processes_and_times_out(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(target), "3"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        expected = r"state\.json\.lock: still locked after 0\.2s"
        with pytest.raises(StateError, match=expected), store.file_lock(target, timeout=0.2):
            pass
    finally:
        holder.wait(30)
    with store.file_lock(target, timeout=0.2):
        pass


def test_locked_read_modify_write_loses_no_update(tmp_path: Path) -> None:
    target = tmp_path / "counter.json"
    workers = [
        subprocess.Popen([sys.executable, "-c", INCREMENT, str(target), "25"]) for _ in range(4)
    ]
    assert [worker.wait(60) for worker in workers] == [0, 0, 0, 0]
    assert json.loads(target.read_text()) == {"n": 100}


def test_every_folder_and_file_ccstate_creates_in_state_is_private_whatever_the_umask(
    tmp_path: Path,
) -> None:
    """#23: file_lock made its parent folders with the umask's mode (0755), ensure_private_dir
    fixed only the last one, and plain writes in the state dir (recall/summary.json) were
    0644."""
    from ccstate.recall import index

    state = tmp_path / "p" / ".ccstate"
    old = os.umask(0o022)
    try:
        with store.file_lock(state / "ledger" / "s1" / "main.json"):
            pass
        store.ensure_private_dir(state / "handoff" / "branches" / "main")
        store.atomic_write_json(index.summary_path(state), {"moments": 1}, durable=False)
        store.atomic_write_text(state / "heartbeat" / "PostToolUse.json", "{}")
    finally:
        os.umask(old)
    modes = {str(p.relative_to(state)): stat.S_IMODE(p.stat().st_mode) for p in state.rglob("*")}
    assert {p: m for p, m in modes.items() if m not in (0o700, 0o600)} == {}
    assert modes["ledger"] == modes["ledger/s1"] == modes["handoff/branches"] == 0o700
    assert modes["recall/summary.json"] == 0o600


def test_open_regular_refuses_what_is_not_a_regular_file_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\n")
    fd = store.open_regular(path)
    try:
        assert os.read(fd, 10) == b"one\n"
    finally:
        os.close(fd)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # a blocking open would wait for a writer forever
    for odd in (fifo, tmp_path, Path("/dev/null")):
        with pytest.raises(OSError, match="not a regular file"):
            store.open_regular(odd)
    with pytest.raises(FileNotFoundError):
        store.open_regular(tmp_path / "gone")
