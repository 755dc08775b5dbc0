"""Token accounting: golden reports on small transcripts, dedupe by message.id, pricing,
context composition, the fast reader, and the `ccstate report` CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.report import builder, pricing, usage
from ccstate.report import summary as report
from ccstate.transcript import runs, sessions
from ccstate.transcript.lines import ReadStats, iter_records
from helpers import FIXTURES as FIXTURE_ROOT
from helpers import PUBLIC, SRC

FIXTURES = FIXTURE_ROOT / "transcripts"
CASES = ["split_message.jsonl", "old_format.jsonl", "projects", "audit_classes.jsonl"]
SESSION_C = "0b5e1c2d-0000-4000-8000-00000000000c"
UPDATE_GOLDEN = os.environ.get("CCSTATE_UPDATE_GOLDEN") == "1"  # read before conftest unsets it


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan cache goes to this test's tmp dir, whatever XDG_CACHE_HOME says."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def scan_case(name: str) -> report.Report:
    target = FIXTURES / name
    files = sorted(target.rglob("*.jsonl")) if target.is_dir() else [target]
    return builder.build_report([usage.scan_file(f) for f in files], pricing.load_pricing())


# --------------------------------------------------------------------------- golden reports


@pytest.mark.parametrize("case", CASES)
def test_golden_report(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ccstate report CASE --json` equals CASE.report.json; CCSTATE_UPDATE_GOLDEN=1 rewrites."""
    monkeypatch.chdir(FIXTURES)
    code, out, err = invoke("report", case, "--json")
    assert (code, err) == (0, "")
    golden = FIXTURES / (Path(case).stem + ".report.json")
    if UPDATE_GOLDEN:  # indented: a reviewable diff
        golden.write_text(json.dumps(json.loads(out), indent=2, sort_keys=True) + "\n")
    assert json.loads(out) == json.loads(golden.read_text())


def test_one_response_written_as_three_records_counts_once() -> None:
    path = FIXTURES / "split_message.jsonl"
    naive = [
        r["message"]["usage"]["output_tokens"]
        for r in iter_records(path)
        if r.get("type") == "assistant"
    ]
    assert (len(naive), sum(naive)) == (5, 148)  # msg_A's 40 three times, + 20 + 8
    tokens = scan_case("split_message.jsonl").total.tokens
    assert (tokens.calls, tokens.input, tokens.cache_write, tokens.cache_read, tokens.output) == (
        3,
        18,
        1300,
        2200,
        68,
    )


def test_old_format_keeps_the_final_usage_of_a_split_response() -> None:
    scan = usage.scan_file(FIXTURES / "old_format.jsonl")
    assert scan.turns["msg_old1"].output == 150  # the first record said 4 (still streaming)
    assert scan.folded == 1
    threads = {t.thread for t in scan.turns.values()}
    assert threads == {"main", "sidechain-1"}
    assert [c.trigger for c in scan.compactions] == ["unknown"]  # 1.0.x: no boundary record
    assert scan.compactions[0].pre_tokens == 2 + 200 + 3500 + 25  # the last turn's context


def test_partial_last_line_and_unknown_types_are_tolerated() -> None:
    result = scan_case("split_message.jsonl")
    assert result.skipped_lines == 1
    assert scan_case("old_format.jsonl").skipped_lines == 0  # "brand-new-type" passes


def test_subagent_files_belong_to_their_session_and_progress_is_not_usage() -> None:
    result = scan_case("projects")
    assert [s.session_id for s in result.sessions] == [SESSION_C]
    scope = result.sessions[0].scope
    assert len(result.sessions[0].files) == 2
    assert scope.subagents.calls == 2 and scope.tokens.calls == 12
    assert scope.tokens.cache_write_1h == 10430  # main thread wrote 1-hour cache entries
    main = usage.scan_file(FIXTURES / "projects" / "-p-app" / f"{SESSION_C}.jsonl")
    assert "msg_nested" not in main.turns  # usage nested in a progress record is no API call


def test_a_response_in_two_files_counts_once(tmp_path: Path) -> None:
    source = (FIXTURES / "split_message.jsonl").read_text()
    (tmp_path / "a.jsonl").write_text(source)
    (tmp_path / "b.jsonl").write_text(source)  # e.g. a resumed 1.0.x session copies records
    scans = [usage.scan_file(tmp_path / n) for n in ("a.jsonl", "b.jsonl")]
    result = builder.build_report(scans, pricing.load_pricing())
    assert result.total.tokens.calls == 3 and result.cross_file_duplicates == 3


def test_capsule_and_notes_in_transcript_records() -> None:
    scope = scan_case("projects").total
    comp = scope.composition
    assert (comp.injections, comp.notices, comp.compact_summaries) == (1, 1, 1)
    figures = report.ccstate_figures(scope)
    assert figures["injected_token_calls"] == figures["injected_tokens"] * 8  # 8 later calls
    assert figures["saved_tokens"] > 0


def test_markers_match_the_capsule_and_the_read_ledger() -> None:
    from ccstate import capsule
    from ccstate.ledger import text as ledger_text

    assert usage.CAPSULE_HEADER == capsule.HEADER
    assert usage.NOTE_TAG == ledger_text.NOTE_TAG
    assert usage.notice_prefixes() == (ledger_text.NOTICE_TAG,) == (usage.DEFAULT_NOTICE_PREFIX,)


# --------------------------------------------------------------------------- fast reader


def _without_tool_use_result(record: dict) -> dict:
    """A user record cut before `toolUseResult`, as the light reader may return it."""
    if record.get("type") == "user" and "toolUseResult" in record:
        keys = list(record)
        return {k: record[k] for k in keys[: keys.index("toolUseResult")]}
    return record


def _full_minus_tool_use_result(path: Path) -> list[dict]:
    return [
        _without_tool_use_result(record)
        for record in iter_records(path)
        if record.get("type") not in usage.SKIP_TYPES
    ]


def _light(path: Path) -> list[dict]:
    """The light reader's records; it keeps toolUseResult on short lines (cheaper to decode
    whole than to check), so compare without it."""
    records = runs.iter_light_records(path, skip_types=usage.SKIP_TYPES)
    return [_without_tool_use_result(record) for record in records]


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.jsonl")), ids=lambda p: p.name)
def test_light_reader_matches_the_full_parse(path: Path) -> None:
    assert _light(path) == _full_minus_tool_use_result(path)


CORPUS = PUBLIC


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared corpus)")
def test_light_reader_matches_the_full_parse_on_the_public_corpus() -> None:
    files = sorted(CORPUS.glob("*.jsonl"))
    assert files
    for path in files:
        assert _light(path) == _full_minus_tool_use_result(path), path.name


PAD = "x" * (runs._SHORT + 100)  # makes a line long: the cheap checks run on it


@pytest.mark.parametrize("pad", ["", PAD], ids=["short lines", "long lines"])
def test_light_reader_falls_back_when_unsure(tmp_path: Path, pad: str) -> None:
    path = tmp_path / "t.jsonl"
    records = [
        {"toolUseResult": {"x": 1}, "type": "user", "message": {"content": "kept"}, "p": pad},
        {"type": "user", "message": {"content": [{"toolUseResult": 1}]}, "toolUseResult": pad},
        {"data": {"type": "progress"}, "type": "user", "message": {"content": "nested type"}},
        {"parentUuid": None, "type": "progress", "data": {"type": "hook", "p": pad}},
        {"message": {"type": "progress"}, "type": "progress", "p": pad},  # told after decoding
    ]
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    stats = ReadStats()
    got = list(runs.iter_light_records(path, stats, skip_types=frozenset({"progress"})))
    assert [r["message"]["content"] for r in got] == ["kept", [{"toolUseResult": 1}], "nested type"]
    assert "toolUseResult" in got[0]  # it came first: decoded in full
    assert (stats.lines, stats.records, stats.skipped) == (5, 5, 0)


def test_light_reader_drops_tool_use_result_from_long_user_lines(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    record = {"type": "user", "message": {"content": "m"}, "toolUseResult": PAD, "after": 1}
    path.write_text(json.dumps(record, separators=(",", ":")) + "\n")
    assert list(runs.iter_light_records(path)) == [{"type": "user", "message": {"content": "m"}}]


@pytest.mark.parametrize("chunk", [7, 64, 1 << 23])
def test_light_reader_streams_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """Lines split over reads, blank and whitespace lines, a malformed and a partial last line
    read as `iter_records` reads them, whatever the read size."""
    monkeypatch.setattr(runs, "_CHUNK", chunk)
    path = tmp_path / "t.jsonl"
    lines = [
        json.dumps({"type": "user", "message": {"content": "a" * 40}, "toolUseResult": PAD}),
        "",
        "   \t",
        json.dumps({"type": "assistant", "message": {"content": "é → ü", "id": "m1"}}),
        "{not json",
        "[1, 2]",
        json.dumps({"type": "system", "content": PAD}) + "\r",
        '{"type": "user", "message": {"content": "cut off',
    ]
    path.write_bytes("\n".join(lines).encode())
    full_stats, light_stats = ReadStats(), ReadStats()
    full = [_without_tool_use_result(r) for r in iter_records(path, full_stats)]
    light = [_without_tool_use_result(r) for r in runs.iter_light_records(path, light_stats)]
    assert light == full
    assert [r["type"] for r in light] == ["user", "assistant", "system"]
    assert light_stats == full_stats
    assert (light_stats.lines, light_stats.skipped_lines) == (8, [5, 6, 8])


def test_light_reader_falls_back_to_json_for_what_orjson_refuses(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type": "system", "content": "\\ud800 lone", "n": NaN}\n')
    [record] = runs.iter_light_records(path)
    assert record["content"] == "\ud800 lone"
    assert record["n"] != record["n"]  # NaN, as json reads it


def test_top_level_type_is_only_trusted_at_the_top() -> None:
    assert runs.top_level_type(b'{"parentUuid":null,"type":"progress","data":{}}') == ("progress")
    assert runs.top_level_type(b'{"message":{"type":"message"},"type":"assistant"}') is None
    assert runs.top_level_type(b'{"a":"{\\"type\\":\\"x\\"}","type":"user"}') is None


def test_subagent_transcripts_and_sessions() -> None:
    main = FIXTURES / "projects" / "-p-app" / f"{SESSION_C}.jsonl"
    subs = sessions.subagent_transcripts(main)
    assert [p.name for p in subs] == ["agent-a1.jsonl"]
    assert sessions.session_of(subs[0]) == SESSION_C == sessions.session_of(main)
    assert sessions.subagent_transcripts(FIXTURES / "split_message.jsonl") == []


# --------------------------------------------------------------------------- the CLI


def test_a_main_transcript_brings_its_subagents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    code, out, _ = invoke("report", f"projects/-p-app/{SESSION_C}.jsonl", "--json")
    assert code == 0
    assert [Path(f).name for f in json.loads(out)["sessions"][0]["files"]] == [
        f"{SESSION_C}.jsonl",
        "agent-a1.jsonl",
    ]


def test_csv_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    code, out, err = invoke("report", "split_message.jsonl", "old_format.jsonl", "--csv")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        ",".join(report.CSV_HEADER),
        # sonnet-4: 21 x $3 + 6,750 x $3.75 + 10,000 x $0.30 + 242 x $15 per MTok
        "old_format,transcripts,2025-07-08T09:00:00.000Z,2025-07-08T09:10:03.000Z,7,21,6750,"
        "10000,242,17013,0.032005,0.5963,1,1,4,0,0,0,0.000000,0.000",
        # opus-4-6: 18 x $5 + 1,300 x $6.25 + 2,200 x $0.50 + 68 x $25 per MTok
        "split_message,transcripts,2026-11-01T10:00:00.100Z,2026-11-01T10:00:05.000Z,3,18,1300,"
        "2200,68,3586,0.011015,0.6254,0,1,82,0,0,0,0.000000,0.000",
        "TOTAL,,,,10,39,8050,12200,310,20599,0.043021,0.6013,1,2,86,0,0,0,0.000000,0.000",
    ]


def test_tables_name_sessions_models_and_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    code, out, err = invoke("report", "split_message.jsonl")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:2] == [
        "ccstate report: 1 session(s), 1 file(s), 10 records",
        "prices of 2026-11-30 (pricing.json)",
    ]
    assert "claude-opus-4-6" in out and "split_message" in out
    assert "2 assistant records folded into their API call (same message.id)." in lines
    assert "1 unreadable line(s) skipped" in out


def test_default_is_this_projects_folder_under_claude_projects(
    isolated_home: Path, git_project: Path
) -> None:
    from ccstate import paths

    folder = isolated_home / ".claude" / "projects" / paths.project_slug(git_project.resolve())
    folder.mkdir(parents=True)
    (folder / "s1.jsonl").write_text((FIXTURES / "split_message.jsonl").read_text())
    code, out, _ = invoke("report", "-C", str(git_project), "--json")
    assert code == 0 and json.loads(out)["total"]["tokens"]["api_calls"] == 3
    code, out, _ = invoke("report", "--session", "s1", "--json")
    assert code == 0 and json.loads(out)["sessions"][0]["session_id"] == "s1"
    code, out, _ = invoke("report", "--all", "--csv")
    assert code == 0 and out.splitlines()[1].startswith("s1,")
    long = "5e55104e-0000-4000-8000-00000000c0de"
    (folder / f"{long}.jsonl").write_text((FIXTURES / "split_message.jsonl").read_text())
    code, out, _ = invoke("report", "--session", long[:8], "--json")  # as ccstate prints it
    assert code == 0 and json.loads(out)["sessions"][0]["session_id"] == long


def test_errors_are_one_line(isolated_home: Path, git_project: Path) -> None:
    code, _, err = invoke("report", "-C", str(git_project))
    assert code == 1
    assert err.startswith(f"Error: No Claude Code transcripts for {git_project.resolve()} in ")
    code, _, err = invoke("report", "--session", "nope")
    assert (code, err.split(" under ")[0]) == (1, "Error: No transcript for session nope")
    code, _, err = invoke("report", str(FIXTURES / "split_message.jsonl"), "--json", "--csv")
    assert code == 2 and "choose one of --json and --csv" in err


def test_config_pricing_file_overrides_prices(git_project: Path) -> None:
    prices = git_project / "prices.json"
    rates = {"input": 0, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 0, "output": 1e6}
    prices.write_text(json.dumps({"models": {"claude-opus-4-6": rates}}))
    (git_project / ".ccstate.yaml").write_text("report:\n  pricing: prices.json\n")
    target = str(FIXTURES / "split_message.jsonl")
    code, out, err = invoke("report", target, "-C", str(git_project), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["total"]["tokens"]["cost_usd"] == 68.0  # 68 output tokens x $1 each
    (git_project / ".ccstate.yaml").write_text("report:\n  pricing: missing.json\n")
    code, _, err = invoke("report", target, "-C", str(git_project))
    assert code == 1 and "missing.json: pricing file cannot be read" in err


# --------------------------------------------------------------------------- the real process


def run_report(*args: str, cwd: Path = FIXTURES) -> subprocess.CompletedProcess[str]:
    """`python -m ccstate report ...` as a user runs it: workers forked, fast exit and all."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "ccstate", "report", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_the_console_entry_point_prints_the_whole_report(jobs: str) -> None:
    """Three workers share the files of `projects` (the parent scans too); the output is
    complete although the process ends with os._exit."""
    proc = run_report("projects", "--json", "--no-cache", "--jobs", jobs)
    assert (proc.returncode, proc.stderr) == (0, "")
    golden = json.loads((FIXTURES / "projects.report.json").read_text())
    assert json.loads(proc.stdout) == golden


def test_an_error_still_exits_through_click(tmp_path: Path) -> None:
    proc = run_report("--session", "no-such-session", "--json", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "No transcript for session no-such-session" in proc.stderr


def test_report_dataclasses_have_docstrings() -> None:
    """dataclass calls inspect.signature to write a missing docstring: ~0.5 ms each, paid at
    every `ccstate report` start."""
    import dataclasses

    from ccstate.report import composition
    from ccstate.transcript import lines as transcript_lines

    for module in (pricing, report, usage, transcript_lines, composition):
        for name, value in vars(module).items():
            if isinstance(value, type) and dataclasses.is_dataclass(value):
                assert not (value.__doc__ or "").startswith(f"{name}("), f"{module.__name__}.{name}"


def test_auto_workers_follow_cpus_files_and_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    from ccstate import fanout
    from ccstate.report import scan

    mib = 1 << 20
    monkeypatch.setattr(fanout.os, "sched_getaffinity", lambda _pid: set(range(64)), raising=False)
    assert scan.auto_workers(33, 3 * mib) == 1  # too little to fork for
    assert scan.auto_workers(33, 41 * mib) == 20  # 2 MiB each, not 64 processes
    assert scan.auto_workers(3, 400 * mib) == 3  # one per file at most
    monkeypatch.setattr(fanout.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    assert scan.auto_workers(33, 400 * mib) == 2  # the CPUs this process may use


def test_tables_print_brackets_in_paths_and_models_as_they_are(tmp_path: Path) -> None:
    """rich markup would eat `[id]` and `[1m]`: the tables print data, not markup."""
    path = "/p/app/[id]/page.tsx"

    def read(n: int) -> list[dict]:
        use = {"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"file_path": path}}
        usage_ = {"input_tokens": 10, "output_tokens": 5}
        message = {"id": f"m{n}", "model": "claude-opus-4-6[1m]", "content": [use], "usage": usage_}
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "x = 1\n" * 50}
        stamp = f"2026-11-01T10:00:0{n}.000Z"
        return [
            {"type": "assistant", "timestamp": stamp, "message": message},
            {"type": "user", "timestamp": stamp, "message": {"content": [result]}},
        ]

    transcript_file = tmp_path / "s.jsonl"
    transcript_file.write_text("".join(json.dumps(r) + "\n" for r in read(1) + read(2)))
    code, out, err = invoke("report", str(transcript_file))
    assert (code, err) == (0, "")
    assert path in out  # the re-read table
    assert "claude-opus-4-6[1m]" in out  # the model table


# --------------------------------------------------------------------------- as applied (#24, #23)


def _records(*results: tuple[str, dict, str, object]) -> list[dict]:
    """An assistant call and its tool result per (tool, input, shown text, toolUseResult),
    as 2.1.x records them, then one closing call."""
    out: list[dict] = []
    for n, (tool, tool_input, shown, extra) in enumerate(results):
        use = {"type": "tool_use", "id": f"t{n}", "name": tool, "input": tool_input}
        out.append(
            {"type": "assistant", "sessionId": "s", "uuid": f"a{n}",
             "message": {"id": f"m{n}", "model": "claude-sonnet-4-5", "content": [use],
                         "usage": {"input_tokens": 10, "output_tokens": 5}}}
        )  # fmt: skip
        block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": shown}
        out.append(
            {"type": "user", "sessionId": "s", "uuid": f"u{n}", "cwd": "/p",
             "message": {"role": "user", "content": [block]}, "toolUseResult": extra}
        )  # fmt: skip
    out.append(
        {"type": "assistant", "sessionId": "s", "uuid": "end",
         "message": {"id": "m-end", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "done"}],
                     "usage": {"input_tokens": 10, "output_tokens": 5}}}
    )  # fmt: skip
    return out


BODY = "\n".join(f"{i}\tdef handler_{i}(request): return {i}" for i in range(1, 41))
STUB = (
    "File unchanged since last read. The content from the earlier Read tool_result in this "
    "conversation is still current \u2014 refer to that instead of re-reading."
)
READ = {"file_path": "/p/a.py"}


def test_claude_codes_file_unchanged_stub_in_a_transcript_is_its_own_saving() -> None:
    records = _records(
        ("Read", READ, BODY, {"type": "text", "file": {"filePath": "/p/a.py"}}),
        ("Read", READ, STUB, {"type": "file_unchanged", "file": {"filePath": "/p/a.py"}}),
    )
    comp = usage.scan_records(records, path=Path("s.jsonl"), prefixes=usage.notice_prefixes())
    assert comp.composition.read_count["claude_code"] == 1
    kept = report.kept_out_as_applied(records)
    assert (kept.tokens, kept.token_calls, kept.replacements) == (0, 0, 0)
    assert comp.composition.cc_saved_chars == len(BODY) - len(STUB)


def test_kept_out_as_applied_counts_the_notice_in_the_transcript() -> None:
    notice = "0\t[ccstate: not file content] /p/a.py lines 1-40 of 40: unchanged since your Read #1"
    records = _records(("Read", READ, BODY, None), ("Read", READ, notice, None))
    kept = report.kept_out_as_applied(records)
    saved = len(BODY) - len(notice)
    assert kept == report.KeptOut(report.est_tokens(saved), report.est_tokens(saved), 1)


def test_kept_out_as_applied_counts_nothing_for_a_rejected_replacement() -> None:
    # updatedToolOutput rejected (schema_invalid): the transcript holds the original result,
    # and only the note in additionalContext came
    note = {
        "type": "attachment", "sessionId": "s", "uuid": "n",
        "attachment": {"type": "hook_additional_context", "hookName": "PostToolUse",
                       "content": ["[ccstate] /p/a.py: this Read result shows only lines 20-20 "
                                   "of the 1-40 you asked for. Omitted: lines 1-19 and 21-40"]},
    }  # fmt: skip
    changed = BODY.replace("handler_20(", "handler_twenty(")
    records = _records(("Read", READ, BODY, None), ("Read", READ, changed, None))
    records.insert(-1, note)
    kept = report.kept_out_as_applied(records)
    assert (kept.tokens, kept.replacements) == (0, 0)


def test_a_relative_transcript_path_names_the_folder_of_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same relative path read from two folders belongs to two projects (the folder's
    real path was cached by the relative string: the golden reports named another test's
    folder when the suite ran in another order)."""
    for name in ("alpha", "beta"):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        assert usage.file_session(Path("s.jsonl"))[0] == name
