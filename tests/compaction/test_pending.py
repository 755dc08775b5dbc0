"""The reminder left for the next hook (#26): found with one stat, handed over once."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ccstate.compaction import pending, store

ENV = {"HOME": "/nonexistent"}


def _env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "xdg")}


def test_where_the_reminder_waits(tmp_path: Path) -> None:
    assert pending.path_str("s/../1", {"CCSTATE_HOME": "/c"}) == "/c/pending/s____1.json"
    assert pending.path_str("s1", {"XDG_STATE_HOME": "/x"}) == "/x/ccstate/pending/s1.json"
    assert pending.path_str("s1", {"HOME": "/h"}) == "/h/.local/state/ccstate/pending/s1.json"
    assert pending.due("", ENV) is False


def test_put_then_take_once(tmp_path: Path) -> None:
    env = _env(tmp_path)
    assert pending.due("s1", env) is False and pending.take("s1", env) is None
    pending.put("s1", env, {"line": "x", "n": 1}, now=1000.0)
    path = Path(pending.path_str("s1", env))
    assert path.stat().st_mode & 0o777 == 0o600
    assert pending.due("s1", env) is True
    assert pending.take("s1", env) == {"line": "x", "n": 1}
    assert pending.take("s1", env) is None and not pending.due("s1", env)
    assert os.listdir(path.parent) == []  # the claimed copy is gone too


def test_old_reminders_are_pruned_when_a_new_one_is_left(tmp_path: Path) -> None:
    env = _env(tmp_path)
    pending.put("old", env, {"line": "x"}, now=1000.0)
    old = Path(pending.path_str("old", env))
    os.utime(old, (1000.0, 1000.0))
    pending.put("new", env, {"line": "y"}, now=1000.0 + pending.MAX_AGE_S + 1)
    assert not old.exists() and pending.due("new", env)


def test_deliver_records_the_hand_over(tmp_path: Path) -> None:
    env, state = _env(tmp_path), str(tmp_path / ".ccstate")
    store.settle(state, "s1", lambda asked, capsule: {"trigger": "auto", "reminder": "pending"})
    pending.put("s1", env, {"line": "[ccstate] left out: D1", "state": state, "n": 1}, now=1.0)
    assert pending.deliver("s1", env, "PostToolUse") == "[ccstate] left out: D1"
    entry = store.read(state, "s1")["compactions"][0]
    assert (entry["reminder"], entry["reminded"]) == ("delivered", "PostToolUse")
    assert pending.deliver("s1", env, "UserPromptSubmit") is None


def test_a_manual_compact_that_echoed_the_block_needs_no_reminder(tmp_path: Path) -> None:
    env, state = _env(tmp_path), str(tmp_path / ".ccstate")
    transcript = tmp_path / "t.jsonl"
    before = json.dumps({"type": "api-request-blob", "text": "HEADER in a request"}) + "\n"
    transcript.write_text(before)
    echo = {
        "type": "user",
        "message": {"content": "<local-command-stdout>PreCompact [x] completed: HEADER ..."},
    }
    with transcript.open("a") as fh:
        fh.write(json.dumps(echo) + "\n")
    store.settle(state, "s1", lambda asked, capsule: {"trigger": "manual"})
    data = {"line": "L", "state": state, "n": 1, "manual": True, "transcript": str(transcript)}
    pending.put("s1", env, {**data, "offset": len(before), "marker": "HEADER"}, now=1.0)
    assert pending.deliver("s1", env, "UserPromptSubmit") is None
    assert store.read(state, "s1")["compactions"][0]["reminder"] == "echoed"
    # no echo past the offset (an auto-compaction): the line is handed over
    pending.put("s1", env, {**data, "offset": transcript.stat().st_size, "marker": "HEADER"}, 1.0)
    assert pending.deliver("s1", env, "UserPromptSubmit") == "L"


def test_a_fifo_named_as_the_transcript_is_no_echo_and_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)  # opened to read, it would wait for a writer (#37)
    assert pending.echoed(str(fifo), 0, "HEADER") is False
