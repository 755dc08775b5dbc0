"""The applied kept-out figure over a session's files (report/applied.py): what the Stop hook
writes for the status line must be what `kept_out_as_applied` gives for the same records, at
every point a live transcript can be cut."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ccstate.report import applied, usage
from ccstate.transcript.sessions import subagent_transcripts
from helpers import MODERN, PUBLIC, corpus_absent

CORPUS = sorted(MODERN.glob("*.jsonl")) + sorted(PUBLIC.glob("*.jsonl"))
BODY = "\n".join(f"{i}\tdef handler_{i}(request): return {i}" for i in range(1, 41))
NOTICE = "0\t[ccstate: not file content] /p/a.py lines 1-40 of 40: unchanged since your Read #1"
DIGEST = "ok: 1999 lines alike\n[ccstate: digest of 2,000 lines, 80,000 chars (ccstate restore 1)]"


def _call(n: int, tool: str, tool_input: dict, shown: str) -> list[dict]:
    use = {"type": "tool_use", "id": f"t{n}", "name": tool, "input": tool_input}
    block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": shown}
    return [
        {"type": "assistant", "sessionId": "s", "uuid": f"a{n}",
         "message": {"id": f"m{n}", "model": "claude-sonnet-4-5", "content": [use],
                     "usage": {"input_tokens": 10, "output_tokens": 5}}},
        {"type": "user", "sessionId": "s", "uuid": f"u{n}", "cwd": "/p",
         "message": {"role": "user", "content": [block]}, "toolUseResult": {"x": "y" * 50}},
    ]  # fmt: skip


def session_records() -> list[dict]:
    """A Read, its notice, a digested shell output, a compaction, the notice again (after the
    compaction: nothing delivered in the new epoch, so nothing kept out), a Read and a notice."""
    read = {"file_path": "/p/a.py"}
    out = _call(0, "Read", read, BODY) + _call(1, "Read", read, NOTICE)
    out += _call(2, "Bash", {"command": "pytest -q"}, DIGEST)
    out.append({"type": "system", "subtype": "compact_boundary", "sessionId": "s",
                "compactMetadata": {"trigger": "auto", "preTokens": 5000}})  # fmt: skip
    out.append({"type": "user", "isCompactSummary": True, "sessionId": "s",
                "message": {"role": "user", "content": "summary"}})  # fmt: skip
    out += _call(3, "Read", read, NOTICE) + _call(4, "Read", read, BODY)
    return out + _call(5, "Read", read, NOTICE)


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_session_figure_is_the_reports_for_the_same_records(tmp_path: Path) -> None:
    records = session_records()
    main = write(tmp_path / "s.jsonl", records)
    found = applied.session_kept([str(main)])
    expected = applied.kept_out_as_applied(records, "s.jsonl")
    assert expected.replacements == 4  # two notices that count, one that does not, a digest
    assert (found.tokens, found.replacements) == (expected.tokens, expected.replacements)
    assert found.covered == {str(main): main.stat().st_size}


def test_at_every_cut_the_figure_is_the_whole_scan_of_what_is_written(tmp_path: Path) -> None:
    """A live transcript cut after any line, or inside one (a line being written): the figure
    is `kept_out_as_applied` of the complete lines, never more, and it never shrinks."""
    records = session_records()
    lines = [json.dumps(r) + "\n" for r in records]
    live, before = tmp_path / "live.jsonl", -1
    for n in range(len(lines) + 1):
        for partial in ("", lines[n][: len(lines[n]) // 2] if n < len(lines) else ""):
            live.write_text("".join(lines[:n]) + partial)
            found = applied.session_kept([str(live)])
            expected = applied.kept_out_as_applied(records[:n], "live.jsonl")
            assert (found.tokens, found.replacements) == (expected.tokens, expected.replacements)
            assert found.covered[str(live)] == len("".join(lines[:n]).encode())
            assert found.tokens >= before
            before = found.tokens
    assert before > 0


def test_subagent_files_are_summed_like_the_reports_session(tmp_path: Path) -> None:
    main = write(tmp_path / "s.jsonl", session_records())
    agents = tmp_path / "s" / "subagents"
    agents.mkdir(parents=True)
    agent = write(agents / "agent-1.jsonl", session_records()[:4])
    files = [str(p) for p in [main, *subagent_transcripts(main)]]
    found = applied.session_kept(files)
    chars = sum(
        usage.scan_file(Path(p)).composition.saved_chars for p in (main, agent)
    )  # what report/summary.py merges for a session
    assert found.saved_chars == chars and found.tokens == applied.est_tokens(chars)
    assert set(found.covered) == {str(main), str(agent)}
    assert applied.session_kept([str(tmp_path / "gone.jsonl")]).covered == {}


@pytest.mark.skipif(not CORPUS, reason=corpus_absent(MODERN))
@pytest.mark.parametrize("path", CORPUS, ids=[p.name[:40] for p in CORPUS])
def test_real_transcripts_give_the_reports_figure_at_each_cut(path: Path, tmp_path: Path) -> None:
    """The real transcripts (no ccstate in them: the figure must be 0 with no replacement
    invented), cut at four points as a live session's file is."""
    data = path.read_bytes()
    records = [json.loads(line) for line in data.splitlines() if line.strip()]
    live = tmp_path / path.name
    for cut in (len(data) // 4, len(data) // 2, len(data) * 3 // 4, len(data)):
        live.write_bytes(data[:cut])
        found = applied.session_kept([str(live)])
        size = found.covered[str(live)]
        assert size <= cut and (size == 0 or data[size - 1 : size] == b"\n")
        complete = [json.loads(line) for line in data[:size].splitlines() if line.strip()]
        expected = applied.kept_out_as_applied(complete, path.name)
        assert (found.tokens, found.replacements) == (expected.tokens, expected.replacements)
    assert applied.kept_out_as_applied(records, path.name).tokens == found.tokens


def test_a_deadline_stops_the_scan_on_lines_that_hold_no_record(tmp_path: Path) -> None:
    """#37: on a file of malformed lines (none a record) the deadline still fires; a stopped
    scan says where and covers nothing, so the Stop hook saves no partial figure."""
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"{\n" * 2_000_000)
    main = write(tmp_path / "s.jsonl", session_records())
    started = time.monotonic()
    spent = applied.session_kept([str(junk), str(main)], deadline=started + 0.05)
    assert time.monotonic() - started < 1.0  # all of it: about 4 s
    assert spent.stopped.startswith("junk.jsonl: stopped at line ") and spent.covered == {}
    assert int(spent.stopped.split()[4]) > 0
    found = applied.session_kept([str(main)], deadline=float("inf"))
    assert found.stopped == "" and found.covered == {str(main): main.stat().st_size}


def test_a_fifo_among_the_files_is_left_out_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "agent-1.jsonl"
    os.mkfifo(fifo)  # opened to read, it would wait for a writer forever
    main = write(tmp_path / "s.jsonl", session_records())
    found = applied.session_kept([str(main), str(fifo)])
    assert list(found.covered) == [str(main)] and found.tokens > 0
