"""Claude Code 2.0-2.1 transcripts, read by every consumer (issue #24.2).

The synthetic session of `modern_records` pins what each record means to report, replay,
handoff and the ledger's witness; the tests on ../shared/transcripts/modern (10 real sessions,
2.0.26-2.1.146) skip, saying so, when the corpus is absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import modern_records as fx
from ccstate.handoff.scan import Scan
from ccstate.ledger import core as ledger
from ccstate.ledger import replay, witness
from ccstate.recall import extract, sources
from ccstate.report import usage
from ccstate.secrets import redact
from ccstate.transcript.lines import iter_numbered
from helpers import MODERN, corpus_absent

MODERN_FILES = sorted(MODERN.glob("*.jsonl")) if MODERN.is_dir() else []
needs_modern = pytest.mark.skipif(not MODERN_FILES, reason=corpus_absent(MODERN))


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return fx.write(tmp_path)


def test_report_counts_each_billed_call_once_and_what_claude_code_attached(
    session: Path,
) -> None:
    scan = usage.scan_file(session)
    turns = sorted(scan.turns.values(), key=lambda t: t.line)
    # the <synthetic> rate-limit record and the api_error retries are no billed calls
    assert [t.message_id for t in turns] == ["msg_01", "msg_02", "msg_03"]
    first, second, _third = turns
    assert (first.cache_write_1h, first.cache_write_5m) == (1000, 0)  # the TTL split
    assert (second.cache_write_1h, second.cache_write_5m, second.cache_read) == (0, 120, 1000)
    assert not any(t.fast for t in turns)  # speed "standard"
    assert [(c.trigger, c.pre_tokens) for c in scan.compactions] == [("manual", 1262)]
    assert ("ccstate-hook Stop", "Stop", 120) in scan.hook_runs  # stop_hook_summary
    assert ("ccstate-hook SessionStart", "SessionStart", 40) in scan.hook_runs
    comp = scan.composition
    attached = {
        kind: (comp.attached_count[kind], comp.attached_chars[kind]) for kind in comp.attached_count
    }
    assert attached == {
        "files": (1, len(fx.EDITED)),  # the file re-attached after the compaction
        "instruction files": (1, len("# src rules\n- no prints\n")),
        "edited-file snippets": (1, len("1\tdef fetch(url, retries=3):")),
        "queued prompts": (1, len(fx.QUEUED)),
    }
    assert comp.tool_count == {"Read": 1, "Edit": 1}


def test_replay_takes_no_synthetic_record_for_an_api_call_and_clear_for_a_new_context(
    session: Path, tmp_path: Path
) -> None:
    report = replay.replay_file(session, ledger.Options())
    assert report.totals.api_calls == 3 and report.totals.reads == 1
    cleared = tmp_path / "cleared.jsonl"
    rows = [json.loads(line) for line in session.read_text().splitlines()]
    read_at = next(i for i, r in enumerate(rows) if r.get("uuid") == "r1")
    clear = dict(
        rows[2],
        uuid="c1",
        parentUuid="r1",
        message={"role": "user", "content": "<command-name>/clear</command-name>"},
    )
    again = [dict(r, uuid=r["uuid"] + "b") if "uuid" in r else r for r in rows[3 : read_at + 1]]
    again[0] = dict(again[0], parentUuid="c1")
    again[1] = dict(again[1], parentUuid=again[0]["uuid"])
    body = [*rows[: read_at + 1], clear, *again]
    cleared.write_text("".join(json.dumps(r) + "\n" for r in body))
    totals = replay.replay_file(cleared, ledger.Options()).totals
    assert totals.reads == 2 and totals.rereads == 0  # after /clear the Read is a first one
    clear["message"] = {"role": "user", "content": "go on"}  # the control: no /clear
    cleared.write_text("".join(json.dumps(r) + "\n" for r in body))
    assert replay.replay_file(cleared, ledger.Options()).totals.rereads == 1


def test_handoff_reads_titles_the_recap_and_prompts_typed_while_claude_worked(
    session: Path,
) -> None:
    scan = Scan()
    for line, record in iter_numbered(session):
        scan.feed(line, record)
    assert [p.text for p in (scan.first_prompt, scan.latest_prompt) if p] == [
        "Add a retry to the fetcher",
        fx.QUEUED,  # counted once: its queue-operation and its attachment are one prompt
    ]
    assert scan.prompt_count == 2  # the background task's notice is not a prompt
    named = dict((label, p.text) for label, p in scan.named())
    assert named == {
        "session title": "fetcher-retry",  # the user's name wins over Claude Code's
        "Claude Code's recap": "Added retries to fetch(); next: log each retry.",
    }
    assert scan.compactions == 1
    assert [t.path for t in scan.touches.values()] == [fx.FILE]


def test_the_witness_sees_the_compaction_and_nothing_else_as_lost_context(session: Path) -> None:
    data = session.read_bytes()
    cut = data.index(b'"subtype":"compact_boundary"')
    before = session.parent / "before.jsonl"
    before.write_bytes(data[: data.rfind(b"\n", 0, cut) + 1])
    reason, seen = witness.scan(str(before), {}, must_scan=True)
    assert reason == ""  # api_error, queue-operation, titles, hook summaries: nothing dropped
    before.write_bytes(data)
    reason, _seen = witness.scan(str(before), seen, must_scan=True)
    assert reason == "transcript shows compact_boundary"


@needs_modern
def test_modern_report_counts_each_file_without_skipping_a_line() -> None:
    for path in MODERN_FILES:
        scan = usage.scan_file(path)
        assert scan.skipped == 0, path.name
        assert scan.turns and all(t.model != "<synthetic>" for t in scan.turns.values())
    scans = {p.name: usage.scan_file(p) for p in MODERN_FILES}
    one_hour = sum(t.cache_write_1h for s in scans.values() for t in s.turns.values())
    assert one_hour > 0  # 2.1.x writes most of its cache with the 1-hour TTL
    attached = sum(sum(s.composition.attached_count.values()) for s in scans.values())
    assert attached > 0


@needs_modern
def test_modern_replay_is_safe_and_counts_only_real_calls() -> None:
    _reports, total = replay.replay(MODERN_FILES, ledger.Options())
    assert total.violations == []
    synthetic = 0
    for path in MODERN_FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            synthetic += '"isApiErrorMessage":true' in line
    assert synthetic > 0
    calls = set()
    for path in MODERN_FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            msg = rec.get("message")
            if rec.get("type") == "assistant" and not rec.get("isApiErrorMessage"):
                calls.add((rec.get("sessionId"), msg.get("id")))
    assert total.api_calls == len(calls)


@needs_modern
def test_modern_handoffs_find_the_titles_and_the_queued_prompts() -> None:
    titled = queued = 0
    for path in MODERN_FILES:
        scan, without_queue = Scan(), Scan()
        for line, record in iter_numbered(path):
            scan.feed(line, record)
            if record.get("type") not in ("queue-operation", "attachment"):
                without_queue.feed(line, record)
        assert scan.first_prompt is not None, path.name
        titled += any(label == "session title" for label, _p in scan.named())
        queued += scan.prompt_count - without_queue.prompt_count
    assert titled >= 3  # the custom-title and ai-title sessions
    # prompts typed while Claude worked (2.1.89 left only its queue-operations of them)
    assert queued >= 8


@needs_modern
def test_the_witness_finds_no_lost_context_in_modern_sessions() -> None:
    for path in MODERN_FILES:
        reason, _seen = witness.scan(str(path), {}, must_scan=True)
        assert reason == "", path.name  # none of them was compacted or microcompacted


def test_replay_starts_an_epoch_where_claude_code_persisted_results(
    session: Path, tmp_path: Path
) -> None:
    rows = [json.loads(line) for line in session.read_text().splitlines()]
    read_at = next(i for i, r in enumerate(rows) if r.get("uuid") == "r1")
    again = [dict(r, uuid=r["uuid"] + "b") for r in rows[read_at - 1 : read_at + 1]]
    again[0] = dict(again[0], parentUuid="r1", message=dict(again[0]["message"], id="msg_01b"))
    again[1] = dict(again[1], parentUuid=again[0]["uuid"])
    replaced = {"type": "content-replacement", "sessionId": fx.SESSION, "replacements": []}
    path = tmp_path / "replaced.jsonl"
    for marker, rereads in ((replaced, 0), ({"type": "last-prompt"}, 1)):  # and the control
        body = [*rows[: read_at + 1], marker, *again]
        path.write_text("".join(json.dumps(r) + "\n" for r in body))
        assert replay.replay_file(path, ledger.Options()).totals.rereads == rereads


def _recall_moments(path: Path) -> list[Any]:
    """The moments recall stores of a transcript, as `ccstate recall` extracts them."""
    job = extract.Job(sources.transcript_source(path), 0, 0, "")
    return extract.extract(job, redactor=redact.Redactor()).rows


def test_recall_indexes_the_newer_record_types(session: Path) -> None:
    rows = _recall_moments(session)
    records = [json.loads(line) for line in session.read_text("utf-8").splitlines()]
    lines = {r["uuid"]: n for n, r in enumerate(records, 1) if "uuid" in r}
    got = {(kind, line): (title, body) for kind, _s, line, _e, _ts, _b, title, body, _p in rows}
    ends = {(kind, end) for kind, _s, _line, end, *_rest in rows}
    assert got[("prompt", lines["a1"])] == ("", fx.QUEUED)  # typed while Claude worked
    assert got[("error", lines["s1"])][0] == "API error"
    assert "ConnectionRefused" in got[("error", lines["s1"])][1]
    assert got[("output", lines["s3"])] == ("turn duration", "the turn took 7 seconds")
    assert got[("answer", lines["s6"])][1].startswith("Added retries to fetch()")  # the recap
    assert "no prints" in got[("output", lines["a3"])][1]  # the CLAUDE.md loaded on the way
    assert got[("output", lines["a4"])][0] == f"edited by the user: {fx.FILE}"
    # the Read of a source file is not (the file is on disk): nothing at its call or result
    assert not {("output", lines["m1"]), ("output", lines["r1"])} & (set(got) | ends)


@needs_modern
def test_recall_finds_moments_in_the_newer_records_of_modern_sessions() -> None:
    kinds: dict[str, int] = {}
    for path in MODERN_FILES:
        types = [json.loads(line).get("type") for line in path.read_text("utf-8").splitlines()]
        for row in _recall_moments(path):
            record_type = types[row[2] - 1]
            if record_type in ("attachment", "system"):
                kinds[f"{record_type}:{row[0]}"] = kinds.get(f"{record_type}:{row[0]}", 0) + 1
    # hook context and the user's edits (attachments), API errors, local commands, durations
    # and the away recap (system records): every one of these kinds occurs in the corpus
    for kind in ("attachment:output", "attachment:error", "system:error", "system:command"):
        assert kinds.get(kind, 0) >= 1, (kind, kinds)
    assert kinds.get("system:output", 0) >= 20 and kinds.get("system:answer", 0) >= 1, kinds
