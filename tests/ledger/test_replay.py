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
from helpers import MODERN, PUBLIC

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
    # the context's own writes (#24): most are held, and Reads after them get notices
    assert total.writes_held["Write"] > 100 and total.writes_held["Edit"] > 200
    assert total.by_source["Write"][0] > 0 and total.by_source["Edit"][0] > 0


@pytest.mark.skipif(not MODERN.is_dir(), reason="../shared/transcripts/modern is not here")
def test_modern_corpus_counts_claude_codes_own_stub_apart() -> None:
    _reports, total = replay.replay([MODERN], ledger.Options())
    assert total.violations == [] and total.writes_held["Edit"] > 50
    # 2.1.91 answered one repeated Read itself (`file_unchanged`): Claude Code's saving
    assert total.cc_dedupe == 1 and total.cc_dedupe_tokens > 0


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab\r\n\t é"), max_size=60),
    st.one_of(st.integers(-12, 12), st.integers(1, 10**7)),
)
def test_the_rendered_length_is_the_length_of_the_rendered_read(content: str, start: int) -> None:
    assert replay.rendered_len(content, start) == len(replay.render(content, start))


# --------------------------------------------------------------------------- writes (#24)


def _tool(n: int, name: str, tool_input: dict, result: object, parent: str | None) -> list[dict]:
    """A tool call and its result, shaped as 2.1.x records them (one block per record)."""
    use = {"type": "tool_use", "id": f"t{n}", "name": name, "input": tool_input}
    block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "done"}
    return [
        {"type": "assistant", "uuid": f"a{n}", "parentUuid": parent,
         "message": {"id": f"m{n}", "content": [use]}},
        {"type": "user", "uuid": f"r{n}", "parentUuid": f"a{n}",
         "message": {"content": [block]}, "toolUseResult": result},
    ]  # fmt: skip


def _write(n: int, text: str, parent: str | None) -> list[dict]:
    result = {"type": "create", "filePath": "/w/a.py", "content": text, "structuredPatch": [],
              "originalFile": None, "userModified": False}  # fmt: skip
    return _tool(n, "Write", {"file_path": "/w/a.py", "content": text}, result, parent)


def _edit(n: int, before: str, old: str, new: str, parent: str | None, **result: object) -> list:
    response = {"filePath": "/w/a.py", "oldString": old, "newString": new,
                "originalFile": before, "structuredPatch": [], "userModified": False,
                "replaceAll": False, **result}  # fmt: skip
    edit = {"file_path": "/w/a.py", "old_string": old, "new_string": new, "replace_all": False}
    return _tool(n, "Edit", edit, response, parent)


EDITED = TEXT.replace("line 7 ", "line SEVEN ")


def test_a_read_after_the_contexts_own_write_is_a_notice_from_the_write(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_lines(*_write(1, TEXT, None), *_read(2, TEXT, "r1")))
    t = replay.replay_file(path, ledger.Options()).totals
    assert t.replaced["identical"] == 1 and t.violations == []
    assert (t.writes["Write"], t.writes_held["Write"]) == (1, 1)
    assert t.by_source["Write"][0] == 1 and t.by_source["Read"][0] == 0


def test_a_read_after_an_edit_of_a_read_file_is_a_notice_from_the_edit(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    records = [*_read(1, TEXT, None), *_edit(2, TEXT, "line 7 ", "line SEVEN ", "r1")]
    path.write_text(_lines(*records, *_read(3, EDITED, "r2")))
    t = replay.replay_file(path, ledger.Options()).totals
    assert (t.replaced["identical"], t.writes_held["Edit"], t.violations) == (1, 1, [])
    assert t.by_source["Edit"][0] == 1


def test_an_edit_claude_code_applied_otherwise_is_not_held(tmp_path: Path) -> None:
    # Claude Code matched a curly quote for the model: the strings it applied differ
    path = tmp_path / "t.jsonl"
    records = [*_read(1, TEXT, None), *_edit(2, TEXT, "line 7 ", "line SEVEN ", "r1")]
    records[-1]["toolUseResult"]["oldString"] = "line 7 with"
    path.write_text(_lines(*records, *_read(3, EDITED, "r2")))
    t = replay.replay_file(path, ledger.Options()).totals
    assert (t.writes["Edit"], t.writes_held["Edit"], t.violations) == (1, 0, [])
    assert t.by_source["Edit"][0] == 0


def test_the_safety_check_catches_a_ledger_that_holds_what_the_context_was_not_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = replay.writes.record_write

    def wrong(led, tool, path, held, *args):  # the ledger keeps its own idea of the text
        return real(led, tool, path, None if held is None else held + "extra\n", *args)

    monkeypatch.setattr(replay.writes, "record_write", wrong)
    monkeypatch.setattr(replay.writes, "held_after", lambda event, before: "x\n")
    monkeypatch.setattr(replay.replay_writes, "file_after", lambda *a: "x\n")
    path = tmp_path / "t.jsonl"
    path.write_text(_lines(*_write(1, TEXT, None)))
    violations = replay.replay_file(path, ledger.Options()).totals.violations
    assert violations == ["/w/a.py Write #1: the ledger holds text the context was not given"]


def test_claude_codes_own_stub_is_its_saving_not_ccstates(tmp_path: Path) -> None:
    stub = (
        "File unchanged since last read. The content from the earlier Read tool_result in this "
        "conversation is still current \u2014 refer to that instead of re-reading."
    )
    again = _tool(2, "Read", {"file_path": "/w/a.py"},
                  {"type": "file_unchanged", "file": {"filePath": "/w/a.py"}}, "r1")  # fmt: skip
    again[1]["message"]["content"][0]["content"] = stub
    later = [{"type": "assistant", "uuid": "x", "parentUuid": "r3",
              "message": {"id": "later", "content": [{"type": "text", "text": "ok"}]}}]  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text(_lines(*_read(1, TEXT, None), *again, *_read(3, TEXT, "r2"), *later))
    t = replay.replay_file(path, ledger.Options()).totals
    assert t.cc_dedupe == 1 and t.cc_dedupe_tokens > 300
    assert t.cc_dedupe_token_turns == 2 * t.cc_dedupe_tokens  # the calls after it: m3, later
    # the stub delivered nothing, was answered with nothing, and counts as Read #2:
    assert t.reads == 3 and t.replaced["identical"] == 1
    assert t.by_source["Read"][0] == 1 and t.violations == []


def test_every_tool_result_counts_in_the_share_denominator(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    later = [{"type": "assistant", "uuid": "x", "parentUuid": "r2",
              "message": {"id": "later", "content": [{"type": "text", "text": "ok"}]}}]  # fmt: skip
    path.write_text(_lines(*_read(1, TEXT, None), *_read(2, TEXT, "r1"), *later))
    t = replay.replay_file(path, ledger.Options()).totals
    one = t.result_tokens // 2
    assert t.result_tokens == 2 * one and one > 300  # each Read as the model sees it
    # each result in context for the calls after it: Read 1 for m2 and `later`, Read 2 for
    # `later`; both at their original size (what the model is shown without ccstate)
    assert t.result_token_turns == one * 2 + one * 1
    kept, share = replay.kept_out_share(t, 0)
    assert kept == t.token_turns_saved and share == kept / t.result_token_turns
