"""recall.index: private, redacted, incremental by stamps and offsets, bounded."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from ccstate.errors import CcstateError
from ccstate.recall import index, sources, writer
from ccstate.secrets import redact
from helpers import prompt_record, text_record, tool_result_record, tool_use_record, write_jsonl

SECRET = "ghp_" + "PLANTEDrecall000000000000000000000000"
ENV_SECRET = "planted-env-value-9"


def session_records(session: str, n: int = 3) -> list[dict]:
    out = [prompt_record(f"work on the parser {session}", session=session)]
    for i in range(n):
        out += [
            tool_use_record(f"{session}-{i}", "Bash", {"command": f"make step{i}"}, session),
            tool_result_record(f"{session}-{i}", f"step {i} ok", session=session),
        ]
    return [*out, text_record(f"Finished the parser work for {session}.", session=session)]


def build(state: Path, files: list[Path], **kw: object) -> writer.Report:
    con = index.connect(state)
    try:
        return writer.update(
            con,
            [sources.transcript_source(f) for f in files],
            redactor=kw.pop("redactor", redact.Redactor()),  # type: ignore[arg-type]
            max_bytes=kw.pop("max_bytes", 1 << 30),  # type: ignore[arg-type]
            **kw,  # type: ignore[arg-type]
        )
    finally:
        con.close()


def count(state: Path, sql: str = "SELECT count(*) FROM docs") -> int:
    con = sqlite3.connect(index.index_path(state))
    try:
        return int(con.execute(sql).fetchone()[0])
    finally:
        con.close()


def test_the_index_is_private(tmp_path: Path) -> None:
    build(tmp_path / "state", [write_jsonl(tmp_path / "a.jsonl", session_records("a"))])
    path = index.index_path(tmp_path / "state")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_planted_secret_never_reaches_the_database_file(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".env").write_text(f"DEPLOY_KEY={ENV_SECRET}\n")
    records = [
        prompt_record(f"deploy with {SECRET} and {ENV_SECRET}"),
        tool_use_record("t1", "Bash", {"command": f"curl -H 'token: {SECRET}' x"}),
        tool_result_record("t1", f"error: bad credentials {SECRET}", True),
        text_record(f"The key {ENV_SECRET} was rejected; {SECRET} too."),
        tool_use_record("r1", "Read", {"file_path": "/p/deploy.md"}),  # long: cut, #27
        tool_result_record("r1", f"use {ENV_SECRET} and {SECRET}\n" + "a line 7\n" * 500),
    ]
    records.append(tool_use_record("t2", "Bash", {"command": f"echo {SECRET}"}))  # no result yet
    state = tmp_path / "state"
    build(state, [write_jsonl(tmp_path / "s.jsonl", records)], redactor=redact.for_project(project))
    assert count(state) >= 3
    blob = b"".join(p.read_bytes() for p in index.folder(state).iterdir())
    assert SECRET.encode() not in blob and ENV_SECRET.encode() not in blob
    assert b"[REDACTED:github-token]" in blob and b"[REDACTED:env]" in blob


def test_unchanged_transcripts_are_not_read_again(tmp_path: Path) -> None:
    files = [write_jsonl(tmp_path / f"{s}.jsonl", session_records(s)) for s in "ab"]
    first = build(tmp_path / "state", files)
    again = build(tmp_path / "state", files)
    assert (first.read, first.unchanged) == (2, 0)
    assert (again.read, again.unchanged, again.moments) == (0, 2, 0)


def test_sources_of_an_earlier_extractor_are_read_again_once_each(tmp_path: Path) -> None:
    files = [write_jsonl(tmp_path / f"{s}.jsonl", session_records(s)) for s in "ab"]
    state = tmp_path / "state"
    first = build(state, files)
    con = index.connect(state)
    # as ccstate before #27 left them: a bare digest, no extractor version
    con.execute("UPDATE sources SET head = substr(head, instr(head, ':') + 1)")
    con.close()
    # an update of one session (a hook's) reads that one again, and leaves the other stale
    one = build(state, files[:1])
    assert (one.read, one.moments) == (1, first.moments // 2)
    again, then = build(state, files), build(state, files)
    assert (again.read, again.unchanged) == (1, 1)  # the other one, once
    assert count(state) == first.moments  # the same moments, none twice
    assert (then.read, then.unchanged) == (0, 2)


def test_a_growing_transcript_is_read_on_from_where_it_stopped(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", session_records("a", 2))
    first = build(tmp_path / "state", [path])
    size = path.stat().st_size
    with path.open("a") as fh:
        fh.write(json.dumps(prompt_record("now the lexer", session="a")) + "\n")
    grown = build(tmp_path / "state", [path])
    assert grown.bytes_read == path.stat().st_size - size  # only the new bytes
    assert grown.moments == 1 and count(tmp_path / "state") == first.moments + 1
    line = count(tmp_path / "state", "SELECT max(line) FROM docs")
    assert line == len(session_records("a", 2)) + 1


def test_a_rewritten_transcript_is_indexed_afresh(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", session_records("a", 3))
    build(tmp_path / "state", [path])
    write_jsonl(path, [prompt_record("something else entirely, longer than before " * 40)])
    build(tmp_path / "state", [path])
    assert count(tmp_path / "state") == 1


def test_moments_of_a_deleted_transcript_stay(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", session_records("a"))
    made = build(tmp_path / "state", [path]).moments
    path.unlink()
    build(tmp_path / "state", [path])
    assert count(tmp_path / "state") == made


def test_the_size_bound_drops_the_oldest_sessions(tmp_path: Path) -> None:
    files = []
    for n in range(12):
        records = session_records(f"s{n:02d}", 150)
        for r in records:
            r["timestamp"] = f"2026-03-{n + 1:02d}T10:00:00Z"
        files.append(write_jsonl(tmp_path / f"s{n:02d}.jsonl", records))
    build(tmp_path / "full", files)
    con = index.connect(tmp_path / "full")
    bound = index.used_bytes(con) // 2
    con.close()
    report = build(tmp_path / "state", files, max_bytes=bound)
    assert report.pruned_sessions > 0
    con = index.connect(tmp_path / "state")
    try:
        assert index.used_bytes(con) <= bound
        assert index.index_path(tmp_path / "state").stat().st_size <= bound + 4096 * 4
        kept = {r[0] for r in con.execute("SELECT DISTINCT session FROM docs")}
        assert "s11" in kept and "s00" not in kept  # the newest stay
        assert index.stats(con).sessions == len(kept)
    finally:
        con.close()
    again = build(tmp_path / "state", files, max_bytes=bound)
    assert again.read == 0  # pruned sessions are not read back in


def test_a_deadline_leaves_a_transcript_unfinished_and_the_next_run_completes_it(
    tmp_path: Path,
) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", session_records("a", 400))
    cut = build(tmp_path / "state", [path], deadline=0.0)
    assert cut.stopped and cut.moments < 400
    rest = build(tmp_path / "state", [path])
    assert cut.moments + rest.moments == 402  # prompt, 400 commands, the conclusion


def test_without_fts5_the_error_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = sqlite3.connect

    class NoFts(sqlite3.Connection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
            if "fts5" in sql.lower():
                raise sqlite3.OperationalError("no such module: fts5")
            return super().execute(sql, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(index.sqlite3, "connect", lambda *a, **k: real(*a, factory=NoFts, **k))
    with pytest.raises(CcstateError, match="recall needs SQLite's FTS5 extension"):
        index.connect(tmp_path / "state")


def test_project_sources_find_subagents_handoffs_and_decisions(tmp_path: Path) -> None:
    project, state = tmp_path / "project", tmp_path / "project" / ".ccstate"
    folder = sources.transcripts_folder(project, {"HOME": str(tmp_path / "home")})
    write_jsonl(folder / "s1.jsonl", session_records("s1"))
    write_jsonl(folder / "s1" / "subagents" / "agent-a1.jsonl", session_records("s1"))
    (state / "handoff" / "branches" / "main").mkdir(parents=True)
    (state / "handoff" / "branches" / "main" / "s1.md").write_text("# Handoff\n")
    (project / "DECISIONS.md").write_text("# Decisions\n")
    found = sources.project_sources(project, state, {"HOME": str(tmp_path / "home")})
    assert [(s.kind, s.session, s.agent) for s in found] == [
        ("transcript", "s1", ""),
        ("transcript", "s1", "agent-a1"),
        ("handoff", "s1", ""),
        ("decisions", "", ""),
    ] or sorted(s.path.name for s in found) == sorted(
        ["s1.jsonl", "agent-a1.jsonl", "s1.md", "DECISIONS.md"]
    )
    assert os.path.basename(found[-1].path) == "DECISIONS.md"


def test_a_quick_question_is_indexed_but_not_counted_as_a_working_session(tmp_path: Path) -> None:
    quick = write_jsonl(tmp_path / "q.jsonl", [prompt_record("hello"), text_record("hi")])
    work = write_jsonl(tmp_path / "w.jsonl", session_records("w"))
    build(tmp_path / "state", [quick, work])
    con = index.connect(tmp_path / "state")
    try:
        got = index.stats(con)
        assert (got.sessions, got.moments) == (1, count(tmp_path / "state"))
        assert got.kinds["prompt"] == 2  # the question is searchable all the same
    finally:
        con.close()


def test_an_unusable_index_says_reindex_and_a_reindex_replaces_it(tmp_path: Path) -> None:
    """A rebuild writes without fsync (`BULK_SOURCES`): an OS crash then may leave a damaged
    file, which `connect` reports and a rebuild (`replace_unusable`) replaces."""
    state = tmp_path / "state"
    build(state, [write_jsonl(tmp_path / "a.jsonl", session_records("a"))])
    index.index_path(state).write_bytes(b"not a database, " * 512)
    with pytest.raises(CcstateError, match="reindex"):
        index.connect(state)
    con = index.connect(state, replace_unusable=True)
    con.close()
    assert build(state, [tmp_path / "a.jsonl"], full=True).moments > 0
    assert stat.S_IMODE(index.index_path(state).stat().st_mode) == 0o600


def test_a_big_update_restores_durable_commits_afterwards(tmp_path: Path) -> None:
    files = [
        write_jsonl(tmp_path / f"{n}.jsonl", session_records(f"s{n}", 1))
        for n in range(writer.BULK_SOURCES)
    ]
    con = index.connect(tmp_path / "state")
    try:
        report = writer.update(
            con,
            [sources.transcript_source(f) for f in files],
            redactor=redact.Redactor(),
            max_bytes=1 << 30,
            jobs=2,
        )
        assert report.read == writer.BULK_SOURCES
        assert con.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    finally:
        con.close()


def _fts_matches_docs(state: Path) -> list[int]:
    """FTS5's check of the index against `docs` (raises when they differ); the moments a
    word of every moment finds."""
    con = sqlite3.connect(index.index_path(state))
    try:
        con.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 1)")
        return [r[0] for r in con.execute("SELECT rowid FROM fts WHERE fts MATCH 'parser'")]
    finally:
        con.close()


@pytest.mark.parametrize("batch", [1, 4, 1000])
def test_the_full_text_index_holds_every_moment_however_it_was_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    """Moments reach the full-text index a batch at a time, through first builds, updates
    that re-read a rewritten source, and a reindex: it always agrees with `docs`."""
    monkeypatch.setattr(writer, "FTS_BATCH", batch)
    state = tmp_path / "state"
    files = [write_jsonl(tmp_path / f"{s}.jsonl", session_records(s)) for s in "abc"]
    build(state, files[:2])
    assert len(_fts_matches_docs(state)) == 4  # a prompt and an answer per session
    write_jsonl(files[1], session_records("b", 1))  # rewritten: its old moments go
    build(state, files)
    assert len(_fts_matches_docs(state)) == 6
    with files[0].open("a") as fh:  # a grown transcript, then everything again
        fh.write(json.dumps(prompt_record("the parser, once more", session="a")) + "\n")
    build(state, files, full=True)
    assert len(_fts_matches_docs(state)) == 7
    assert count(state, "SELECT count(*) FROM fts") == count(state)


PEM_BODY = "MIIEowIBAAKCAQEA" + "q9Zx7Lm2Tk4Rw8Pv3Bn6Yc1Hd5Jf0Gs" * 40  # a key's body, made here


@pytest.mark.parametrize("kind", ["RSA", "EC", "OPENSSH"])
def test_a_private_key_in_a_long_output_never_reaches_the_index(tmp_path: Path, kind: str) -> None:
    """#23: the output was cut to its last lines before it was redacted, so the BEGIN line was
    gone and the key's body was stored."""
    lines = "\n".join(PEM_BODY[i : i + 64] for i in range(0, len(PEM_BODY), 64))
    pem = f"-----BEGIN {kind} PRIVATE KEY-----\n{lines}\n-----END {kind} PRIVATE KEY-----"
    records = [
        prompt_record("print the deploy key"),
        tool_use_record("t1", "Bash", {"command": "cat deploy.pem"}),
        tool_result_record("t1", "noise line\n" * 400 + pem),
        tool_use_record("t2", "Bash", {"command": "make deploy"}),
        tool_result_record("t2", "Exit code 2\n" + "building\n" * 300 + pem, True),
        # #27: a Read's and a hook's output are moments too, cut to their telling lines
        tool_use_record("t3", "Read", {"file_path": "/p/deploy.pem"}),
        tool_result_record(  # its BEGIN line beyond the head `facts.telling` keeps
            "t3",
            "\n".join(
                f"{n}\t{ln}"
                for n, ln in enumerate(
                    [*(f"note {c}" for c in "abcdefghij"), *pem.splitlines(), *["x = 2"] * 300], 1
                )
            ),
        ),
        {
            "type": "attachment",
            "timestamp": "2026-03-01T10:00:09Z",
            "attachment": {
                "type": "hook_additional_context",
                "hookName": "SessionStart:startup",
                "content": ["noise 3\n" * 300 + pem],
            },
        },
    ]
    state = tmp_path / "state"
    build(state, [write_jsonl(tmp_path / "s.jsonl", records)])
    blob = b"".join(p.read_bytes() for p in index.folder(state).iterdir())
    assert count(state, "SELECT count(*) FROM docs WHERE kind = 'output'") == 2
    assert count(state) >= 4
    for i in range(0, len(PEM_BODY) - 12, 7):
        assert PEM_BODY[i : i + 12].encode() not in blob


def test_secrets_in_a_failed_commands_key_never_reach_the_stored_state(tmp_path: Path) -> None:
    """#23: a failed call waits for its fix under a key made of its command's first words;
    the keys of the extractor's state were stored unredacted."""
    azure = "Zq9" + "xLm2Tk4Rw8Pv3Bn6Yc1Hd5Jf0GsQa7Ue" * 2 + "=="
    commands = [
        f"az storage blob upload --connection-string 'AccountName=a;SharedAccessKey={azure}'",
        f"{SECRET} deploy",
    ]
    records = [prompt_record("upload")]
    for n, command in enumerate(commands):
        records += [
            tool_use_record(f"t{n}", "Bash", {"command": command}),
            tool_result_record(f"t{n}", "Exit code 1\nerror: refused", True),
        ]
    state = tmp_path / "state"
    build(state, [write_jsonl(tmp_path / "s.jsonl", records)])
    blob = b"".join(p.read_bytes() for p in index.folder(state).iterdir())
    assert azure[:20].encode() not in blob and SECRET[:16].encode() not in blob


def test_a_fifo_among_the_sources_is_passed_over_without_blocking(tmp_path: Path) -> None:
    """#37: a FIFO named like a transcript (a catch-up finds every `*.jsonl`) is never opened:
    reading one waits for a writer that never comes."""
    good = write_jsonl(tmp_path / "a.jsonl", session_records("a"))
    fifo = tmp_path / "b.jsonl"
    os.mkfifo(fifo)
    report = build(tmp_path / "state", [fifo, good])
    assert (report.read, report.unchanged) == (1, 1)
    assert count(tmp_path / "state") == 5
