from __future__ import annotations

import dataclasses
import json
import os
import re

import pytest

from ccstate import tokens
from ccstate.gitinfo import Snapshot
from ccstate.handoff import doc as handoff_doc
from ccstate.handoff import scan as handoff_scan
from ccstate.handoff.doc import Meta
from ccstate.secrets import redact
from ccstate.transcript.lines import iter_numbered
from helpers import FIXTURES

CASE = FIXTURES / "handoff" / "session.jsonl"
GOLDEN = FIXTURES / "handoff" / "session.expected.md"
UPDATE = os.environ.get("CCSTATE_UPDATE_GOLDEN") == "1"  # read before conftest clears CCSTATE_*
HEAD = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
BASE = "0f0e0d0c0b0a09080706050403020100ffeeddcc"
PLANTED = (
    "sk-ant-api03-PLANTEDsecretPLANTEDsecret0123",
    "ghp_PLANTEDtoken000000000000000000000000",
    "hunter2-planted",
)


def scan() -> handoff_scan.Scan:
    result = handoff_scan.Scan()
    for line, record in iter_numbered(CASE):
        result.feed(line, record)
    return result


def snapshot() -> Snapshot:
    subject = "parser: ISO week dates (token=ghp_PLANTEDtoken000000000000000000000000)"
    return Snapshot(
        branch="feature/parser",
        head=HEAD,
        head_subject=subject,
        base=BASE,
        commits=((HEAD, subject),),
        diffstat=(("src/dates.py", 30, 2), ("tests/test_weeks.py", 10, 0), ("logo.png", -1, -1)),
        dirty=(" M CHANGELOG.md", "?? notes.txt"),
    )


def meta(**changes: object) -> Meta:
    base = Meta(
        project="demo",
        session="5e55104e-0000-4000-8000-00000000c0de",
        event="SessionEnd",
        written="2026-03-01T11:00:00Z",
        written_epoch=1772362800,
        transcript="session.jsonl",
        records=40,
        last_line=40,
        branch="feature/parser",
        head=HEAD,
        head_subject="parser: ISO week dates (token=[REDACTED:github-token])",
        base=BASE,
    )
    return dataclasses.replace(base, **changes)


def build(notes: tuple[str, ...] = ("finish W53, then ordinal dates (see L39)",)) -> object:
    return handoff_doc.build(
        scan(),
        snapshot(),
        notes,
        meta(),
        redact.Redactor(),
        known_decisions={"D3", "D7"},
        roots=["/work/demo"],
    )


def test_render_golden() -> None:
    doc = build()
    text = handoff_doc.render(doc, 1200, redact.Redactor())
    if UPDATE:
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()


def test_planted_secrets_never_reach_the_document_or_the_gist() -> None:
    doc = build()
    out = handoff_doc.render(doc, 1200, redact.Redactor()) + json.dumps(doc.to_json())
    for secret in PLANTED:
        assert secret not in out
    assert "[REDACTED:anthropic-key]" in out and "[REDACTED:github-token]" in out


def test_a_secret_is_redacted_before_it_could_be_cut_in_half() -> None:
    r = redact.Redactor()
    secret = "AKIA" + "Q7X2M4N6P8R1T3V5"
    text = "x" * 94 + " " + secret  # trimming first would keep "AKIA" + 1 char
    clipped = handoff_doc.clip(r, text, 100)
    assert "AKIA" not in clipped and "Q7X2" not in clipped
    assert clipped == "x" * 94 + " [RED…"


def test_every_line_carries_provenance() -> None:
    text = GOLDEN.read_text()
    items = [line for line in text.splitlines() if line.startswith("- ")]
    assert items and all(re.search(r" \[[^\]]+\]$", line) for line in items), items


def test_budget_trims_low_priority_sections_first() -> None:
    doc = build()
    text = handoff_doc.render(doc, 300, redact.Redactor())
    assert handoff_doc.estimate_tokens(text) <= 300
    assert "[note 1]" in text and "first prompt" in text  # next steps and goal stay
    assert "## Repository state" not in text
    assert "Left out for the size budget: " in text
    assert tokens.count_tokens(text)[0] < tokens.count_tokens(GOLDEN.read_text())[0]


def test_gist_is_short_and_in_capsule_order() -> None:
    assert build().gist == (  # type: ignore[attr-defined]
        ("next", "finish W53, then ordinal dates (see L39)"),
        (
            "goal",
            "Make the date parser accept ISO week dates (2026-W09-1). My API key is "
            "[REDACTED:anthropic-key] if you need it.",
        ),
        ("latest prompt", "Now also handle ordinal dates like 2026-060, and keep D3 in mind."),
        ("changed", "2 files (src/dates.py, tests/test_weeks.py); 1 commit"),
        ("checks", "`npm run build`: FAILED (exit 2); `pytest tests/test_weeks.py`: 2 passed"),
        ("open", "3 open todos, 1 unresolved error"),
    )


def test_json_round_trip_and_fingerprint_ignore_when_and_why() -> None:
    doc = build()
    again = handoff_doc.Handoff.from_json(json.loads(json.dumps(doc.to_json())))  # type: ignore[attr-defined]
    assert again == doc
    later = dataclasses.replace(
        doc, meta=meta(event="PreCompact", written="2026-03-02T00:00:00Z", records=99)
    )
    assert later.fingerprint() == doc.fingerprint()  # type: ignore[attr-defined]
    assert build(("other note",)).fingerprint() != doc.fingerprint()  # type: ignore[attr-defined]


@pytest.mark.parametrize("notes", [(), ("n",)])
def test_substantive(notes: tuple[str, ...]) -> None:
    assert build(notes).substantive()  # type: ignore[attr-defined]
    empty = handoff_doc.build(
        handoff_scan.Scan(), Snapshot("main", HEAD), notes, meta(), redact.Redactor()
    )
    assert empty.substantive() is bool(notes)


def test_a_verdict_naming_a_missing_program_is_redacted() -> None:
    """A runner's figure names the program its recipe could not find: from the output, so
    it goes through redaction like any text of it."""
    secret = "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345"
    scan = handoff_scan.Scan()
    for line, record in enumerate(
        [
            {
                "type": "assistant",
                "message": {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "a",
                            "name": "Bash",
                            "input": {"command": "make test"},
                        }
                    ]
                },
            },
            {
                "type": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "a",
                            "content": f"sh: 1: {secret}: not found",
                        }
                    ]
                },
            },
        ],
        start=1,
    ):
        scan.feed(line, record)
    doc = handoff_doc.build(scan, Snapshot("main", HEAD), (), meta(), redact.Redactor())
    out = handoff_doc.render(doc, 1200, redact.Redactor()) + json.dumps(doc.to_json())
    assert secret not in out and "`make test`: not installed ([REDACTED:" in out
