"""The epoch's witnesses: transcript markers, generation, idle time (issue #12)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ccstate.ledger import witness

LINE = json.dumps({"type": "user", "message": {"content": "x" * 100}}, separators=(",", ":"))


def _write(path: Path, *lines: str) -> None:
    with path.open("a") as fh:
        fh.write("".join(line + "\n" for line in lines))


def test_markers_after_the_last_check_are_found_and_escaped_ones_are_not(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, LINE)
    why, seen = witness.scan(str(path), {}, must_scan=False)
    assert why == "" and seen["offset"] == path.stat().st_size
    quoted = json.dumps({"type": "user", "content": 'a file says "compact_boundary"'})
    _write(path, quoted, LINE)
    why, seen = witness.scan(str(path), seen, must_scan=True)
    assert why == ""  # inside a JSON string the quotes are escaped: not a record
    _write(path, '{"type":"system","subtype":"compact_boundary"}')
    assert witness.scan(str(path), seen, must_scan=True)[0] == "transcript shows compact_boundary"


def test_a_marker_split_across_chunks_is_found(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(witness, "_CHUNK", 7)
    path = tmp_path / "t.jsonl"
    _write(path, LINE, '{"subtype":"microcompact_boundary"}')
    assert witness.scan(str(path), {}, must_scan=True)[0] == (
        "transcript shows microcompact_boundary"
    )


def test_a_replaced_truncated_or_vanished_transcript_is_no_proof(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, LINE, LINE)
    _why, seen = witness.scan(str(path), {}, must_scan=True)
    path.write_text(LINE + "\n")  # shorter
    assert witness.scan(str(path), seen, must_scan=True)[0] == "transcript replaced or truncated"
    _why, seen = witness.scan(str(path), {}, must_scan=True)
    os.unlink(path)
    assert witness.scan(str(path), seen, must_scan=True)[0] == "transcript no longer readable"
    assert witness.scan(str(tmp_path / "other"), seen, must_scan=True)[0] != ""


def test_too_much_new_transcript_is_no_proof(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(witness, "MAX_SCAN_BYTES", 100)
    path = tmp_path / "t.jsonl"
    _write(path, LINE, LINE)
    assert witness.scan(str(path), {}, must_scan=True)[0] == "too much new transcript to check"


def test_a_fifo_transcript_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    assert witness.scan(str(fifo), {}, must_scan=True)[0] == "transcript is not a regular file"
    assert witness.scan(str(fifo), {}, must_scan=False)[0] == ""


def test_subagents_are_witnessed_by_their_own_transcript(tmp_path: Path) -> None:
    main = tmp_path / "sid.jsonl"
    own = tmp_path / "sid" / "subagents" / "agent-abc.jsonl"
    assert witness.transcript_for(str(main), "sid", "abc") == str(main)  # not there (yet)
    own.parent.mkdir(parents=True)
    own.write_text("")
    assert witness.transcript_for(str(main), "sid", "abc") == str(own)
    assert witness.transcript_for(str(main), "sid", None) == str(main)
    assert witness.transcript_for("", "sid", "abc") == ""


def test_a_subagents_own_transcript_appearing_later_is_searched_from_its_start(
    tmp_path: Path,
) -> None:
    main = tmp_path / "sid.jsonl"
    _write(main, LINE)
    _why, seen = witness.scan(str(main), {}, must_scan=True)  # the own file is not there yet
    own = tmp_path / "sid" / "subagents" / "agent-abc.jsonl"
    own.parent.mkdir(parents=True)
    _write(own, LINE, LINE)
    assert witness.transcript_for(str(main), "sid", "abc") == str(own)
    why, moved = witness.scan(str(own), seen, must_scan=True)
    assert why == "" and moved["path"] == str(own) and moved["offset"] == own.stat().st_size
    _write(own, '{"type":"system","subtype":"compact_boundary"}')  # before the move: found
    assert witness.scan(str(own), seen, must_scan=True)[0] == "transcript shows compact_boundary"
    # any other change of path ends the epoch: another session's transcript or one of its
    # subagents', or back from the own file to the session's
    for other in (tmp_path / "other.jsonl", tmp_path / "other" / "subagents" / "agent-abc.jsonl"):
        other.parent.mkdir(parents=True, exist_ok=True)
        _write(other, LINE)
        assert witness.scan(str(other), seen, must_scan=True)[0] == "transcript path changed"
    assert witness.scan(str(main), moved, must_scan=True)[0] == "transcript path changed"


def test_generation_and_idle(tmp_path: Path) -> None:
    assert witness.read_generation(str(tmp_path)) == ""
    (tmp_path / "generation").write_text("g1\n")
    assert witness.read_generation(str(tmp_path)) == "g1"
    os.unlink(tmp_path / "generation")
    (tmp_path / "generation").mkdir()
    assert witness.read_generation(str(tmp_path)) is None
    assert witness.idle_reason(None, 100.0) == ""
    assert witness.idle_reason(1000.0, 1000.0 + 3599) == ""
    assert witness.idle_reason(1000.0, 1000.0 + 3600) == "idle for 3600 s"
    assert witness.idle_reason(1000.0, 900.0) == "clock went backwards"


def test_a_content_replacement_record_ends_the_epoch(tmp_path: Path) -> None:
    """2.1.332 persists tool results past its per-message budget and records which; a shell
    read among them is no longer what the context holds (#24.2)."""
    path = tmp_path / "t.jsonl"
    _write(path, LINE)
    seen = witness.scan(str(path), {}, must_scan=False)[1]
    quoted = json.dumps({"type": "user", "content": 'the record "content-replacement" is new'})
    _write(path, quoted)
    why, seen = witness.scan(str(path), seen, must_scan=True)
    assert why == ""
    record = {"type": "content-replacement", "sessionId": "s", "replacements": []}
    _write(path, json.dumps(record, separators=(",", ":")))
    why, _seen = witness.scan(str(path), seen, must_scan=True)
    assert why == "transcript shows content-replacement"
