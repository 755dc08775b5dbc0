"""The read ledger on disk: locked per-context JSON, blobs (store.py); epochs and bounds at a
session's boundaries (lifecycle.py; docs/LEDGER.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ccstate import store
from ccstate.errors import StateError
from ccstate.ledger import core as ledger
from ccstate.ledger import lifecycle
from ccstate.ledger import store as ledger_store

SID = "11111111-2222-3333-4444-555555555555"
TEXT = "".join(f"line {i}\n" for i in range(1, 51))


def _record_read(state: str, agent_id: str | None = None, text: str = TEXT) -> ledger.Decision:
    lines = text.split("\n")
    resp = {
        "type": "text",
        "file": {
            "filePath": "/p/a.py",
            "content": text,
            "numLines": len(lines),
            "startLine": 1,
            "totalLines": len(lines),
        },
    }
    event = ledger.read_event({"file_path": "/p/a.py"}, resp, "/p", "toolu_1")
    opts = ledger.Options(min_saved_chars=0)
    with ledger_store.open_context(state, SID, agent_id, now=1.0) as ctx:
        decision = ledger.decide(ctx.ledger, event, ctx.load, opts)
        ctx.ledger = ledger.record(ctx.ledger, event, decision)
        got = ledger.delivered(event, decision)
        if got:
            ctx.keep(got[2])
    return decision


def test_contexts_are_separate_files_and_roundtrip(tmp_path: Path) -> None:
    state = str(tmp_path)
    assert _record_read(state).kind == "full"
    assert _record_read(state).kind == "identical"
    assert _record_read(state, agent_id="a235d80d2fdc9c84a").kind == "full"  # a subagent
    folder = tmp_path / "ledger" / SID
    assert sorted(p.name for p in folder.glob("*.json")) == [
        "agent-a235d80d2fdc9c84a.json",
        "main.json",
    ]
    main, problems = ledger_store.load_ledger(str(folder / "main.json"), now=0)
    assert problems == [] and main.reads == 2
    assert ledger_store.from_json(ledger_store.to_json(main)) == main
    assert (tmp_path / "ledger" / "blobs" / ledger.sha256(TEXT)).read_text() == TEXT


def test_unsafe_ids_are_hashed_into_file_names(tmp_path: Path) -> None:
    path = ledger_store.context_path(str(tmp_path), "../../etc", "x/y")
    assert Path(path).parent.parent == tmp_path / "ledger"
    assert ".." not in path and Path(path).name.startswith("agent-")


@pytest.mark.parametrize(
    "content",
    ["{not json", "[]", '{"schema_version": 99}', '{"schema_version": 1, "paths": {}}'],
)
def test_a_corrupt_ledger_is_set_aside_and_starts_fresh(tmp_path: Path, content: str) -> None:
    path = tmp_path / "main.json"
    path.write_text(content)
    fresh, problems = ledger_store.load_ledger(str(path), now=7)
    assert fresh == ledger.Ledger()
    assert len(problems) == 1 and "corrupt" in problems[0]
    assert (tmp_path / "main.json.corrupt-7").read_text() == content
    assert not path.exists()


def test_a_locked_ledger_raises_state_error(tmp_path: Path) -> None:
    path = ledger_store.context_path(str(tmp_path), SID, None)
    with (
        store.file_lock(path),
        pytest.raises(StateError, match=r"still locked after 0\.1s"),
        ledger_store.open_context(str(tmp_path), SID, None, now=0, timeout=0.1),
    ):
        pass


def test_an_exception_inside_writes_nothing(tmp_path: Path) -> None:
    with (
        pytest.raises(RuntimeError),
        ledger_store.open_context(str(tmp_path), SID, None, now=0) as ctx,
    ):
        ctx.ledger = ledger.new_epoch(ctx.ledger, "x")
        raise RuntimeError("boom")
    assert not os.path.exists(ledger_store.context_path(str(tmp_path), SID, None))


def test_blobs_are_content_addressed_and_checked(tmp_path: Path) -> None:
    state = str(tmp_path)
    sha = ledger_store.write_blob(state, "hello\n")
    assert sha == ledger.sha256("hello\n")
    assert ledger_store.read_blob(state, sha) == "hello\n"
    (tmp_path / "ledger" / "blobs" / sha).write_text("tampered\n")
    assert ledger_store.read_blob(state, sha) is None
    assert ledger_store.read_blob(state, "0" * 64) is None
    assert ledger_store.read_blob(state, "../../etc/passwd") is None


def test_a_damaged_blob_means_full_content_and_a_problem(tmp_path: Path) -> None:
    state = str(tmp_path)
    small = "".join(f"row {i}\n" for i in range(1, 6))
    _record_read(state, text=small)
    (tmp_path / "ledger" / "blobs" / ledger.sha256(small)).write_text("x")
    bigger = small + "".join(f"row {i}\n" for i in range(6, 60))
    assert _record_read(state, text=bigger).reason == "ledger text missing or damaged"


def test_epochs_reset_every_context_of_the_session(tmp_path: Path) -> None:
    state = str(tmp_path)
    _record_read(state)
    _record_read(state, agent_id="abc")
    detail = lifecycle.on_lifecycle(
        state, "PreCompact", SID, None, now=2, store_max_bytes=1 << 20, log_max_bytes=4096
    )
    assert detail == {"ledger_epoch": "compaction"}
    for name in ("main.json", "agent-abc.json"):
        loaded, _ = ledger_store.load_ledger(str(tmp_path / "ledger" / SID / name), now=0)
        assert (loaded.epoch, loaded.epoch_reason, loaded.paths) == (2, "compaction", {})
    assert _record_read(state).kind == "full"


@pytest.mark.parametrize(
    "source, reason",
    [("compact", "compaction (SessionStart)"), ("resume", "resume"), ("startup", "unchanged")],
)
def test_session_start_sources(tmp_path: Path, source: str, reason: str) -> None:
    state = str(tmp_path)
    _record_read(state)
    detail = lifecycle.on_lifecycle(
        state, "SessionStart", SID, source, now=2, store_max_bytes=1 << 20, log_max_bytes=4096
    )
    assert detail == {"ledger_epoch": reason}
    expected = "full" if reason != "unchanged" else "identical"
    assert _record_read(state).kind == expected


def test_an_epoch_that_cannot_be_written_deletes_the_ledger(tmp_path: Path) -> None:
    state = str(tmp_path)
    _record_read(state)
    path = ledger_store.context_path(state, SID, None)
    lifecycle.EPOCH_LOCK_TIMEOUT, saved = 0.05, lifecycle.EPOCH_LOCK_TIMEOUT
    try:
        with store.file_lock(path):
            problems = lifecycle.start_epoch(state, SID, None, "compaction", now=3)
    finally:
        lifecycle.EPOCH_LOCK_TIMEOUT = saved
    assert problems and "ledger deleted instead" in problems[0]
    assert not os.path.exists(path)


def test_prune_keeps_newest_sessions_and_caps_blobs(tmp_path: Path) -> None:
    state = str(tmp_path)
    for i in range(5):
        folder = tmp_path / "ledger" / f"s{i}"
        folder.mkdir(parents=True)
        (folder / "main.json").write_text("{}")
        os.utime(folder, (1000 + i, 1000 + i))
    shas = [ledger_store.write_blob(state, f"{i}" * 1000) for i in range(4)]
    for i, sha in enumerate(shas):
        os.utime(tmp_path / "ledger" / "blobs" / sha, (2000 + i, 2000 + i))
    # 1,000 bytes take a 4 KiB block each: the cap counts blocks on disk, and an eviction
    # goes down to three quarters of it (capped.LOW_WATER): the two oldest go.
    removed = lifecycle.prune(state, max_bytes=3 * 4096 - 1, keep_sessions=2)
    assert sorted(p.name for p in (tmp_path / "ledger").iterdir()) == [
        "blobs",
        "blobs.size",
        "blobs.size.lock",
        "s3",
        "s4",
    ]
    assert sorted(p.name for p in (tmp_path / "ledger" / "blobs").iterdir()) == sorted(shas[2:])
    assert removed[:3] == ["session s2", "session s1", "session s0"]
    assert removed[3:] == [f"blob {shas[0][:12]}", f"blob {shas[1][:12]}"]


def test_file_sha_uses_the_stat_stamp(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("one\n")
    sha, stamp = ledger_store.file_sha(str(target), None)
    assert sha == ledger.sha256("one\n") and stamp is not None
    # Same size and mtime (a stamp match): the cached sha is trusted, the file not re-read.
    st = target.stat()
    target.write_text("two\n")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert ledger_store.file_sha(str(target), {"stamp": stamp, "sha": "cached"})[0] == "cached"
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert ledger_store.file_sha(str(target), {"stamp": stamp, "sha": "cached"})[0] == (
        ledger.sha256("two\n")
    )
    assert ledger_store.file_sha(str(tmp_path / "missing"), None) == ("", None)


def test_ledger_json_is_plain_and_compact(tmp_path: Path) -> None:
    _record_read(str(tmp_path))
    text = (tmp_path / "ledger" / SID / "main.json").read_text()
    assert "\n" not in text.rstrip("\n") and ", " not in text  # one line, no padding (#14)
    data = json.loads(text)
    assert data["schema_version"] == 2
    assert data["paths"] == {"/p/a.py": [[1, 51, ledger.sha256(TEXT), 1, "1:"]]}
    assert data["history"][0]["tool_use_id"] == "toolu_1"


def _read_of(path: str) -> ledger.ReadEvent:
    resp = {
        "type": "text",
        "file": {
            "filePath": path,
            "content": TEXT,
            "numLines": 51,
            "startLine": 1,
            "totalLines": 51,
        },
    }
    return ledger.read_event({"file_path": path}, resp, "/p", "toolu_x")


def test_the_least_recently_read_path_goes_first_across_reloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each event reloads the ledger from disk: its paths must come back in the order they
    were read, not sorted (with sort_keys, /p/a.py went first after a reload however recently
    it was read; #14)."""
    monkeypatch.setattr(ledger, "MAX_PATHS", 3)
    state, opts = str(tmp_path), ledger.Options(min_saved_chars=0)
    for path in ("/p/c.py", "/p/a.py", "/p/b.py", "/p/a.py", "/p/d.py"):  # one event each
        with ledger_store.open_context(state, SID, None, now=1.0) as ctx:
            read = _read_of(path)
            ctx.ledger = ledger.record(
                ctx.ledger, read, ledger.decide(ctx.ledger, read, ctx.load, opts)
            )
    main, _ = ledger_store.load_ledger(str(tmp_path / "ledger" / SID / "main.json"), now=0)
    assert list(main.paths) == ["/p/b.py", "/p/a.py", "/p/d.py"]  # c.py, least recent, went


def test_capsule_section_after_compaction_names_files_with_replaced_reads(tmp_path: Path) -> None:
    state = str(tmp_path)
    assert lifecycle.capsule_section(state, "/p", SID, "compact") == []  # no ledger yet
    _record_read(state)
    _record_read(state)  # a notice
    lifecycle.on_lifecycle(
        state, "PreCompact", SID, None, now=2, store_max_bytes=1 << 20, log_max_bytes=4096
    )
    assert lifecycle.capsule_section(state, "/p", SID, "compact") == [
        "- Read ledger: notices kept from before this compaction may point at Reads the summary "
        "replaced. Read again what you need of: a.py (full text comes back)."
    ]
    assert lifecycle.capsule_section(state, "/p", SID, "startup") == []


# --------------------------------------------------------------------------- faults (#12)


def _decide_verified(state: str, text: str = TEXT) -> ledger.Decision:
    lines = text.split("\n")
    file = {"filePath": "/p/a.py", "content": text, "numLines": len(lines), "startLine": 1}
    resp = {"type": "text", "file": {**file, "totalLines": len(lines)}}
    event = ledger.read_event({"file_path": "/p/a.py"}, resp, "/p", "toolu_x")
    with ledger_store.open_context(state, SID, None, now=5.0, verify=True) as ctx:
        decision = ledger.decide(ctx.ledger, event, ctx.load, ledger.Options(min_saved_chars=0))
        ctx.ledger = ledger.record(ctx.ledger, event, decision)
    return decision


def test_a_slow_read_cannot_write_an_old_epoch_back(tmp_path: Path) -> None:
    """Item 4: PreCompact gives up on the lock and deletes the ledger while a slow PostToolUse
    holds it; that PostToolUse then writes its (old-epoch) ledger back. The generation
    PreCompact wrote first, without the lock, makes the written-back ledger stale."""
    state = str(tmp_path)
    assert _decide_verified(state).kind == "full"
    slow = ledger_store.open_context(state, SID, None, now=6.0, verify=True)
    slow.__enter__()
    lifecycle.EPOCH_LOCK_TIMEOUT, saved = 0.05, lifecycle.EPOCH_LOCK_TIMEOUT
    try:
        problems = lifecycle.start_session_epoch(state, SID, "compaction", now=7.0)
    finally:
        lifecycle.EPOCH_LOCK_TIMEOUT = saved
    assert "ledger deleted instead" in problems[-1]
    slow.ledger = ledger.with_meta(slow.ledger, touched=True)  # it had something to write
    slow.__exit__(None, None, None)
    assert os.path.exists(ledger_store.context_path(state, SID, None))  # the old ledger is back
    assert _decide_verified(state).kind == "full"


def test_a_schema_1_ledger_is_migrated_to_a_new_epoch(tmp_path: Path) -> None:
    _record_read(str(tmp_path))
    path = tmp_path / "ledger" / SID / "main.json"
    data = json.loads(path.read_text())
    del data["meta"]
    data["schema_version"] = 1
    path.write_text(json.dumps(data))
    migrated, problems = ledger_store.load_ledger(str(path), now=0)
    assert problems == []
    assert (migrated.epoch, migrated.epoch_reason, migrated.paths) == (2, "schema upgrade", {})
    assert migrated.stats["reads"] == 1 and migrated.files == ledger_store.from_json(data).files


def test_state_files_are_private(tmp_path: Path) -> None:
    """Item 11: blobs, ledgers and logs hold file text: 0600 files in 0700 folders, and an
    older, world-readable state dir is fixed on the next write."""
    state = tmp_path / ".ccstate"
    state.mkdir(mode=0o755)
    os.chmod(state, 0o755)
    store.ensure_state_dir(state)
    _record_read(str(state))
    assert state.stat().st_mode & 0o777 == 0o700
    blob = state / "ledger" / "blobs" / ledger.sha256(TEXT)
    assert blob.stat().st_mode & 0o777 == 0o600
    assert blob.parent.stat().st_mode & 0o777 == 0o700
    main = state / "ledger" / SID / "main.json"
    assert main.stat().st_mode & 0o777 == 0o600
    os.chmod(main, 0o644)
    _record_read(str(state))
    assert main.stat().st_mode & 0o777 == 0o600
