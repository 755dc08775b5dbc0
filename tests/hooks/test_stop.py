"""The Stop hook as Claude Code runs it (a process, the payload on stdin): it writes the
session's applied kept-out counter for the status line (hooks/stop.py, moments/kept.py)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from ccstate.config import Config
from ccstate.hookio import HookInput
from ccstate.hooks import HookEnv
from ccstate.hooks.stop import count_kept
from ccstate.moments import kept
from ccstate.report import applied
from helpers import MODERN, PUBLIC, corpus_absent, make_payload, run_hook
from report.test_applied import session_records, write

SESSION = "11111111-2222-3333-4444-555555555555"


def counter(project: Path) -> Path:
    return project / ".ccstate" / "cache" / "kept" / f"{SESSION}.json"


def stop(project: Path, **fields: object) -> tuple[int, str]:
    code, _parsed, out, _err = run_hook(
        "Stop", make_payload("Stop", project, **fields), cwd=project
    )
    return code, out


def test_it_writes_the_reports_figure_privately_and_prints_nothing(git_project: Path) -> None:
    records = session_records()
    main = write(git_project / "transcript.jsonl", records)
    assert stop(git_project) == (0, "")
    data = json.loads(counter(git_project).read_text())
    expected = applied.kept_out_as_applied(records, main.name)
    assert (data["tokens"], data["replacements"]) == (expected.tokens, expected.replacements)
    assert data["transcript"] == str(main)
    assert data["files"] == {str(main): main.stat().st_size}
    assert stat.S_IMODE(counter(git_project).stat().st_mode) == 0o600
    for folder in (counter(git_project).parent, counter(git_project).parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    seen = kept.session_kept(str(git_project / ".ccstate"), SESSION, str(main))
    assert seen is not None and (seen.tokens, seen.behind) == (expected.tokens, False)


def test_an_unchanged_transcript_is_not_scanned_again(git_project: Path) -> None:
    write(git_project / "transcript.jsonl", session_records())
    stop(git_project)
    os.utime(counter(git_project), (1, 1))
    stop(git_project)
    assert counter(git_project).stat().st_mtime == 1  # "current": not rewritten
    with (git_project / "transcript.jsonl").open("a") as fh:
        fh.write(json.dumps({"type": "system", "subtype": "turn_duration"}) + "\n")
    stop(git_project)
    assert counter(git_project).stat().st_mtime > 1


def test_off_missing_or_odd_input_writes_nothing_and_exits_0(git_project: Path) -> None:
    assert stop(git_project) == (0, "")  # no transcript file
    assert stop(git_project, transcript_path="") == (0, "")
    assert stop(git_project, session_id="../../x") == (0, "")
    assert not (git_project / ".ccstate" / "cache" / "kept").exists()
    write(git_project / "transcript.jsonl", session_records())
    (git_project / ".ccstate.yaml").write_text("moments:\n  statusline:\n    enabled: false\n")
    assert stop(git_project) == (0, "")
    assert not counter(git_project).exists()


def test_session_end_counts_too(git_project: Path) -> None:
    """A headless session exits before an async Stop is done: SessionEnd brings it up to date."""
    records = session_records()
    write(git_project / "transcript.jsonl", records)
    payload = make_payload("SessionEnd", git_project, reason="other")
    assert run_hook("SessionEnd", payload, cwd=git_project)[0] == 0
    data = json.loads(counter(git_project).read_text())
    assert data["tokens"] == applied.kept_out_as_applied(records).tokens > 0


def _count_in_process(project: Path, main: Path) -> dict[str, object]:
    inp = HookInput("Stop", SESSION, str(project), transcript_path=str(main))
    env = HookEnv(str(project), str(project / ".ccstate"), Config(), now=0.0)
    return count_kept(inp, env, "Stop")


def _fed_in_chunks(tmp_path: Path, data: bytes, cuts: int) -> list[object]:
    """Write `data` in `cuts` chunks (cut anywhere, mid-line too), counting after each one as
    the Stop hook does; at every step the counter must be `kept_out_as_applied` of the
    complete lines written so far. The ways each step went, in order."""
    project = tmp_path / "p"
    project.mkdir()
    main = project / "s.jsonl"
    ways: list[object] = []
    for n in range(1, cuts + 1):
        upto = len(data) * n // cuts
        main.write_bytes(data[:upto])
        detail = _count_in_process(project, main)
        ways.append(detail.get("scan", "scan") if isinstance(detail.get("kept"), int) else detail)
        complete = data[: data.rfind(b"\n", 0, upto) + 1]
        records = [json.loads(line) for line in complete.splitlines() if line.strip()]
        saved = json.loads((project / ".ccstate/cache/kept" / f"{SESSION}.json").read_text())
        expected = applied.kept_out_as_applied(records, main.name)
        assert (saved["tokens"], saved["replacements"]) == (expected.tokens, expected.replacements)
        assert saved["files"] == {str(main): len(complete)}
    return ways


def test_fed_in_chunks_the_counter_is_the_whole_scan_at_every_step(tmp_path: Path) -> None:
    """The no-scan step (no ccstate mark in the new lines) and the scans agree with the whole
    scan of the same bytes: with a quiet tail appended, both ways are taken."""
    quiet = [{"type": "system", "subtype": "turn_duration", "n": n} for n in range(40)]
    records = session_records() + quiet
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    ways = _fed_in_chunks(tmp_path, data, 60)
    assert "scan" in ways and "none: no ccstate mark since" in ways, ways


CORPUS = sorted(MODERN.glob("*.jsonl")) + sorted(PUBLIC.glob("*.jsonl"))


@pytest.mark.skipif(not CORPUS, reason=corpus_absent(MODERN))
@pytest.mark.parametrize("path", CORPUS, ids=[p.name[:40] for p in CORPUS])
def test_real_transcripts_fed_in_chunks_give_the_whole_scan(path: Path, tmp_path: Path) -> None:
    _fed_in_chunks(tmp_path, path.read_bytes(), 7)
