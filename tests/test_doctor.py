"""doctor.check_recall: the recall index as `ccstate doctor` reports it (#17)."""

from __future__ import annotations

from pathlib import Path

from ccstate import doctor, paths, redact
from ccstate.recall import index, sources
from helpers import prompt_record, tool_result_record, tool_use_record, write_jsonl


def build(project: Path) -> Path:
    state = paths.state_dir(project, {})
    records = [
        prompt_record("fix the build"),
        tool_use_record("t1", "Bash", {"command": "make"}),
        tool_result_record("t1", "Exit code 2\nerror: missing header", True),
    ]
    con = index.connect(state)
    index.update(
        con,
        [sources.transcript_source(write_jsonl(project / "t" / "s1.jsonl", records))],
        redactor=redact.Redactor(),
        max_bytes=1 << 30,
    )
    index.write_summary(state, index.stats(con))
    con.close()
    return state


def test_no_index_yet(git_project: Path) -> None:
    check = doctor.check_recall(git_project, paths.state_dir(git_project, {}))
    assert (check.level, check.message) == (
        "info",
        "no index yet: the first PreCompact or SessionEnd builds it, or run "
        "'ccstate recall --reindex'",
    )


def test_the_index_size_against_its_bound(git_project: Path) -> None:
    state = build(git_project)
    check = doctor.check_recall(git_project, state)
    assert check.level == "ok"
    assert check.message.startswith("1 sessions, 2 moments; ")
    assert "of 512 MB (recall.max_mb) in " in check.message
    (git_project / ".ccstate.yaml").write_text("recall:\n  max_mb: 1\n")
    big = index.index_path(state)
    with big.open("ab") as fh:
        fh.write(b"\0" * (2 << 20))  # as if the bound had been lowered below the index
    over = doctor.check_recall(git_project, state)
    assert over.level == "warn" and over.message.endswith(
        "the next update drops the oldest sessions"
    )


def test_disabled(git_project: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("recall:\n  enabled: false\n")
    check = doctor.check_recall(git_project, paths.state_dir(git_project, {}))
    assert (check.level, check.message) == ("info", "disabled (recall.enabled: false)")
