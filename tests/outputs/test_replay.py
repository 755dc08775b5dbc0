"""What digests would have kept out of a transcript, and the safety check (outputs/replay.py)
driven by the ledger's transcript walk, as `ccstate replay` runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.ledger import core as ledger
from ccstate.ledger import replay
from ccstate.outputs import core, lines
from ccstate.outputs import replay as outputs_replay
from helpers import FIXTURES, PUBLIC

VITEST = (FIXTURES / "outputs" / "vitest-3-failures.txt").read_text()


def _lines(*records: dict) -> str:
    return "".join(json.dumps({"sessionId": "s", "cwd": "/w", **r}) + "\n" for r in records)


def _call(n: int, name: str, tool_input: dict, text: str, error: bool = False) -> list[dict]:
    use = {"type": "tool_use", "id": f"t{n}", "name": name, "input": tool_input}
    result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": text, "is_error": error}
    return [
        {"type": "assistant", "uuid": f"a{n}", "message": {"id": f"m{n}", "content": [use]}},
        {"type": "user", "uuid": f"r{n}", "message": {"content": [result]},
         "toolUseResult": {"stdout": text, "stderr": "", "interrupted": False}},
    ]  # fmt: skip


def _later(n: int) -> list[dict]:
    return [
        {"type": "assistant", "uuid": f"x{i}", "message": {"id": f"later{i}", "content": []}}
        for i in range(n)
    ]


def tally(path: Path) -> outputs_replay.DigestTally:
    t = outputs_replay.DigestTally(core.Options())
    replay.replay_file(path, ledger.Options(), t)
    return t


def test_a_noisy_bash_result_is_digested_and_counted_per_later_call(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    failed = _call(2, "Bash", {"command": "npm test"}, VITEST, error=True)  # exit 1: untouched
    path.write_text(_lines(*_call(1, "Bash", {"command": "npm test"}, VITEST), *failed, *_later(4)))
    t = tally(path).totals
    bash = t.tools["Bash"]
    assert (bash.results, bash.digests) == (1, 1)
    assert bash.chars_before == len(VITEST) and 0 < bash.chars_saved < len(VITEST)
    assert bash.token_turns_saved == 5 * bash.tokens_saved  # the failed call's request, then 4
    failures = {line for line in lines.normalize(VITEST) if lines.is_failure_line(line)}
    assert t.lost == [] and t.failure_lines == len(failures) == 12


def test_shell_reads_are_reads_not_digests(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_lines(*_call(1, "Bash", {"command": "cat big.log"}, VITEST), *_later(2)))
    t = tally(path).totals
    assert t.tools == {}


def test_the_safety_check_catches_a_digest_that_drops_a_failure_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def careless(tool_name: str, text: str, **_kw: object) -> core.Body:
        dropped = ("FAIL", "✓")  # the failures go with the passing tests
        return core.Body(
            "\n".join(x for x in text.split("\n") if not any(d in x for d in dropped)), "lines"
        )

    monkeypatch.setattr(core, "digest_for", careless)
    path = tmp_path / "t.jsonl"
    path.write_text(_lines(*_call(1, "Bash", {"command": "npm test"}, VITEST)))
    lost = tally(path).totals.lost
    assert lost and all(line.startswith("Bash:  FAIL  src/") for line in lost)
    result = CliRunner().invoke(cli, ["replay", str(path), "-C", str(tmp_path)])
    assert result.exit_code == 1 and "digest safety check FAILED" in result.stdout


def test_the_cli_reports_digests_per_tool_in_json(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_lines(*_call(1, "Bash", {"command": "npm test"}, VITEST), *_later(3)))
    result = CliRunner().invoke(cli, ["replay", str(path), "--json", "-C", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    digests = json.loads(result.stdout)["digests"]
    assert digests["tools"]["Bash"]["digests"] == 1 == digests["total"]["digests"]
    assert digests["lost"] == []


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="../shared/transcripts/public is not here")
def test_public_corpus_digests_lose_no_failure_line() -> None:
    t = outputs_replay.DigestTally(core.Options())
    _reports, total = replay.replay([PUBLIC], ledger.Options(), t)
    assert t.totals.total.digests > 50 and t.totals.failure_lines > 100
    assert t.totals.lost == [] and total.violations == []


def test_json_lines_are_checked_by_the_strings_of_their_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = (FIXTURES / "outputs" / "session-log.jsonl").read_text()
    path = tmp_path / "t.jsonl"
    path.write_text(
        _lines(*_call(1, "Bash", {"command": "cat run.jsonl | jq -c ."}, log), *_later(2))
    )
    t = tally(path).totals
    assert t.tools["Bash"].digests == 1 and t.lost == []
    output = json.loads(log.split("\n")[4])["output"].split("\n")  # the failed pytest run
    assert t.failure_lines == len([s for s in output if lines.is_failure_line(s)]) == 5

    real = core.digest_for

    def careless(tool_name: str, text: str, **kw: object) -> core.Body | None:
        body = real(tool_name, text)
        assert body is not None and body.how == "jsonl"
        return core.Body(
            body.text.replace("AssertionError: assert 2 == 3", "assert 2 == 3"), "jsonl"
        )

    monkeypatch.setattr(core, "digest_for", careless)
    assert tally(path).totals.lost == ["Bash: AssertionError: assert 2 == 3"]


def test_replay_over_two_processes_finds_what_one_does(tmp_path: Path) -> None:
    """Files are independent walks: forked workers, each with a fresh tally merged in file
    order, give the same reports, totals and digest findings as one process."""
    for n in range(3):  # digests, a lost failure line's check, reads: in several files
        (tmp_path / f"bash{n}.jsonl").write_text(
            _lines(*_call(1, "Bash", {"command": "npx vitest run"}, VITEST), *_later(2))
        )
    for source in sorted((FIXTURES / "transcripts").rglob("*.jsonl")):
        (tmp_path / f"fixture-{source.name}").write_bytes(source.read_bytes())
    got = {}
    for jobs in (1, 2):
        t = outputs_replay.DigestTally(core.Options())
        reports, total = replay.replay([tmp_path], ledger.Options(), t, jobs)
        got[jobs] = (
            [(r.path, r.totals.as_json(), r.skipped_lines) for r in reports],
            total.as_json(),
            t.totals.as_json(),
        )
    assert got[1][2]["total"]["digests"] >= 3 and got[1][1]["api_calls"] > 10
    assert got[2] == got[1]
