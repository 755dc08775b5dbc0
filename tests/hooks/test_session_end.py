"""SessionEnd as Claude Code runs it: a subprocess with the payload on stdin."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ccstate.install import wiring
from helpers import FIXTURES, make_payload, run_hook

CASE = FIXTURES / "handoff" / "session.jsonl"
SID = "5e55104e-0000-4000-8000-00000000c0de"
PLANTED = (
    "sk-ant-api03-PLANTEDsecretPLANTEDsecret0123",
    "ghp_PLANTEDtoken000000000000000000000000",
    "hunter2-planted",
)
TIMEOUT = dict((event, t) for event, _m, t in wiring.HOOK_SPECS)["SessionEnd"]


def rehomed(project: Path, tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text(CASE.read_text().replace("/work/demo", str(project)))
    return path


def end(project: Path, transcript: Path) -> tuple[int, object, str, str]:
    payload = make_payload("SessionEnd", project, reason="other")
    payload.update(session_id=SID, transcript_path=str(transcript))
    return run_hook("SessionEnd", payload, cwd=project)


def heartbeat(project: Path) -> dict:
    return json.loads((project / ".ccstate" / "heartbeat" / "SessionEnd.json").read_text())


def state_text(project: Path) -> str:
    files = [p for p in (project / ".ccstate").rglob("*") if p.is_file()]
    return "".join(p.read_text(errors="replace") for p in files)


def test_session_end_writes_the_handoff(git_project: Path, tmp_path: Path) -> None:
    start = make_payload("SessionStart", git_project, source="startup", session_id=SID)
    assert run_hook("SessionStart", start, cwd=git_project)[0] == 0  # records the start HEAD
    (git_project / "app.py").write_text("print('bye')\n")
    assert end(git_project, rehomed(git_project, tmp_path)) == (0, None, "", "")
    md = git_project / ".ccstate" / "handoff" / "branches" / "main" / f"{SID}.md"
    text = md.read_text()
    assert "edited `src/dates.py` x2" in text and "app.py +1/-1" in text
    detail = heartbeat(git_project)["detail"]
    assert detail["handoff"] == f"handoff/branches/main/{SID}.md"
    assert (detail["written"], detail["reason"]) == (True, "other")
    for secret in PLANTED:
        assert secret not in state_text(git_project)


def test_disabled_in_config(git_project: Path, tmp_path: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("handoff:\n  enabled: false\n")
    assert end(git_project, rehomed(git_project, tmp_path)) == (0, None, "", "")
    assert heartbeat(git_project)["detail"]["handoff"] == "disabled"
    assert not (git_project / ".ccstate" / "handoff").exists()


def test_a_broken_state_dir_is_logged_not_raised_and_the_log_holds_no_secret(
    git_project: Path, tmp_path: Path
) -> None:
    (git_project / ".ccstate").mkdir()
    (git_project / ".ccstate" / "handoff").write_text("a file where a directory belongs")
    (git_project / ".env").write_text("DEPLOY_KEY=env-planted-value\n")
    payload = make_payload("SessionEnd", git_project, reason="other", session_id=SID)
    payload.update(transcript_path=str(rehomed(git_project, tmp_path)))
    payload["note"] = f"{PLANTED[0]} env-planted-value " + "x" * 2030 + PLANTED[1]
    assert run_hook("SessionEnd", payload, cwd=git_project) == (0, None, "", "")
    log = (git_project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert "SessionEnd failed:" in log and "[REDACTED:anthropic-key]" in log
    assert "env-planted-value" not in log and "ghp_PLANTED" not in log
    assert heartbeat(git_project)["outcome"].startswith("error: ")


def write_big_transcript(path: Path, project: Path, target_bytes: int) -> tuple[int, int]:
    """A synthetic long session of `target_bytes`: the fixture's turns, then cycles of Reads
    (1-40 KB results), Edits, test runs, assistant text and small progress records, in the
    proportions of the public transcripts. Returns (bytes, records)."""
    head = CASE.read_text().replace("/work/demo", str(project)).rsplit("\n", 1)[0] + "\n"
    line = "    value = compute(value, step)  # a line of source code in a file\n"
    size, records, n = len(head), head.count("\n"), 0
    with path.open("w") as fh:
        fh.write(head)
        while size < target_bytes:
            n += 1
            body = line * (8 + (n * 37) % 120)
            rows = [
                _use(n, "Read", {"file_path": f"{project}/src/f{n % 80}.py"}),
                _result(n, body, {"type": "text", "file": {"content": body}}),
                {"type": "progress", "sessionId": SID, "data": {"type": "hook_progress", "n": n}},
                _use(-n, "Edit", {"file_path": f"{project}/src/f{n % 80}.py", "old_string": "a"}),
                _result(-n, "The file has been updated.", None),
                _use(n + 10**6, "Bash", {"command": f"pytest -q tests/test_{n % 9}.py"}),
                _result(
                    n + 10**6, "3 passed" if n % 4 else "Exit code 1\nFAILED", None, n % 4 == 0
                ),
                {
                    "type": "assistant",
                    "sessionId": SID,
                    "message": {"content": [{"type": "text", "text": "ok " * 60}]},
                },
            ]
            text = "".join(json.dumps(r) + "\n" for r in rows)
            fh.write(text)
            size += len(text)
            records += len(rows)
    return size, records


def _use(n: int, name: str, tool_input: dict[str, object]) -> dict[str, object]:
    block = {"type": "tool_use", "id": f"t{n}", "name": name, "input": tool_input}
    return {"type": "assistant", "sessionId": SID, "message": {"content": [block]}}


def _result(n: int, text: str, extra: object, error: bool = False) -> dict[str, object]:
    block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": text, "is_error": error}
    row: dict[str, object] = {"type": "user", "sessionId": SID, "message": {"content": [block]}}
    if extra is not None:
        row["toolUseResult"] = extra
    return row


def test_a_50_mb_transcript_finishes_well_inside_the_hook_timeout(
    git_project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "big.jsonl"
    size, records = write_big_transcript(transcript, git_project, 50 * 1024 * 1024)
    assert size >= 50 * 1024 * 1024 and records > 30_000
    started = time.monotonic()
    assert end(git_project, transcript) == (0, None, "", "")
    elapsed = time.monotonic() - started
    assert elapsed < TIMEOUT / 2, f"SessionEnd took {elapsed:.1f}s on {size / 1e6:.0f} MB"
    assert heartbeat(git_project)["detail"]["written"] is True
    md = git_project / ".ccstate" / "handoff" / "branches" / "main" / f"{SID}.md"
    assert f"({records} records, last line {records})" in md.read_text()


def test_session_end_indexes_the_session_and_the_capsule_says_so(
    git_project: Path, tmp_path: Path
) -> None:
    assert end(git_project, rehomed(git_project, tmp_path))[0] == 0
    detail = heartbeat(git_project)["detail"]
    assert "moments from" in detail["recall"] and isinstance(detail["recall_ms"], int)
    index = git_project / ".ccstate" / "recall" / "index.sqlite"
    blob = index.read_bytes()
    assert b"src/dates.py" in blob  # an edit of the session
    for secret in PLANTED:
        assert secret.encode() not in blob
    start = make_payload("SessionStart", git_project, source="startup")
    outs = [run_hook("SessionStart", start, cwd=git_project)[1] for _ in range(2)]
    texts = [o["hookSpecificOutput"]["additionalContext"] for o in outs]
    assert texts[0] == texts[1]  # byte-identical for identical state
    (line,) = [ln for ln in texts[0].splitlines() if ln.startswith("- recall:")]
    assert line == (
        "- recall: 1 past session(s) indexed; before re-exploring earlier work, "
        "`ccstate recall KEYWORDS`"
    )


def test_a_model_that_cannot_load_leaves_bm25_indexing_whole(
    git_project: Path, tmp_path: Path
) -> None:
    """#27: a configured model folder that is missing costs only the vectors: the moments are
    indexed, the summary written (the capsule counts the session) and the heartbeat says why
    semantic ranking is off."""
    (git_project / ".ccstate.yaml").write_text("recall:\n  embedding_model: models/gone\n")
    assert end(git_project, rehomed(git_project, tmp_path))[0] == 0
    detail = heartbeat(git_project)["detail"]
    assert "moments from" in detail["recall"], detail
    assert detail["recall_semantic"].startswith("off: recall.embedding_model: ")
    assert "models/gone/model.safetensors not found" in detail["recall_semantic"]
    summary = git_project / ".ccstate" / "recall" / "summary.json"
    assert json.loads(summary.read_text())["sessions"] == 1


def test_recall_can_be_switched_off(git_project: Path, tmp_path: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("recall:\n  enabled: false\n")
    assert end(git_project, rehomed(git_project, tmp_path))[0] == 0
    assert heartbeat(git_project)["detail"]["recall"] == "disabled"
    assert not (git_project / ".ccstate" / "recall").exists()
