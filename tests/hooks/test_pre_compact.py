"""PreCompact as Claude Code runs it; it may fire several times for one compaction."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import FIXTURES, make_payload, run_hook

CASE = FIXTURES / "handoff" / "session.jsonl"
SID = "5e55104e-0000-4000-8000-00000000c0de"


def test_pre_compact_writes_once_however_often_it_fires(git_project: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(CASE.read_text().replace("/work/demo", str(git_project)))
    payload = make_payload("PreCompact", git_project, trigger="manual", custom_instructions="keep")
    payload.update(session_id=SID, transcript_path=str(transcript))
    outcomes, blocks = [], set()
    for _ in range(3):
        code, parsed, out, err = run_hook("PreCompact", payload, cwd=git_project)
        assert (code, parsed, err) == (0, None, "")
        blocks.add(out)  # the block for the summariser (#26), byte-identical each time
        beat = json.loads((git_project / ".ccstate/heartbeat/PreCompact.json").read_text())
        outcomes.append((beat["detail"]["handoff"], beat["detail"]["written"]))
    rel = f"handoff/branches/main/{SID}.md"
    assert outcomes == [(rel, True), (rel, False), (rel, False)]
    (block,) = blocks
    assert block.startswith("[ccstate] Keep across this compaction") and "keep" not in block
    record = json.loads((git_project / ".ccstate" / "compaction" / f"{SID}.json").read_text())
    assert record["asked"]["fires"] == 3 and record["asked"]["custom"] is True
    progress = (git_project / ".ccstate" / "handoff" / "progress.md").read_text()
    assert progress.count("· PreCompact ·") == 1


def test_the_capsule_after_compaction_points_at_this_sessions_handoff(
    git_project: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(CASE.read_text().replace("/work/demo", str(git_project)))
    payload = make_payload("PreCompact", git_project, trigger="auto")
    payload.update(session_id=SID, transcript_path=str(transcript))
    assert run_hook("PreCompact", payload, cwd=git_project)[0] == 0
    start = make_payload("SessionStart", git_project, source="compact", session_id=SID)
    code, parsed, _, err = run_hook("SessionStart", start, cwd=git_project)
    assert (code, err) == (0, "")
    text = parsed["hookSpecificOutput"]["additionalContext"]
    assert "- handoff (PreCompact, session 5e55104e, branch main @ " in text
    assert f"3 open todos, 1 unresolved error in .ccstate/handoff/branches/main/{SID}.md" in text


def test_pre_compact_indexes_the_session_for_recall_once(git_project: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(CASE.read_text().replace("/work/demo", str(git_project)))
    payload = make_payload("PreCompact", git_project, trigger="auto")
    payload.update(session_id=SID, transcript_path=str(transcript))
    details = []
    for _ in range(2):  # PreCompact may fire twice: the second run reads nothing again
        assert run_hook("PreCompact", payload, cwd=git_project)[0] == 0
        beat = json.loads((git_project / ".ccstate/heartbeat/PreCompact.json").read_text())
        details.append(beat["detail"]["recall"])
    first, second = details
    assert first.endswith("files") and not first.startswith("0 moments")
    assert second == "0 moments from 0 files"
    summary = json.loads((git_project / ".ccstate/recall/summary.json").read_text())
    assert summary["sessions"] == 1 and summary["moments"] > 0


def test_a_handoff_that_adds_nothing_is_no_path_to_keep(git_project: Path, tmp_path: Path) -> None:
    """#42: the capsule after the compaction names no handoff file that adds nothing to it,
    so the block does not ask the summary to keep its path either."""
    (git_project / "notes.txt").write_text("draft\n")
    sid = "5e55104e-0000-4000-8000-0000000000aa"
    records = [
        {"type": "user", "sessionId": sid, "message": {"content": "write notes, run the tests"}},
        {
            "type": "assistant",
            "sessionId": sid,
            "message": {
                "content": [
                    {
                        "type": "tool_use",
                        "id": "w",
                        "name": "Write",
                        "input": {
                            "file_path": str(git_project / "notes.txt"),
                            "content": "draft\n",
                        },
                    },
                ]
            },
        },
        {
            "type": "user",
            "sessionId": sid,
            "message": {
                "content": [{"type": "tool_result", "tool_use_id": "w", "content": "File created"}]
            },
        },
        {
            "type": "assistant",
            "sessionId": sid,
            "message": {
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t",
                        "name": "Bash",
                        "input": {"command": "pytest -q"},
                    },
                ]
            },
        },
        {
            "type": "user",
            "sessionId": sid,
            "message": {
                "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": "3 passed in 0.1s"}
                ]
            },
        },
    ]
    transcript = tmp_path / "adds-nothing.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records))
    payload = make_payload("PreCompact", git_project, trigger="auto")
    payload.update(session_id=sid, transcript_path=str(transcript))
    code, parsed, block, err = run_hook("PreCompact", payload, cwd=git_project)
    assert (code, parsed, err) == (0, None, "")
    assert "notes.txt" in block and ".ccstate/handoff/" not in block
