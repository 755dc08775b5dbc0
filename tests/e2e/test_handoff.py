"""Handoff and capsule in the real Claude Code CLI (issue #4): what the model receives."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_runner import read_transcript, transcript_path
from fake_api import system_texts, text, tool_use

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
CAPSULE_HEAD = "[ccstate] project state for project"
# Planted in the prompt, in a tool output and in a commit message (assembled at run time).
PROMPT_SECRET = "sk-ant-api03-" + "E2EplantedE2EplantedE2E0"
OUTPUT_SECRET = "AKIA" + "E2EPLANTED000042"
COMMIT_SECRET = "ghp_" + "E2Eplanted0000000000000000000000000000"
SECRETS = (PROMPT_SECRET, OUTPUT_SECRET, COMMIT_SECRET)


def capsules(request: dict[str, Any]) -> list[str]:
    """The ccstate capsules in a request (each ends at the first blank line)."""
    found = []
    for chunk in system_texts(request):
        start = chunk.find(CAPSULE_HEAD)
        if start >= 0:
            found.append(chunk[start:].split("\n\n", 1)[0])
    return found


def work_session(project: Path) -> list[Any]:
    """Session 1's script: write a file, edit one, echo a secret, commit, run a failing check."""
    commit = (
        f"git add -A && git commit -qm 'notes (token {COMMIT_SECRET})' && git log -1 --format=%s"
    )
    return [
        tool_use("Write", {"file_path": str(project / "notes.txt"), "content": "todo\n"}),
        tool_use("Read", {"file_path": str(project / "app.py")}),
        tool_use(
            "Edit",
            {"file_path": str(project / "app.py"), "old_string": "hello", "new_string": "hi"},
        ),
        tool_use("Bash", {"command": f"echo deploying with {OUTPUT_SECRET}", "description": "x"}),
        tool_use("Bash", {"command": commit, "description": "commit"}),
        tool_use("Bash", {"command": "make check", "description": "run the checks"}),
        text("done"),
    ]


def state_text(project: Path) -> str:
    files = [p for p in (project / ".ccstate").rglob("*") if p.is_file()]
    return "\n".join(p.read_text(errors="replace") for p in files)


def assert_no_secret(haystack: str) -> None:
    for secret in SECRETS:
        assert secret not in haystack


def test_handoff_then_identical_capsules_in_later_sessions(claude, fake_api, project: Path) -> None:
    fake_api.set_script(work_session(project))
    _, first = claude(
        f"add notes.txt and greet with hi; my key is {PROMPT_SECRET}", plugin_dir=REPO
    )
    assert first is not None and first["result"] == "done"
    sid = first["session_id"]
    handoff = project / ".ccstate" / "handoff" / "branches" / "main" / f"{sid}.md"
    text_ = handoff.read_text()
    assert "created `notes.txt`" in text_ and "edited `app.py`" in text_
    assert "- `make check`: did not run (no such script or target) [L" in text_  # no Makefile
    assert "commit `" in text_ and "[REDACTED:github-token]" in text_

    seen = len(fake_api.agent_requests())
    fake_api.set_script([text("ok"), text("ok again")])
    claude("hello", plugin_dir=REPO)
    claude("hello again", plugin_dir=REPO)
    later = fake_api.agent_requests()[seen:]
    (one,), (two,) = capsules(later[0]), capsules(later[1])
    assert one == two  # byte-identical: nothing changed between the two starts
    assert f"- handoff (SessionEnd, session {sid[:8]}, branch main @ " in one
    assert f"1 unresolved error in .ccstate/handoff/branches/main/{sid}.md" in one  # what it adds
    assert "  - changed: 2 files (app.py, notes.txt); 1 commit" in one
    assert_no_secret(one + state_text(project))
    # Claude Code's own gitStatus reminder shows recent commit subjects, so the commit secret
    # may reach later sessions through it; the prompt and tool-output secrets only could
    # through ccstate, and they do not.
    assert PROMPT_SECRET not in json.dumps(later) and OUTPUT_SECRET not in json.dumps(later)


def test_compact_reinjects_the_capsule(claude, fake_api, project: Path, claude_home: Path) -> None:
    """Manual `/compact` (PreCompact writes, SessionStart:compact injects), then auto-compaction,
    where the request right after the summary is visible and must carry the capsule."""
    fake_api.set_script(work_session(project))
    _, first = claude(f"start; key {PROMPT_SECRET}", plugin_dir=REPO)
    assert first is not None
    sid = first["session_id"]
    proc, _ = claude("/compact keep the plan", resume=sid, plugin_dir=REPO)
    assert proc.returncode == 0
    beat = json.loads((project / ".ccstate" / "heartbeat" / "PreCompact.json").read_text())
    assert beat["detail"]["handoff"] == f"handoff/branches/main/{sid}.md"
    records = read_transcript(transcript_path(claude_home, project, sid))
    boundary = max(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
    injected = [
        json.dumps(r["attachment"])
        for r in records[boundary:]
        if r.get("type") == "attachment"
        and r["attachment"].get("type") == "hook_additional_context"
        and r["attachment"].get("hookEvent") == "SessionStart"
    ]
    assert injected and all(f"session {sid[:8]}" in a for a in injected), injected
    assert_no_secret(state_text(project) + "".join(injected))

    # Auto-compaction inside one run: the post-compaction request is the one to check.
    def usage(tokens: int) -> dict[str, int]:
        return {"input_tokens": tokens, "output_tokens": 10}

    fake_api.set_script(
        [
            tool_use("Read", {"file_path": str(project / "app.py")}, usage=usage(5_000)),
            tool_use("Read", {"file_path": str(project / "notes.txt")}, usage=usage(30_000)),
            tool_use("Read", {"file_path": str(project / "README.md")}, usage=usage(75_000)),
            text("after compaction"),
        ]
    )
    seen = len(fake_api.all_requests())
    _, auto = claude("read three files", plugin_dir=REPO, extra_args=["--autocompact", "100000"])
    assert auto is not None and auto["result"] == "after compaction"
    requests = fake_api.all_requests()[seen:]
    kinds = [r.kind for r in requests]
    assert "compaction" in kinds, kinds
    after = [r.body for r in requests[kinds.index("compaction") + 1 :] if r.kind == "agent"]
    assert after, kinds
    (capsule,) = capsules(after[0])
    assert f"- handoff (PreCompact, session {auto['session_id'][:8]}, branch main @ " in capsule
    assert_no_secret(capsule + state_text(project))


def test_no_ccstate_file_is_tracked_by_git(claude, fake_api, project: Path) -> None:
    fake_api.set_script(work_session(project))
    claude("work", plugin_dir=REPO)
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=project, capture_output=True, text=True, check=True
    ).stdout
    assert ".ccstate" not in tracked  # `git add -A` in the session did not pick up the state


def test_a_missing_linter_is_no_pass_and_the_capsule_spares_the_read(
    claude, fake_api, project: Path
) -> None:
    """#42: black is not installed and its exit status is tail's; pytest passes. The handoff
    and the next session's capsule say so, one line per tool, with no empty section; the
    handoff adds nothing the capsule does not say, so the capsule names no file."""
    found = subprocess.run([sys.executable, "-c", "import black"], capture_output=True)
    assert found.returncode != 0, "black is importable here: the scenario needs it missing"
    (project / "test_app.py").write_text(
        "from app import greet\n\n\ndef test_greet():\n    assert greet('x') == 'hello x'\n"
    )
    black, tests = "python3 -m black --check . 2>&1 | tail -3", "python3 -m pytest -q"
    fake_api.set_script(
        [
            tool_use("Bash", {"command": black, "description": "lint"}),
            tool_use("Bash", {"command": tests, "description": "tests"}),
            text("checked"),
        ]
    )
    _, first = claude("run the linter and the tests", plugin_dir=REPO)
    assert first is not None and first["result"] == "checked"
    outputs = [r for r in fake_api.agent_requests() if "No module named black" in json.dumps(r)]
    assert outputs, "the session's black call did not fail as the scenario needs"
    assert all("handoff" not in c for c in capsules(fake_api.agent_requests()[0]))  # none yet
    sid = first["session_id"]
    text_ = (project / ".ccstate" / "handoff" / "branches" / "main" / f"{sid}.md").read_text()
    assert f"- `black`: not installed (ran `{black}`)" in text_
    assert re.search(rf"- `pytest`: 1 passed \(ran `{re.escape(tests)}`\) \[L\d+\]", text_)
    assert "none written yet" not in text_ and "## Next steps" not in text_
    assert not re.search(r"^## .*\n(?!- )", text_, re.M), text_  # every section has items

    fake_api.set_script([text("ok")])
    claude("hello", plugin_dir=REPO)
    (capsule,) = capsules(fake_api.agent_requests()[-1])
    assert "  - checks: `pytest`: 1 passed; `black`: not installed" in capsule
    assert f"- tests: `{tests}` passed (session {sid[:8]})" in capsule
    assert f"- handoff (SessionEnd, session {sid[:8]}, branch main @ " in capsule
    assert ".ccstate/handoff/" not in capsule  # the file adds nothing: no pointer to it
