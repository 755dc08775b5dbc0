"""`ccstate replay` and the replay simulation (docs/LEDGER.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ccstate.cli import cli
from ccstate.ledger import core as ledger
from ccstate.ledger import replay
from helpers import FIXTURES as FIXTURE_ROOT
from helpers import PUBLIC

FIXTURES = FIXTURE_ROOT / "replay"
SESSION = FIXTURES / "session.jsonl"
UPDATE = os.environ.get("CCSTATE_UPDATE_GOLDEN") == "1"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def golden(path: Path, actual: str) -> str:
    if UPDATE:
        path.write_text(actual)
    return path.read_text()


def test_json_output_matches_the_golden_file(tmp_path: Path) -> None:
    code, out, err = invoke("replay", str(SESSION), "--json", "-C", str(tmp_path))
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["files"][0].pop("path") == str(SESSION)
    assert data["files"][0] == data["total"]
    expected = golden(FIXTURES / "session.expected.json", json.dumps(data, indent=2) + "\n")
    assert data == json.loads(expected)
    # What the fixture holds (see its records): read it against the numbers.
    total = data["total"]
    assert total["reads"] == 10 and total["replaced"] == {"identical": 3, "unseen": 1, "diff": 1}
    assert (total["shell_reads"], total["shell_notices"]) == (1, 1)  # `cat app.py` after a Read
    assert (total["contexts"], total["violations"]) == (2, [])
    assert data["digests"]["total"]["results"] == 0  # no bulky output in this session


def test_table_output_matches_the_golden_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    code, out, err = invoke("replay", str(SESSION), "-C", str(tmp_path))
    assert (code, err) == (0, "")
    assert out == golden(FIXTURES / "session.expected.txt", out)


def test_config_switches_modes_off(tmp_path: Path) -> None:
    (tmp_path / ".ccstate.yaml").write_text("dedupe:\n  enabled: false\n  diff: false\n")
    code, out, _ = invoke("replay", str(SESSION), "--json", "-C", str(tmp_path))
    replaced = json.loads(out)["total"]["replaced"]
    assert code == 0 and replaced["diff"] == 0 and replaced["identical"] == 3  # enabled ignored


def test_a_directory_stands_for_its_transcripts(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.jsonl").write_text(SESSION.read_text())
    (tmp_path / "two.jsonl").write_text(SESSION.read_text())
    reports, total = replay.replay([tmp_path], ledger.Options())
    assert [r.path.name for r in reports] == ["one.jsonl", "two.jsonl"]
    assert total.reads == 20


def test_missing_transcript_is_a_usage_error(tmp_path: Path) -> None:
    code, _out, err = invoke("replay", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "does not exist" in err


def _lines(*records: dict) -> str:
    return "".join(json.dumps({"sessionId": "s", "cwd": "/w", **r}) + "\n" for r in records)


def _read(n: int, text: str, parent: str | None) -> list[dict]:
    lines = text.split("\n")
    file = {"filePath": "/w/a.py", "content": text, "numLines": len(lines), "startLine": 1}
    use = {"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"file_path": "/w/a.py"}}
    return [
        {"type": "assistant", "uuid": f"a{n}", "parentUuid": parent,
         "message": {"id": f"m{n}", "content": [use]}},
        {"type": "user", "uuid": f"r{n}", "parentUuid": f"a{n}",
         "message": {"content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "x"}]},
         "toolUseResult": {"type": "text", "file": {**file, "totalLines": len(lines)}}},
    ]  # fmt: skip


TEXT = "".join(f"line {i} with some text in it to matter\n" for i in range(40))


def test_token_turns_count_later_api_calls_in_the_same_epoch(tmp_path: Path) -> None:
    later = [
        {"type": "assistant", "uuid": f"x{i}", "parentUuid": "r2" if i == 0 else f"x{i - 1}",
         "message": {"id": f"later{i}", "content": [{"type": "text", "text": "hm"}]}}
        for i in range(3)
    ]  # fmt: skip
    boundary = {"type": "system", "subtype": "compact_boundary", "uuid": "cb", "parentUuid": None}
    after = {"type": "assistant", "uuid": "y", "parentUuid": "cb",
             "message": {"id": "after", "content": [{"type": "text", "text": "hm"}]}}  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text(_lines(*_read(1, TEXT, None), *_read(2, TEXT, "r1"), *later, boundary, after))
    report = replay.replay_file(path, ledger.Options())
    t = report.totals
    assert t.replaced["identical"] == 1 and t.tokens_saved > 0
    assert t.token_turns_saved == 3 * t.tokens_saved  # the 3 calls after it, not the one after
    assert t.api_calls == 6


def test_a_rewind_that_drops_a_read_starts_a_new_epoch(tmp_path: Path) -> None:
    # r1 read the file; then the conversation continues from a1's *parent* (before the Read).
    path = tmp_path / "t.jsonl"
    prompt = {"type": "user", "uuid": "p", "parentUuid": None, "message": {"content": "go"}}
    path.write_text(_lines(prompt, *_read(1, TEXT, "p"), *_read(2, TEXT, "p")))
    t = replay.replay_file(path, ledger.Options()).totals
    assert t.replaced["identical"] == 0 and t.reads == 2
    path.write_text(_lines(prompt, *_read(1, TEXT, "p"), *_read(2, TEXT, "r1")))
    assert replay.replay_file(path, ledger.Options()).totals.replaced["identical"] == 1


def test_the_safety_check_catches_a_wrong_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = ledger.decide

    def reckless(led, event, load, opts):  # claims Read #1 for everything after it
        if led.reads == 0:
            return real(led, event, load, opts)
        claim = ledger.Claim(1, event.start, event.end, event.sha)
        return ledger.Decision("identical", "bug", "x", 0, 1, claims=(claim,))

    monkeypatch.setattr(ledger, "decide", reckless)
    path = tmp_path / "t.jsonl"
    path.write_text(_lines(*_read(1, TEXT, None), *_read(2, TEXT.replace("7", "8"), "r1")))
    violations = replay.replay_file(path, ledger.Options()).totals.violations
    assert violations == ["/w/a.py Read #2 (identical): text differs from Read #1"]
    code, _out, _err = invoke("replay", str(path), "-C", str(tmp_path))
    assert code == 1


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="../shared/transcripts/public is not here")
def test_public_corpus_has_no_unsafe_replacement() -> None:
    _reports, total = replay.replay([PUBLIC], ledger.Options())
    assert total.reads > 500 and sum(total.replaced.values()) > 0
    assert total.violations == []


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab\r\n\t é"), max_size=60),
    st.one_of(st.integers(-12, 12), st.integers(1, 10**7)),
)
def test_the_rendered_length_is_the_length_of_the_rendered_read(content: str, start: int) -> None:
    assert replay.rendered_len(content, start) == len(replay.render(content, start))
