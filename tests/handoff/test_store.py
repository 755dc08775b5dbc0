"""Handoff files and the SessionStart capsule section (handoff.store, handoff.index)."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
from pathlib import Path

import pytest

from ccstate import config, tokens
from ccstate.handoff import index as handoff
from ccstate.handoff import store as handoff_store
from helpers import FIXTURES

CASE = FIXTURES / "handoff" / "session.jsonl"
SID = "5e55104e-0000-4000-8000-00000000c0de"
NOW = 1_772_362_800.0  # 2026-03-01 11:00:00 UTC
DAY = 86_400
CFG = config.Config()


def git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), *args], check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def transcript_in(project: Path, tmp_path: Path, session: str = SID, name: str = "t") -> Path:
    """The fixture session, re-homed into `project` (its cwd and file paths point there)."""
    text = CASE.read_text().replace("/work/demo", str(project)).replace(SID, session)
    path = tmp_path / f"{name}.jsonl"
    path.write_text(text)
    return path


def write(project: Path, transcript: Path | None, **kw: object) -> handoff_store.WriteResult:
    kw.setdefault("event", "SessionEnd")
    kw.setdefault("now", NOW)
    return handoff_store.write_handoff(
        project,
        project / ".ccstate",
        CFG,
        transcript=transcript,
        **kw,  # type: ignore[arg-type]
    )


def capsule(project: Path, source: str = "startup", **kw: object) -> list[str]:
    kw.setdefault("now", NOW)
    return handoff.capsule_section(project, project / ".ccstate", CFG, source, **kw)  # type: ignore[arg-type]


def short(project: Path) -> str:
    return git(project, "rev-parse", "--short=7", "HEAD")


# --------------------------------------------------------------------------- writing


def test_writes_handoff_index_and_progress_in_the_documented_layout(
    git_project: Path, tmp_path: Path
) -> None:
    handoff.record_start(git_project, git_project / ".ccstate", SID)
    (git_project / "app.py").write_text("print('changed')\n")
    result = write(git_project, transcript_in(git_project, tmp_path), session_id=SID)
    base = git_project / ".ccstate" / "handoff"
    assert result.written and result.path == base / "branches" / "main" / f"{SID}.md"
    assert sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file()) == [
        f"branches/main/{SID}.json",
        f"branches/main/{SID}.md",
        "index.json",
        "index.json.lock",
        "passed.json",  # the pytest run that passed (#39.2)
        "passed.json.lock",
        "progress.md",
        f"starts/{SID}.json",
    ]
    text = result.path.read_text()
    assert "diffstat since session start" in text and "app.py +1/-1" in text
    assert "edited `src/dates.py` x2 [L12-L18]" in text  # relative to the project
    index = json.loads((base / "index.json").read_text())
    assert index["seq"] == 1 and index["sessions"][SID]["head"] == git(
        git_project, "rev-parse", "HEAD"
    )
    assert (base / "progress.md").read_text().count("## 2026-03-01T11:00:00Z · SessionEnd") == 1


def test_rewrites_are_idempotent(git_project: Path, tmp_path: Path) -> None:
    """PreCompact can fire 2-4 times for one compaction; the transcript grows in between."""
    path = transcript_in(git_project, tmp_path)
    first = write(git_project, path, event="PreCompact")
    md = first.path.read_bytes()
    with path.open("a") as fh:
        fh.write('\n{"type": "attachment", "attachment": {"type": "hook_success"}}\n')
    again = [write(git_project, path, event="PreCompact", now=NOW + i) for i in (1, 2, 3)]
    assert [r.written for r in again] == [False, False, False]
    assert first.path.read_bytes() == md
    progress = (git_project / ".ccstate" / "handoff" / "progress.md").read_text()
    assert progress.count("· PreCompact ·") == 1
    assert json.loads((git_project / ".ccstate/handoff/index.json").read_text())["seq"] == 1


def test_parallel_sessions_and_branches_do_not_clobber(git_project: Path, tmp_path: Path) -> None:
    a = write(git_project, transcript_in(git_project, tmp_path, "aaaa-1", "a"))
    b = write(git_project, transcript_in(git_project, tmp_path, "bbbb-2", "b"))
    git(git_project, "checkout", "-q", "-b", "feature/x")
    c = write(git_project, transcript_in(git_project, tmp_path, "cccc-3", "c"))
    assert a.path and b.path and c.path
    assert len({a.path, b.path, c.path}) == 3 and all(p.is_file() for p in (a.path, b.path, c.path))
    assert c.path.parent.name.startswith("feature-x-")  # slash made safe, collision-proof
    index = handoff.read_index(git_project / ".ccstate")
    assert handoff.choose(index, "main")["session"] == "bbbb-2"  # type: ignore[index]
    assert handoff.choose(index, "feature/x")["session"] == "cccc-3"  # type: ignore[index]
    assert handoff.choose(index, "main", "aaaa-1")["session"] == "aaaa-1"  # type: ignore[index]


def test_concurrent_writers_lose_nothing(git_project: Path, tmp_path: Path) -> None:
    paths = [transcript_in(git_project, tmp_path, f"s{i}", f"t{i}") for i in range(4)]
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=write, args=(git_project, p)) for p in paths]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    assert [proc.exitcode for proc in procs] == [0, 0, 0, 0]
    index = handoff.read_index(git_project / ".ccstate")
    assert sorted(index["sessions"]) == ["s0", "s1", "s2", "s3"]
    assert sorted(e["seq"] for e in index["sessions"].values()) == [1, 2, 3, 4]
    progress = (git_project / ".ccstate/handoff/progress.md").read_text()
    assert progress.count("## ") == 4


def test_a_branch_switch_moves_the_sessions_handoff(git_project: Path, tmp_path: Path) -> None:
    path = transcript_in(git_project, tmp_path)
    old = write(git_project, path)
    git(git_project, "checkout", "-q", "-b", "next")
    new = write(git_project, path)
    assert old.path and new.path and not old.path.exists() and new.path.exists()


def test_progress_log_rotates_and_sessions_are_pruned(git_project: Path, tmp_path: Path) -> None:
    (git_project / ".ccstate.yaml").write_text(
        "handoff:\n  progress_max_bytes: 4096\n  progress_archives: 2\n  keep_sessions: 3\n"
    )
    cfg = config.load_config(git_project)
    state = git_project / ".ccstate"
    for i in range(40):  # ~500-byte entries: 8 per 4 KB log, so 4 rotations
        handoff_store.write_handoff(
            git_project,
            state,
            cfg,
            transcript=transcript_in(git_project, tmp_path, f"s{i:02d}"),
            event="SessionEnd",
            now=NOW + i,
        )
    base = state / "handoff"
    assert (base / "progress.md").stat().st_size <= 4096
    archives = sorted(int(p.name.split(".")[1]) for p in (base / "archive").iterdir())
    assert len(archives) == 2 and archives[1] == archives[0] + 1 and archives[0] > 1
    logged = "".join(p.read_text() for p in [*(base / "archive").iterdir(), base / "progress.md"])
    assert "session s39" in logged and "session s00" not in logged  # bounded: oldest gone
    assert sorted(handoff.read_index(state)["sessions"]) == ["s37", "s38", "s39"]
    assert len(list((base / "branches" / "main").glob("*.md"))) == 3


def test_session_end_skips_a_session_with_nothing_to_hand_off(
    git_project: Path, tmp_path: Path
) -> None:
    chat = tmp_path / "chat.jsonl"
    record = {
        "type": "user",
        "sessionId": "q1",
        "cwd": str(git_project),
        "message": {"content": "what is 2+2?"},
    }
    chat.write_text(json.dumps(record) + "\n")
    assert write(git_project, chat).path is None
    assert not (git_project / ".ccstate" / "handoff" / "index.json").exists()
    assert write(git_project, chat, event="PreCompact").written  # compaction always writes
    assert write(git_project, chat, now=NOW + 5).path is not None  # ... and SessionEnd updates it


def test_without_a_transcript_git_still_speaks(git_project: Path) -> None:
    result = write(git_project, None, session_id="nots", event="manual")
    assert result.path is not None
    text = result.path.read_text()
    assert "branch `main` at" in text
    assert "## Goal" not in text and "## Next steps" not in text  # empty sections left out


def test_notes_lead_the_handoff_and_the_capsule(git_project: Path, tmp_path: Path) -> None:
    state = git_project / ".ccstate"
    path, count = handoff_store.add_note(git_project, state, CFG, SID, "early  note", now=NOW)
    assert (path, count) == (None, 1)  # no handoff yet: kept for the next write
    result = write(git_project, transcript_in(git_project, tmp_path), session_id=SID)
    assert result.path and "- early note [note 1]" in result.path.read_text()
    secret = "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345"
    path, count = handoff_store.add_note(
        git_project, state, CFG, SID, f"rotate {secret}; then run make", now=NOW + 60
    )
    assert (path, count) == (result.path, 2)
    text = result.path.read_text()
    assert "rotate [REDACTED:github-pat]; then run make [note 2]" in text
    assert "(note) on 2026-03-01 11:01:00 UTC" in text
    assert capsule(git_project)[1] == "  - next: early note (+1 more)"
    assert secret not in "".join(p.read_text() for p in state.rglob("*") if p.is_file())
    with pytest.raises(handoff_store.StateError, match="the note is empty"):
        handoff_store.add_note(git_project, state, CFG, SID, "  ", now=NOW)


# --------------------------------------------------------------------------- capsule


def test_capsule_without_handoff(git_project: Path) -> None:
    assert capsule(git_project) == []  # no fact, no line (#42, #43)


def test_capsule_golden_and_byte_identical(git_project: Path, tmp_path: Path) -> None:
    write(git_project, transcript_in(git_project, tmp_path))
    lines = capsule(git_project)
    assert lines == [
        f"- handoff (SessionEnd, session 5e55104e, branch main @ {short(git_project)}): "
        f"1 failing check, 3 open todos, 1 unresolved error in "
        f".ccstate/handoff/branches/main/{SID}.md",
        "  - goal: Make the date parser accept ISO week dates (2026-W09-1). My API key is "
        "[REDACTED:anthropic-key] if you need it.",
        "  - latest prompt: Now also handle ordinal dates like 2026-060, and keep D3 in mind.",
        "  - changed: 2 files (src/dates.py, tests/test_weeks.py); 1 commit",
        "  - checks: `npm run build`: FAILED (exit 2); `pytest tests/test_weeks.py`: 2 passed",
        "- tests: `python -m pytest -q tests/test_weeks.py` passed (session 5e55104e)",
    ]
    assert capsule(git_project) == lines == capsule(git_project, "clear", now=NOW + 6 * DAY)
    assert tokens.count_tokens("\n".join(lines))[0] < 250


def test_capsule_says_when_head_moved(git_project: Path, tmp_path: Path) -> None:
    write(git_project, transcript_in(git_project, tmp_path))
    old = short(git_project)
    (git_project / "b.txt").write_text("b\n")
    git(git_project, "add", "b.txt")
    git(git_project, "commit", "-q", "-m", "later")
    assert capsule(git_project)[1] == (
        f"  - STALE: HEAD moved since the handoff ({old} -> {short(git_project)}); "
        f"see `git log --oneline {old}..HEAD`"
    )


def test_capsule_says_when_it_is_from_another_branch(git_project: Path, tmp_path: Path) -> None:
    write(git_project, transcript_in(git_project, tmp_path))
    git(git_project, "checkout", "-q", "-b", "other")
    assert capsule(git_project)[1] == (
        "  - STALE: the handoff is from branch main; you are on branch other"
    )
    git(git_project, "checkout", "-q", "--detach")
    assert capsule(git_project)[1].endswith("you are on a detached HEAD")


def test_age_changes_the_text_only_when_the_threshold_is_crossed(
    git_project: Path, tmp_path: Path
) -> None:
    write(git_project, transcript_in(git_project, tmp_path))
    fresh = [capsule(git_project, now=NOW + s) for s in (0, DAY, 7 * DAY - 1)]
    assert fresh[0] == fresh[1] == fresh[2]
    stale = [capsule(git_project, now=NOW + s) for s in (7 * DAY + 1, 30 * DAY)]
    assert stale[0] == stale[1]
    assert stale[0][1] == "  - STALE: the handoff is older than 7 days (written 2026-03-01)"
    (git_project / ".ccstate.yaml").write_text("handoff:\n  stale_days: 0\n")
    cfg = config.load_config(git_project)
    never = handoff.capsule_section(
        git_project, git_project / ".ccstate", cfg, "startup", now=NOW + 99 * DAY
    )
    assert never == fresh[0]


def test_compact_and_resume_prefer_the_sessions_own_handoff(
    git_project: Path, tmp_path: Path
) -> None:
    write(git_project, transcript_in(git_project, tmp_path, "mine-1", "a"), event="PreCompact")
    write(git_project, transcript_in(git_project, tmp_path, "other-2", "b"))
    assert "session mine-1" in capsule(git_project, "compact", session_id="mine-1")[0]
    assert "session mine-1" in capsule(git_project, "resume", session_id="mine-1")[0]
    startup = capsule(git_project, "startup", session_id="new-3")
    assert "session other-2" in startup[0]
    assert startup[-2:] == [
        "  - 1 other session handoff(s) on this branch: `ccstate handoff show --list`",
        "- tests: `python -m pytest -q tests/test_weeks.py` passed (session other-2)",
    ]


def test_capsule_hides_dotenv_values_added_after_the_write(
    git_project: Path, tmp_path: Path
) -> None:
    write(git_project, transcript_in(git_project, tmp_path))
    (git_project / ".env").write_text("WEEK_SECRET=ISO week dates\n")
    assert "[REDACTED:env]" in capsule(git_project)[1]


def test_record_start_once_per_session(git_project: Path) -> None:
    state = git_project / ".ccstate"
    handoff.record_start(git_project, state, SID)
    first = Path(handoff.start_path(state, SID)).read_text()
    (git_project / "b.txt").write_text("b\n")
    git(git_project, "add", "b.txt")
    git(git_project, "commit", "-q", "-m", "later")
    handoff.record_start(git_project, state, SID)
    assert Path(handoff.start_path(state, SID)).read_text() == first


def test_safe_names() -> None:
    assert handoff.safe_name("main") == "main"
    assert handoff.safe_name("feature/x") != handoff.safe_name("feature-x")
    assert "/" not in handoff.safe_name("../../etc/passwd")
    assert handoff.branch_key(None) == "_detached"


def test_a_damaged_index_neither_breaks_the_capsule_nor_loses_the_next_write(
    git_project: Path, tmp_path: Path
) -> None:
    base = git_project / ".ccstate" / "handoff"
    base.mkdir(parents=True)
    (base / "index.json").write_text('{"seq": 3, "sessions": {"x": {"seq": "three"}, "y": 7}}')
    (base / "passed.json").write_text('{"branches": {"main": [{"command": 3}]}, "seq": "x"}')
    assert capsule(git_project) == []
    (base / "index.json").write_text("{not json")
    assert write(git_project, transcript_in(git_project, tmp_path)).written
    assert [p.name.split("-")[0] for p in base.glob("index.json.corrupt-*")] == [
        "index.json.corrupt"
    ]
    assert capsule(git_project)[0].startswith("- handoff (SessionEnd, session 5e55104e")
