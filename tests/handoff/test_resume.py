"""A handoff scan its deadline stopped goes on where it stopped next time (handoff.resume, #37)."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from ccstate.config import Config
from ccstate.handoff import resume
from ccstate.handoff import store as handoff_store
from ccstate.handoff.scan import Scan
from ccstate.secrets.redact import Redactor
from ccstate.transcript import lines as _lines
from helpers import FIXTURES, MODERN, PUBLIC, LookClock

CASE = FIXTURES / "handoff" / "session.jsonl"
SID = "5e55104e-0000-4000-8000-00000000c0de"
KEY = "AKIA" + "Z7QW4RTY8UIO2PLK"  # an AWS access key id of a valid shape (gitleaks' rule)


def transcripts() -> list[Path]:
    """The fixture session, and the shared corpora's transcripts when they are here."""
    found = [CASE]
    for corpus in (PUBLIC, MODERN):
        if corpus.is_dir():
            found += sorted(corpus.glob("*.jsonl"))[:6]
    return found


def _scan_stopped_after(
    path: Path,
    after: int,
    saved: tuple[Scan, tuple[int, int]] | None,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[Scan, str, tuple[int, int] | None]:
    with monkeypatch.context() as patch:
        patch.setattr(_lines, "_CHECK_YIELDS", 1)
        patch.setattr(_lines, "time", LookClock(after))
        return handoff_store.scan_from(path, 5.0, saved)


def _comparable(scan: Scan) -> dict[str, object]:
    return json.loads(json.dumps(resume.to_json(scan)))  # tuples as lists, as kept


@pytest.mark.parametrize("path", transcripts(), ids=lambda p: p.name[:24])
def test_a_kept_scan_comes_back_as_the_same_scan(path: Path) -> None:
    scan, note, _where = handoff_store.scan_from(path, None, None)
    assert note == ""
    back = resume.from_json(json.loads(json.dumps(resume.to_json(scan))))
    # every field comes back (a field Scan gains and resume forgets fails here); the calls
    # still waiting keep only the inputs the scan reads
    assert dataclasses.replace(back, _pending={}) == dataclasses.replace(scan, _pending={})
    assert {k: (v[0], v[2]) for k, v in back._pending.items()} == {
        k: (v[0], v[2]) for k, v in scan._pending.items()
    }


@pytest.mark.parametrize("path", transcripts(), ids=lambda p: p.name[:24])
def test_a_scan_stopped_again_and_again_gathers_what_one_whole_scan_does(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole, _note, end = handoff_store.scan_from(path, None, None)
    state = tmp_path / ".ccstate"
    redactor = Redactor()
    saved = None
    runs = 0
    while True:
        runs += 1
        scan, note, where = _scan_stopped_after(path, 7, saved, monkeypatch)
        if not note:
            break
        assert note.startswith("transcript scan stopped at line ") and where is not None
        resume.save(state, SID, path, scan, where, redactor)
        saved = resume.load(state, SID, path)
        assert saved is not None and saved[1] == where
    assert runs > 1  # it was stopped, and went on
    assert where == end  # where the next one goes on; None past a last line being written
    # what the kept files hold is redacted: compare with the whole scan redacted the same way
    assert _comparable(scan) == resume._redacted(_comparable(whole), redactor)


def test_what_is_kept_holds_no_secret_and_is_the_users_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.jsonl"
    text = CASE.read_text().replace("accept ISO week dates", f"accept {KEY} week dates")
    rows = [json.loads(line) for line in text.splitlines()[:-1]]  # the last is cut
    use = {"type": "tool_use", "id": "toolu_k", "name": "Bash"}
    use["input"] = {"command": f"AWS_ACCESS_KEY_ID={KEY} make deploy", "content": "x" * 9000}
    rows.append({"type": "assistant", "sessionId": SID, "message": {"content": [use]}})
    rows += [{"type": "user", "message": {"content": "padding"}}] * 30
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert KEY in path.read_text()
    scan, note, where = _scan_stopped_after(path, len(rows) - 5, None, monkeypatch)
    assert note and where is not None and "toolu_k" in scan._pending
    state = tmp_path / ".ccstate"
    resume.save(state, SID, path, scan, where, Redactor())
    kept = resume.path_for(state, SID)
    data = kept.read_bytes()
    assert all(KEY[i : i + 12].encode() not in data for i in range(len(KEY) - 11))
    assert b"[REDACTED:" in data and b"x" * 4200 not in data  # only what the scan reads, cut
    assert os.stat(kept).st_mode & 0o777 == 0o600
    assert os.stat(kept.parent).st_mode & 0o777 == 0o700
    back = resume.load(state, SID, path)
    assert back is not None and back[1] == where


def test_a_kept_scan_serves_only_the_file_it_was_made_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(CASE.read_bytes())
    state = tmp_path / ".ccstate"
    scan, note, where = _scan_stopped_after(path, 20, None, monkeypatch)
    assert note and where is not None
    resume.save(state, SID, path, scan, where, Redactor())
    assert resume.load(state, SID, path) is not None
    assert resume.load(state, "another-session", path) is None
    with path.open("ab") as fh:  # grown: still the same transcript
        fh.write(b'{"type": "user", "message": {"content": "more"}}\n')
    assert resume.load(state, SID, path) is not None
    data = bytearray(path.read_bytes())
    data[where[0] - 10] ^= 1  # changed in place before the offset
    path.write_bytes(bytes(data))  # same inode
    assert resume.load(state, SID, path) is None
    resume.save(state, SID, path, scan, where, Redactor())
    path.write_bytes(path.read_bytes()[: where[0] - 1])  # cut short
    assert resume.load(state, SID, path) is None
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(CASE.read_bytes())
    copy.replace(path)  # the same bytes in another file
    assert resume.load(state, SID, path) is None
    resume.path_for(state, SID).write_text("{not json")
    assert resume.load(state, SID, path) is None


def test_kept_scans_are_pruned_to_the_newest(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(CASE.read_bytes())
    state = tmp_path / ".ccstate"
    for n in range(resume.KEEP_FILES + 3):
        resume.save(state, f"s{n:02d}", path, Scan(), (10, 1), Redactor())
        stamp = 1_700_000_000 + n
        os.utime(resume.path_for(state, f"s{n:02d}"), (stamp, stamp))
    names = sorted(p.stem for p in resume.folder(state).glob("*.json"))
    assert len(names) == resume.KEEP_FILES and "s00" not in names and "s22" in names


def test_a_kept_scan_that_cannot_be_written_loses_only_time(
    git_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = git_project.parent / "t.jsonl"
    path.write_text(CASE.read_text().replace("/work/demo", str(git_project)))
    real = handoff_store.scan_from

    def stopped(transcript, deadline, saved):  # type: ignore[no-untyped-def]
        with monkeypatch.context() as patch:
            patch.setattr(_lines, "_CHECK_YIELDS", 1)
            patch.setattr(_lines, "time", LookClock(20))
            return real(transcript, 5.0, saved)

    def unwritable(*_args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(handoff_store, "scan_from", stopped)
    monkeypatch.setattr(resume, "save", unwritable)
    result = handoff_store.write_handoff(
        git_project,
        git_project / ".ccstate",
        Config(),
        transcript=path,
        event="SessionEnd",
        now=1_772_362_800.0,
        session_id=SID,
    )
    assert result.stopped.startswith("transcript scan stopped at line ")
    assert result.path is not None and result.path.exists()  # the handoff is written
    assert not resume.folder(git_project / ".ccstate").exists()
