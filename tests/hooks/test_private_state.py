"""Private by construction (#23 point 4): after a whole session run as Claude Code runs it,
every folder ccstate made is 0700 and every file 0600, whatever the umask.

The hooks and the CLI run as subprocesses under umask 022 (what most shells give): SessionStart,
PostToolUse for a Read (the read ledger and its blob) and a noisy Bash output (a digest and its
original), PreCompact and SessionEnd (handoff, progress log, recall index), then `ccstate
handoff note`, `handoff show`, `decide` and `recall`, and a hook fails on a broken payload
(hooks.log). The state dir and ccstate's cache are
walked. On main, `ledger/`, `handoff/` and others were 0755 and `recall/summary.json` 0644.
"""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

from ccstate import paths
from helpers import FIXTURES, hook_env, make_payload, read_payload, run_hook

SID = "5e55104e-0000-4000-8000-00000000c0de"
CASE = FIXTURES / "handoff" / "session.jsonl"
VITEST = (FIXTURES / "outputs" / "vitest-3-failures.txt").read_text()
UMASK = 0o022


def _umasked(argv: list[str]) -> list[str]:
    return ["sh", "-c", f'umask {UMASK:03o} && exec "$@"', "sh", *argv]


def _hook(event: str, payload: dict | str, project: Path) -> None:
    argv = _umasked([sys.executable, "-m", "ccstate.hooks", event])
    code, _parsed, _out, err = run_hook(event, payload, cwd=project, argv=argv)
    assert (code, err) == (0, ""), (event, err)


def _cli(project: Path, *args: str) -> str:
    argv = _umasked([sys.executable, "-m", "ccstate", *args])
    env = hook_env(CLAUDE_CODE_SESSION_ID=SID)
    done = subprocess.run(
        argv, cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def run_full_session(project: Path, home: Path) -> Path:
    """One session through every hook and the CLI; its transcript where Claude Code keeps it."""
    folder = home / ".claude" / "projects" / paths.project_slug(project)
    folder.mkdir(parents=True)
    transcript = folder / f"{SID}.jsonl"
    transcript.write_text(CASE.read_text().replace("/work/demo", str(project)))
    common = {"session_id": SID, "transcript_path": str(transcript)}
    _hook(
        "SessionStart", make_payload("SessionStart", project, source="startup", **common), project
    )
    source = project / "app.py"
    read = read_payload(project, source, source.read_text())
    _hook("PostToolUse", {**read, **common}, project)
    response = {"stdout": VITEST, "stderr": "", "interrupted": False, "isImage": False}
    bash = make_payload(
        "PostToolUse",
        project,
        tool_name="Bash",
        tool_input={"command": "npm test"},
        tool_use_id="toolu_100",
        tool_response=response,
        **common,
    )
    _hook("PostToolUse", bash, project)
    _hook("Stop", make_payload("Stop", project, stop_hook_active=False, **common), project)
    _hook("PreCompact", make_payload("PreCompact", project, trigger="manual", **common), project)
    _hook("SessionEnd", make_payload("SessionEnd", project, reason="other", **common), project)
    _hook("PostToolUse", '{"cwd": "' + str(project) + '", oops', project)  # logged in hooks.log
    _cli(project, "handoff", "note", "--", "rerun the parser tests")
    _cli(project, "handoff", "show", "--session", SID)
    _cli(project, "decide", "Parse ISO week dates", "--decision", "Accept 2026-W09-1.")
    _cli(project, "recall", "date parser")
    return transcript


def test_every_folder_and_file_of_a_whole_session_is_private(
    git_project: Path, isolated_home: Path
) -> None:
    run_full_session(git_project, isolated_home)
    tops = {
        ".ccstate": git_project / ".ccstate",
        "~/.cache/ccstate": isolated_home / ".cache" / "ccstate",
    }
    modes, wrong = {}, {}
    for label, top in tops.items():
        for path in [top, *top.rglob("*")] if top.exists() else []:
            name = f"{label}/{path.relative_to(top)}".removesuffix("/.")
            mode = modes[name] = stat.S_IMODE(path.lstat().st_mode)
            if mode != (0o700 if path.is_dir() else 0o600):
                wrong[name] = oct(mode)
    # the session went through every writer: the walk saw what it must see
    folders = {name.split("/")[1] for name in modes if name.startswith(".ccstate/")}
    assert {"ledger", "handoff", "out", "recall", "heartbeat", "logs"} <= folders, sorted(modes)
    assert any(name.endswith(".sqlite") for name in modes), sorted(modes)
    assert f".ccstate/cache/kept/{SID}.json" in modes, sorted(modes)  # the Stop hook's counter
    assert wrong == {}
