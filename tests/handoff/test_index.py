"""The handoff capsule section and the index summary it reads (#14 item 3).

The summary (`<state>/cache/handoff.json`) must give exactly the answer of the index itself,
and never a stale one: a new handoff, a hand-edited index, another branch, a moved HEAD, a
config value or the clock all show in the next capsule.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ccstate import config, store
from ccstate.handoff import doc as handoff_doc
from ccstate.handoff import index as handoff
from ccstate.handoff import passed as handoff_passed
from ccstate.handoff import store as handoff_store
from ccstate.secrets import redact
from helpers import make_payload, run_hook

NOW = 1_772_362_800.0  # 2026-03-01 11:00:00 UTC
DAY = 86_400
CFG = config.Config()


def git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), *args], check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def state(project: Path) -> Path:
    return project / ".ccstate"


def persist(project: Path, session: str, goal: str, *, written: float = NOW) -> None:
    """A handoff for `session` on the current branch, through the writer PreCompact uses."""
    head = git(project, "rev-parse", "HEAD")
    branch = git(project, "branch", "--show-current") or None
    meta = handoff_doc.Meta(
        project=project.name,
        session=session,
        event="PreCompact",
        written="2026-03-01T11:00:00Z",
        written_epoch=int(written),
        transcript=f"{session}.jsonl",
        records=10,
        last_line=10,
        branch=branch,
        head=head,
        head_subject="initial",
        base=head,
    )
    item = handoff_doc.Item
    sections = (("goal", (item(goal, "L1", goal),)),)
    draft = handoff_doc.Handoff(meta, sections, ())
    doc = handoff_doc.Handoff(meta, sections, handoff_doc.make_gist(draft))
    handoff_store.persist(state(project), CFG, doc, redact.for_project(project))


def capsule(project: Path, source: str = "startup", **kw: Any) -> list[str]:
    kw.setdefault("now", NOW)
    return handoff.capsule_section(project, state(project), kw.pop("cfg", CFG), source, **kw)


def index_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(_state: object) -> dict[str, Any]:
        raise AssertionError("index.json was read")

    monkeypatch.setattr(handoff, "read_index", refuse)


# --------------------------------------------------------------------------- same answer


def expected(index: dict[str, Any], branch: str | None, session: str | None) -> tuple[Any, int]:
    """What the capsule showed before the summary: choose() over the index, and a count."""
    entry = handoff.choose(index, branch, session)
    if entry is None:
        return None, 0
    others = sum(
        1
        for e in index["sessions"].values()
        if handoff.valid_entry(e) and e.get("branch") == entry.get("branch") and e is not entry
    )
    return entry, others


def random_index(rng: random.Random, sessions: int) -> dict[str, Any]:
    entries: dict[str, Any] = {}
    for n in range(sessions):
        entries[f"s{rng.randrange(10_000):04d}-{n}"] = {
            "seq": rng.randrange(1, sessions + 3),  # repeats too, as in a damaged index
            "session": f"session {n}",
            "branch": rng.choice(["main", "feature/x", "fix-1", None]),
            "head": "a" * 40,
            "event": "SessionEnd",
            "gist": [["goal", f"goal {n}"]],
            "path": f"branches/main/s{n}.md",
        }
    if sessions:
        entries["broken"] = {"seq": "not a number", "gist": []}
    return {"schema_version": 1, "seq": sessions, "sessions": entries}


@pytest.mark.parametrize("seed", range(12))
def test_the_summary_answers_exactly_as_the_index_does(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    folder = tmp_path / "state"
    raw = random_index(rng, rng.choice([0, 1, 3, 12, 40]))
    store.atomic_write_json(handoff.index_path(folder), raw)
    index = handoff.read_index(folder)
    handoff.remember(folder, index)
    keys = list(index["sessions"])
    for branch in ("main", "feature/x", "fix-1", "other", None):
        for session in [None, "unknown", *rng.sample(keys, min(4, len(keys)))]:
            assert handoff.lookup(folder, branch, session) == expected(index, branch, session)


def test_no_index_no_summary(tmp_path: Path) -> None:
    assert handoff.lookup(tmp_path / "state", "main", None) == (None, 0)


# --------------------------------------------------------------------------- the cache


def test_a_start_after_a_new_handoff_reads_the_summary_not_the_index(
    git_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(40):
        persist(git_project, f"s{n:02d}", f"step {n}")
    cached = json.loads(Path(handoff.summary_path(state(git_project))).read_text())
    assert cached["stamp"] == [store.file_stamp(handoff.index_path(state(git_project))), None]
    index_unread(monkeypatch)
    lines = capsule(git_project)
    assert lines[1:] == [
        "  - goal: step 39",
        "  - 29 other session handoff(s) on this branch: `ccstate handoff show --list`",  # kept: 30
    ]
    assert capsule(git_project, "compact", session_id="s39")[1] == "  - goal: step 39"


def test_identical_state_gives_byte_identical_lines_cached_or_not(git_project: Path) -> None:
    for n in range(5):
        persist(git_project, f"s{n}", f"step {n}")
    cached = capsule(git_project)
    Path(handoff.summary_path(state(git_project))).unlink()
    assert capsule(git_project) == cached  # read from the index, which rewrites the summary
    assert Path(handoff.summary_path(state(git_project))).is_file()
    assert capsule(git_project) == cached
    payload = make_payload("SessionStart", git_project, source="startup")
    outputs = {run_hook("SessionStart", payload, cwd=git_project)[2] for _ in range(2)}
    assert len(outputs) == 1 and "step 4" in outputs.pop()


def test_an_index_changed_behind_the_writers_back_is_read_again(git_project: Path) -> None:
    persist(git_project, "s1", "first")
    persist(git_project, "s2", "second")
    assert capsule(git_project)[1] == "  - goal: second"
    path = Path(handoff.index_path(state(git_project)))
    data = json.loads(path.read_text())
    data["sessions"]["s1"]["seq"] = 99  # a hand edit: the summary was not rewritten
    path.write_text(json.dumps(data))
    assert capsule(git_project)[1] == "  - goal: first"


def test_an_old_sessions_resume_falls_back_to_the_index(git_project: Path) -> None:
    for n in range(handoff.RECENT + 4):
        persist(git_project, f"s{n:02d}", f"step {n}")
    assert capsule(git_project, "resume", session_id="s00")[1] == "  - goal: step 0"
    assert capsule(git_project, "resume", session_id="never")[1] == (
        f"  - goal: step {handoff.RECENT + 3}"
    )


def test_another_branch_gets_its_own_handoff(git_project: Path) -> None:
    persist(git_project, "s-main", "on main")
    git(git_project, "checkout", "-q", "-b", "feature/y")
    assert capsule(git_project)[1:3] == [
        "  - STALE: the handoff is from branch main; you are on branch feature/y",
        "  - goal: on main",
    ]
    persist(git_project, "s-feature", "on feature")
    assert capsule(git_project)[1] == "  - goal: on feature"
    git(git_project, "checkout", "-q", "main")
    assert capsule(git_project)[1] == "  - goal: on main"


def test_head_the_clock_and_the_config_are_read_live(git_project: Path) -> None:
    persist(git_project, "s1", "work", written=NOW)
    assert capsule(git_project)[1] == "  - goal: work"
    old = git(git_project, "rev-parse", "--short=7", "HEAD")
    git(git_project, "commit", "-q", "--allow-empty", "-m", "next")
    new = git(git_project, "rev-parse", "--short=7", "HEAD")
    moved = (
        f"  - STALE: HEAD moved since the handoff ({old} -> {new}); "
        f"see `git log --oneline {old}..HEAD`"
    )
    assert capsule(git_project)[1] == moved
    later = capsule(git_project, now=NOW + 8 * DAY)
    assert later[2] == "  - STALE: the handoff is older than 7 days (written 2026-03-01)"
    keep = config.Config(values={**config.defaults(), "handoff.stale_days": 30})
    assert capsule(git_project, now=NOW + 8 * DAY, cfg=keep)[1:3] == [moved, "  - goal: work"]


def test_a_thousand_handoffs_cost_a_start_one_small_file(
    git_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = state(git_project)
    entries = {
        f"s{n:04d}": {
            "seq": n + 1,
            "session": f"s{n:04d}",
            "branch": "main" if n % 3 else f"topic/{n}",
            "head": "b" * 40,
            "event": "SessionEnd",
            "gist": [["goal", f"goal {n}"]],
            "path": f"branches/main/s{n:04d}.md",
        }
        for n in range(1000)
    }
    index = {"schema_version": 1, "seq": 1000, "sessions": entries}
    store.atomic_write_json(handoff.index_path(folder), index)
    handoff.remember(folder, handoff.parse_index(index))
    size = Path(handoff.summary_path(folder)).stat().st_size
    assert size < Path(handoff.index_path(folder)).stat().st_size / 10
    index_unread(monkeypatch)
    assert capsule(git_project)[-2:] == [
        "  - goal: goal 998",  # 999 is on topic/999
        "  - 665 other session handoff(s) on this branch: `ccstate handoff show --list`",
    ]


def test_a_secret_added_to_dot_env_after_the_handoff_is_hidden(git_project: Path) -> None:
    persist(git_project, "s1", "rotate key abc123secretvalue")
    assert capsule(git_project)[1] == "  - goal: rotate key abc123secretvalue"
    (git_project / ".env.local").write_text("API_KEY=abc123secretvalue\n")
    assert capsule(git_project)[1] == "  - goal: rotate key [REDACTED:env]"


def test_the_summary_follows_the_passed_store(git_project: Path) -> None:
    """#39.2: the last passing test command comes from the index summary, which is keyed by
    passed.json's stamp as well as the index's."""
    persist(git_project, "s1", "first")
    assert capsule(git_project)[-1] == "  - goal: first"
    run = {
        "command": "make test",
        "tool": "make test",
        "kind": "test",
        "session": "s1",
        "time": "T",
    }
    assert handoff_passed.record(state(git_project), "main", [run])
    assert capsule(git_project)[-1] == "- tests: `make test` passed (session s1)"


def test_the_headline_points_to_the_file_only_when_it_adds_something(git_project: Path) -> None:
    persist(git_project, "s1", "first")  # a goal only: the gist says it all
    head = git(git_project, "rev-parse", "--short=7", "HEAD")
    assert capsule(git_project)[0] == f"- handoff (PreCompact, session s1, branch main @ {head}):"
    path = Path(handoff.index_path(state(git_project)))
    data = json.loads(path.read_text())
    data["sessions"]["s1"]["adds"] = ["2 failing checks", "3 next steps"]
    path.write_text(json.dumps(data))
    assert capsule(git_project)[0] == (
        f"- handoff (PreCompact, session s1, branch main @ {head}): 2 failing checks, "
        "3 next steps in .ccstate/handoff/branches/main/s1.md"
    )
    del data["sessions"]["s1"]["adds"]  # written before #42: named as it was
    path.write_text(json.dumps(data))
    assert capsule(git_project)[0].endswith(": full handoff: .ccstate/handoff/branches/main/s1.md")
