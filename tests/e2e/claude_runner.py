"""Run the real `claude` CLI against the fake API, hermetically (reference §7)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ccstate.install.wiring import TESTED_CLAUDE

# The version scripts (bench/ab.py, bench/bench_ledger_e2e.py) run: the oldest supported.
# The e2e suite runs on every version in TESTED_CLAUDE (tests/e2e/conftest.py).
CLAUDE_VERSION = TESTED_CLAUDE[0]
ALLOWED_TOOLS = "Read Edit Write Bash Agent"
PACKAGE = "@anthropic-ai/claude-code"
# Names dropped from the inherited environment: they would point claude at the real account,
# config or a parent Claude Code session (CLAUDECODE=1 when pytest runs inside Claude Code).
_DROPPED_PREFIXES = ("ANTHROPIC_", "CLAUDE", "XDG_", "OTEL_")


class ClaudeRun(tuple[subprocess.CompletedProcess[str], dict[str, Any] | None]):
    """``(proc, result)`` from one ``claude -p`` run; also knows its debug log."""

    debug_log: Path

    def __new__(
        cls, proc: subprocess.CompletedProcess[str], result: dict[str, Any] | None, debug_log: Path
    ) -> ClaudeRun:
        self = super().__new__(cls, (proc, result))
        self.debug_log = debug_log
        return self

    @property
    def proc(self) -> subprocess.CompletedProcess[str]:
        return self[0]

    @property
    def result(self) -> dict[str, Any] | None:
        return self[1]

    def debug_tail(self, lines: int = 60) -> str:
        return tail(self.debug_log, lines)

    def describe(self, lines: int = 60) -> str:
        """Exit code, stdout, stderr and the debug-log tail, for failure messages."""
        return (
            f"claude exited {self.proc.returncode}; args={self.proc.args!r}\n"
            f"--- stdout ---\n{self.proc.stdout[-4000:]}\n"
            f"--- stderr ---\n{self.proc.stderr[-4000:]}\n"
            f"--- debug log tail ({self.debug_log}) ---\n{self.debug_tail(lines)}"
        )


def tail(path: Path, lines: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as exc:
        return f"<no debug log: {exc}>"


def claude_env(
    home: Path, api_url: str, env_extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The inherited environment minus claude/XDG settings, plus the offline settings. The
    test interpreter's bin dir (its `ccstate-hook`) leads PATH, as install.sh's link does for
    a user, however pytest was started."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_PREFIXES)}
    env.update(
        PATH=os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", os.defpath)]),
        HOME=str(home),
        ANTHROPIC_BASE_URL=api_url,
        ANTHROPIC_API_KEY="test-key",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
        # The code index's detached worker (#41) outlives the session by design: a test that
        # then removes or copies `.ccstate/` would race it. On only where a test asks for it
        # (tests/e2e/test_find.py).
        CCSTATE_FIND="0",
    )
    env.update(env_extra or {})
    return env


def next_debug_log(home: Path) -> Path:
    """A fresh ``<home>/.e2e-debug/run-NNN.log`` (one per run, so resumed runs keep theirs)."""
    logs = home / ".e2e-debug"
    logs.mkdir(parents=True, exist_ok=True)
    return logs / f"run-{len(list(logs.glob('run-*.log'))) + 1:03d}.log"


def claude_args(
    claude_bin: Path | str,
    prompt: str,
    *,
    debug_log: Path,
    plugin_dir: Path | str | None = None,
    resume: str | None = None,
    extra_args: Sequence[str] = (),
) -> list[str]:
    args = [str(claude_bin), "-p", prompt, "--output-format", "json"]
    args += ["--allowedTools", ALLOWED_TOOLS, "--debug-file", str(debug_log)]
    if plugin_dir is not None:
        args += ["--plugin-dir", str(plugin_dir)]
    if resume is not None:
        args += ["--resume", resume]
    return [*args, *extra_args]


def parse_result(stdout: str) -> dict[str, Any] | None:
    """The ``--output-format json`` result object, or None if stdout holds none."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def run_claude(
    claude_bin: Path | str,
    prompt: str,
    *,
    cwd: Path | str,
    home: Path | str,
    api_url: str,
    plugin_dir: Path | str | None = None,
    extra_args: Sequence[str] = (),
    resume: str | None = None,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = 180,
    debug_log: Path | None = None,
) -> ClaudeRun:
    """Run ``claude -p prompt --output-format json`` once; return ``(proc, result)``.

    A non-zero exit or missing JSON result prints the debug-log tail (pytest shows it on
    failure); it does not raise, so tests can assert on failures too.
    """
    home = Path(home)
    debug_log = debug_log or next_debug_log(home)
    args = claude_args(
        claude_bin,
        prompt,
        debug_log=debug_log,
        plugin_dir=plugin_dir,
        resume=resume,
        extra_args=extra_args,
    )
    proc = subprocess.run(
        args,
        cwd=cwd,
        env=claude_env(home, api_url, env_extra),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    wait_for_detached_hooks(home)
    run = ClaudeRun(proc, parse_result(proc.stdout), debug_log)
    if proc.returncode != 0 or run.result is None:
        print(run.describe())
    return run


def detached_hooks(home: Path | str) -> list[int]:
    """Pids of the plugin launcher's detached copies (`run.py SessionEnd --detached`, started
    with this HOME) still running: they outlive the `claude` process on purpose."""
    want = f"HOME={home}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if b"--detached" not in argv or not any(a.endswith(b"run.py") for a in argv):
                continue
            if want in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def wait_for_detached_hooks(home: Path | str, timeout: float = 60) -> None:
    """Wait until the detached SessionEnd work of this HOME's sessions is done, as a user's
    next session would a moment later; a test then sees the handoff and recall index."""
    deadline = time.monotonic() + timeout
    while detached_hooks(home):
        if time.monotonic() > deadline:
            raise AssertionError(f"detached hooks still running after {timeout} s: {home}")
        time.sleep(0.05)


def project_slug(cwd: Path | str) -> str:
    """Claude Code's per-project directory name (reference §4; paths over 200 chars differ)."""
    return re.sub(r"[^a-zA-Z0-9]", "-", str(Path(cwd).resolve()))


def transcript_path(home: Path | str, cwd: Path | str, session_id: str) -> Path:
    """``<home>/.claude/projects/<slug>/<session_id>.jsonl``."""
    return Path(home) / ".claude" / "projects" / project_slug(cwd) / f"{session_id}.jsonl"


def read_transcript(path: Path) -> list[dict[str, Any]]:
    """The JSONL records of a transcript, in file order."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_plugin(
    root: Path, name: str, hooks: Mapping[str, Any] | None = None, **manifest: Any
) -> Path:
    """Write a throwaway plugin (``.claude-plugin/plugin.json`` + ``hooks/hooks.json``)."""
    (root / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    meta = {"name": name, "version": "0.0.1", "description": "e2e test plugin", **manifest}
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(meta, indent=2))
    if hooks is not None:
        (root / "hooks").mkdir(exist_ok=True)
        (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=2))
    return root


def command_hook(command: str, matcher: str | None = None, timeout: int = 30) -> dict[str, Any]:
    """One matcher group with a single ``type:"command"`` hook."""
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, "timeout": timeout}]}
    if matcher is not None:
        group["matcher"] = matcher
    return group


def run_claude_turns(
    claude_bin: Path | str,
    prompts: Sequence[str],
    *,
    cwd: Path | str,
    home: Path | str,
    api_url: str,
    plugin_dir: Path | str | None = None,
    resume: str | None = None,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = 180,
    between: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """Several user turns in ONE `claude -p` process (`--input-format stream-json`), each
    sent after the previous turn's result: a multi-turn session without a resume.
    `between(i)` runs just before prompt i is sent. Returns the `result` event of each turn
    (raises AssertionError with the debug log if one is missing)."""
    home = Path(home)
    debug_log = next_debug_log(home)
    args = [str(claude_bin), "-p", "--input-format", "stream-json"]
    args += ["--output-format", "stream-json", "--verbose"]
    args += ["--allowedTools", ALLOWED_TOOLS, "--debug-file", str(debug_log)]
    if plugin_dir is not None:
        args += ["--plugin-dir", str(plugin_dir)]
    if resume is not None:
        args += ["--resume", resume]
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=claude_env(home, api_url, env_extra),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    results: list[dict[str, Any]] = []
    watchdog = threading.Timer(timeout, proc.kill)  # a hung CLI ends the read loop below
    watchdog.start()
    try:
        for index, prompt in enumerate(prompts):
            if between is not None:
                between(index)
            message = {"role": "user", "content": prompt}
            proc.stdin.write(json.dumps({"type": "user", "message": message}) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                event = json.loads(line) if line.strip().startswith("{") else {}
                if event.get("type") == "result":
                    results.append(event)
                    break
            else:
                break
        proc.stdin.close()
        proc.wait(timeout=timeout)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    wait_for_detached_hooks(home)
    if len(results) != len(prompts):
        raise AssertionError(
            f"{len(results)} of {len(prompts)} turns finished; claude exited {proc.returncode}\n"
            f"{tail(debug_log)}"
        )
    return results


PLUGIN_DATA_NAME = "ccstate-inline"  # ${CLAUDE_PLUGIN_DATA} of a --plugin-dir plugin named ccstate


def provision_plugin_runtime(home: Path, plugin_root: Path) -> None:
    """Give the ccstate plugin at `plugin_root` a ready 'venv' (this interpreter) under
    `home`, so its hooks run with every dependency and no pip build runs mid-test."""
    from ccstate.install import bootstrap

    data = home / ".claude" / "plugins" / "data" / PLUGIN_DATA_NAME
    python = data / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True, exist_ok=True)
    python.symlink_to(sys.executable)
    marker = {"fingerprint": bootstrap.fingerprint(plugin_root), "python": str(python)}
    (data / "venv.ready.json").write_text(json.dumps(marker))
