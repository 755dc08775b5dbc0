"""The hook guard, run the way Claude Code runs it: a subprocess with JSON on stdin."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ccstate import hookio
from ccstate.hooks.__main__ import HANDLERS
from helpers import REPO, hook_env, make_payload, read_payload, run_hook

# Keys Claude Code 2.1.328 accepts at the top level of a hook's JSON output.
ALLOWED_TOP = {"continue", "stopReason", "suppressOutput", "systemMessage", "hookSpecificOutput"}
HOT = ("PostToolUse", "PreModelSwitch")
BANNED = ("click", "rich", "git", "tiktoken", "yaml", "filelock")
# Standard-library modules that cost a hot hook a large share of its budget
# (python -X importtime; docs/BENCHMARKS.md): use os.path, plain classes, os.open.
SLOW_STDLIB = ("pathlib", "dataclasses", "typing", "tempfile", "inspect")
# ... and on a Read and on a call with nothing to do, json and re too (#14): `import json`
# brings `re` with it, about half a bare interpreter's start (ccstate.fastjson).
LEAN = ("json", "re")


def sample_payload(event: str, project: Path) -> dict:
    target = project / "app.py"
    if event == "PostToolUse":
        return read_payload(project, target, target.read_text())
    extra = {"SessionStart": {"source": "startup"}, "SessionEnd": {"reason": "other"}}
    extra["PreCompact"] = {"trigger": "manual", "custom_instructions": None}
    extra["PostCompact"] = {"trigger": "manual", "compact_summary": "<summary>s</summary>"}
    extra["UserPromptSubmit"] = {"prompt": "go on"}
    extra["PreModelSwitch"] = {
        "prompt_id": "p-1",
        "from_model": "claude-opus-5-5",
        "to_model": "claude-sonnet-5-5",
        "requested_model": "sonnet",
        "source": "command",
        "context_tokens": 217_000,
        "prompt_cache_warm": True,
        "cache_ttl": "5m",
        "estimated_cache_write_usd": 0.54,
        "pricing": "catalog",
    }
    extra["Stop"] = {"stop_hook_active": False, "last_assistant_message": "done"}
    return make_payload(event, project, **extra[event])


def test_every_event_has_handler_renderer_and_payload() -> None:
    assert set(HANDLERS) == set(hookio.EVENTS) == set(hookio._RENDERERS)
    for module in HANDLERS.values():
        path = REPO / "src" / (module.replace(".", "/") + ".py")
        assert path.exists(), path


@pytest.mark.parametrize("event", hookio.EVENTS)
def test_happy_path_exit_0_and_at_most_one_json_object(event: str, git_project: Path) -> None:
    code, parsed, raw, err = run_hook(event, sample_payload(event, git_project), cwd=git_project)
    assert (code, err) == (0, "")
    if raw:
        assert parsed is not None and set(parsed) <= ALLOWED_TOP
        assert raw.count("\n") == 0
    beat_path = git_project / ".ccstate" / "heartbeat" / f"{event}.json"
    if event == "UserPromptSubmit":  # no compaction reminder waits: exits before any state
        assert raw == "" and not beat_path.exists()
        return
    beat = json.loads(beat_path.read_text())
    assert beat["event"] == event and beat["outcome"] in ("ok", "output")


@pytest.mark.parametrize("event", hookio.EVENTS)
@pytest.mark.parametrize("stdin", ["", "garbage", "[]", '{"session_id": 1}'])
def test_garbage_in_exit_0_nothing_out_logged(event: str, stdin: str, git_project: Path) -> None:
    code, _, raw, err = run_hook(event, stdin, cwd=git_project)
    assert (code, raw, err) == (0, "", "")
    log = (git_project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert re.search(rf"ccstate \S+ {event} failed: PayloadError: ", log)
    assert "Traceback (most recent call last)" in log
    beat = json.loads((git_project / ".ccstate" / "heartbeat" / f"{event}.json").read_text())
    assert beat["outcome"] == "error: PayloadError"


def test_unknown_event_is_logged_not_fatal(git_project: Path) -> None:
    payload = make_payload("Notification", git_project)
    code, _, raw, _ = run_hook("../../etc/x", payload, cwd=git_project)
    assert (code, raw) == (0, "")
    assert "unknown hook event" in (git_project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert (git_project / ".ccstate" / "heartbeat" / "unknown.json").exists()


def test_state_dir_that_is_a_file_fails_open(git_project: Path) -> None:
    (git_project / ".ccstate").write_text("not a directory")
    payload = sample_payload("SessionStart", git_project)
    assert run_hook("SessionStart", payload, cwd=git_project)[:3] == (0, None, "")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to read-only directories")
def test_read_only_state_dir_fails_open(git_project: Path) -> None:
    state = git_project / ".ccstate"
    state.mkdir()
    state.chmod(0o500)
    try:
        code, _, raw, _ = run_hook("SessionStart", "garbage", cwd=git_project)
        assert (code, raw) == (0, "")
    finally:
        state.chmod(0o700)


def test_corrupt_config_cache_and_bad_config_fall_back_to_defaults(git_project: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("capsule: [oops\n")
    (git_project / "DECISIONS.md").write_text("# Decisions\n\n## D1: Use spaces\n")  # a capsule
    cache = git_project / ".ccstate" / "cache" / "config.json"
    cache.parent.mkdir(parents=True)
    cache.write_text("{corrupt")
    code, parsed, _, _ = run_hook(
        "SessionStart", sample_payload("SessionStart", git_project), cwd=git_project
    )
    assert code == 0
    assert parsed["hookSpecificOutput"]["additionalContext"].startswith("[ccstate] project state")
    log = (git_project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert "config warning:" in log and "is not valid YAML" in log


def test_log_is_size_bounded(git_project: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("log:\n  max_bytes: 4096\n")
    for _ in range(6):
        run_hook("PostToolUse", "x" * 3000, cwd=git_project)
    logs = git_project / ".ccstate" / "logs"
    assert (logs / "hooks.log").stat().st_size <= 4096
    assert (logs / "hooks.log.1").exists()


def _imported(importtime_stderr: str) -> set[str]:
    """Top-level package names in `python -X importtime` output."""
    lines = importtime_stderr.splitlines()
    return {line.split("|")[-1].strip().split(".")[0] for line in lines if "|" in line}


@pytest.fixture
def interpreter_baseline() -> set[str]:
    """What this interpreter imports for `-c pass` (site, .pth files): not the hook's doing."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"],
        capture_output=True,
        text=True,
        env=hook_env(),
    )
    return _imported(proc.stderr)


def _edit_payload(project: Path) -> dict:
    edit = {"file_path": str(project / "app.py"), "old_string": "a", "new_string": "b"}
    response = {"filePath": edit["file_path"], "oldString": "a", "newString": "b"}
    return make_payload(
        "PostToolUse", project, tool_name="Edit", tool_input=edit, tool_response=response
    )


def _glob_payload(project: Path) -> dict:
    names = [str(project / f"src/m{i}.py") for i in range(10)]
    response = {"filenames": names, "durationMs": 3, "numFiles": 10, "truncated": False}
    return make_payload(
        "PostToolUse",
        project,
        tool_name="Glob",
        tool_input={"pattern": "src/*.py"},
        tool_response=response,
    )


def _write_payload(project: Path) -> dict:
    path = project / "new.py"
    path.write_text("x = 1\n")
    write = {"file_path": str(path), "content": "x = 1\n"}
    response = {"type": "create", "filePath": str(path), "content": "x = 1\n", "originalFile": None}
    return make_payload(
        "PostToolUse", project, tool_name="Write", tool_input=write, tool_response=response
    )


# Decided from the payload alone (#14). A Glob of ten long paths (over the least
# `outputs.min_chars`) loads the config to compare with it, but imports no more.
NOTHING_TO_DO = ("Bash ls",)


@pytest.mark.parametrize(
    "kind", ["Read", "Edit of a .py file", "Write of a .py file", "Glob of ten files", "Bash ls"]
)
def test_hot_hooks_import_only_the_standard_library(
    kind: str, git_project: Path, interpreter_baseline: set[str]
) -> None:
    argv = [sys.executable, "-X", "importtime", "-m", "ccstate.hooks", "PostToolUse"]
    (git_project / ".ccstate.yaml").write_text("dedupe:\n  enabled: true\n")
    # First run may parse the YAML to refresh the cache; SessionStart normally does that.
    run_hook("SessionStart", sample_payload("SessionStart", git_project), cwd=git_project)
    payloads = {
        "Read": sample_payload("PostToolUse", git_project),
        "Edit of a .py file": _edit_payload(git_project),
        "Write of a .py file": _write_payload(git_project),
        "Bash ls": _bash_payload(git_project, "ls", "app.py\nREADME.md\n"),
        "Glob of ten files": _glob_payload(git_project),
    }
    code, _, _, err = run_hook("PostToolUse", payloads[kind], cwd=git_project, argv=argv)
    assert code == 0
    imported = _imported(err) - interpreter_baseline
    assert "ccstate" in imported  # the measurement works
    assert imported.isdisjoint(BANNED), imported & set(BANNED)
    slow = imported & {*SLOW_STDLIB, *LEAN}
    assert not slow, f"hot hook imports {slow}: each costs milliseconds on every tool call"
    modules = {line.split("|")[-1].strip() for line in err.splitlines() if "|" in line}
    if kind in NOTHING_TO_DO:  # no config, state, ledger or heartbeat (#14)
        assert not {"ccstate.ledger.store", "ccstate.outputs.core"} & modules
        assert not (git_project / ".ccstate" / "heartbeat" / "PostToolUse.json").exists()


def test_model_switch_hook_imports_only_the_lean_standard_library(
    git_project: Path, interpreter_baseline: set[str]
) -> None:
    argv = [sys.executable, "-X", "importtime", "-m", "ccstate.hooks", "PreModelSwitch"]
    payload = sample_payload("PreModelSwitch", git_project)
    code, parsed, _, err = run_hook("PreModelSwitch", payload, cwd=git_project, argv=argv)
    assert code == 0 and "systemMessage" in parsed  # the warning path ran
    imported = _imported(err) - interpreter_baseline
    assert "ccstate" in imported
    assert imported.isdisjoint(BANNED), imported & set(BANNED)
    slow = imported & {*SLOW_STDLIB, *LEAN}
    assert not slow, f"PreModelSwitch imports {slow}"


def test_status_line_imports_only_the_lean_standard_library(
    git_project: Path, interpreter_baseline: set[str]
) -> None:
    """It runs after every assistant message (#25): no json, re, pathlib, argparse..."""
    payload = {
        "session_id": "s",
        "cwd": str(git_project),
        "transcript_path": str(git_project / "t.jsonl"),
        "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
        "context_window": {"used_percentage": 3, "total_input_tokens": 30_000},
        "prompt_cache": {"warm": False, "caching_observed": True, "expires_at": 1, "ttl": "5m"},
    }
    (git_project / ".ccstate.yaml").write_text("moments:\n  statusline:\n    enabled: true\n")
    run_hook("SessionStart", sample_payload("SessionStart", git_project), cwd=git_project)
    argv = [sys.executable, "-X", "importtime", "-m", "ccstate.moments.statusline"]
    code, _, out, err = run_hook("", payload, cwd=git_project, argv=argv)
    assert code == 0 and out.startswith("cache cold")
    imported = _imported(err) - interpreter_baseline
    assert "ccstate" in imported
    assert imported.isdisjoint({*BANNED, *SLOW_STDLIB, *LEAN, "argparse", "datetime"}), imported


def test_a_retired_event_exits_at_once(git_project: Path) -> None:
    """PreToolUse is registered no more (#14); a project whose settings still run it (an older
    `ccstate init` committed by a teammate) gets exit 0, no output, nothing written."""
    payload = make_payload(
        "PreToolUse", git_project, tool_name="Read", tool_input={"file_path": "app.py"}
    )
    assert run_hook("PreToolUse", payload, cwd=git_project) == (0, None, "", "")
    assert not (git_project / ".ccstate").exists()


@pytest.mark.parametrize("event", HOT)
def test_plugin_launcher_hot_path_imports_only_the_standard_library(
    event: str, git_project: Path, interpreter_baseline: set[str]
) -> None:
    argv = [sys.executable, "-X", "importtime", str(REPO / "hooks" / "run.py"), event]
    env = hook_env(CLAUDE_PLUGIN_ROOT=str(REPO), CLAUDE_PLUGIN_DATA=str(git_project / "pdata"))
    env.pop("PYTHONPATH")
    code, _, _, err = run_hook(
        event, sample_payload(event, git_project), cwd=git_project, env=env, argv=argv
    )
    assert code == 0
    imported = _imported(err) - interpreter_baseline
    assert "ccstate" in imported
    assert imported.isdisjoint(BANNED), imported & set(BANNED)
    slow = imported & set(SLOW_STDLIB)
    assert not slow, f"hot hook imports {slow}: each costs milliseconds on every tool call"
    assert (git_project / ".ccstate" / "heartbeat" / f"{event}.json").exists()


def _bash_payload(project: Path, command: str, stdout: str) -> dict:
    response = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
    return make_payload(
        "PostToolUse",
        project,
        tool_name="Bash",
        tool_input={"command": command},
        tool_use_id="toolu_rt",
        tool_response=response,
    )


@pytest.mark.parametrize("kind", ["digest", "shell read"])
def test_digest_and_shell_read_paths_import_only_the_standard_library(
    kind: str, git_project: Path, interpreter_baseline: set[str]
) -> None:
    if kind == "digest":
        stdout = (
            "\n".join(f" ✓ src/t.test.ts > case {i}" for i in range(300)) + "\nTests  300 passed"
        )
        payload = _bash_payload(git_project, "npm test", stdout)
    else:
        payload = _bash_payload(git_project, "cat app.py", (git_project / "app.py").read_text())
    argv = [sys.executable, "-X", "importtime", "-m", "ccstate.hooks", "PostToolUse"]
    code, parsed, _, err = run_hook("PostToolUse", payload, cwd=git_project, argv=argv)
    assert code == 0
    if kind == "digest":
        assert parsed is not None  # the digest path ran
    imported = _imported(err) - interpreter_baseline
    assert "ccstate" in imported
    assert imported.isdisjoint(BANNED), imported & set(BANNED)
    assert not imported & set(SLOW_STDLIB), imported & set(SLOW_STDLIB)
