"""`python -m ccstate.hooks <Event>`: the only code that touches the hook process.

Contract: event name in argv[1], payload JSON on stdin, at most one JSON
object (or PreCompact's plain text) on stdout, exit status always 0. Any
failure is appended to `<state>/logs/hooks.log` and the hook prints nothing.
"""

from __future__ import annotations

import os
import sys
import time

from ccstate import __version__, config, hookio, hooklog, paths, store
from ccstate.hooks import HookEnv, post_tool_use

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import TextIO

# event -> module path; only the module for the event that fired is imported.
HANDLERS: dict[str, str] = {
    "SessionStart": "ccstate.hooks.session_start",
    "SessionEnd": "ccstate.hooks.session_end",
    "PreCompact": "ccstate.hooks.pre_compact",
    "PostCompact": "ccstate.hooks.post_compact",
    "PostToolUse": "ccstate.hooks.post_tool_use",
    "UserPromptSubmit": "ccstate.hooks.user_prompt_submit",
    "PreModelSwitch": "ccstate.hooks.pre_model_switch",
    "Stop": "ccstate.hooks.stop",
}
# Events ccstate registered once and registers no more (#14): a project whose settings still
# run them (a teammate's older `ccstate init`) gets an exit 0 with nothing done or written.
RETIRED = frozenset({"PreToolUse"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run one hook. Always returns 0: a hook must never break a session."""
    args = list(sys.argv[1:] if argv is None else argv)
    event = args[0] if args else ""
    run(event, sys.stdin, sys.stdout, os.environ)
    return 0


def run(event: str, stdin: TextIO, stdout: TextIO, environ: Mapping[str, str]) -> None:
    started, begun = time.time(), time.monotonic()
    project = state = ""  # known once the payload is parsed; _fail guesses them before that
    text = ""
    try:
        text = stdin.read()
        if event in RETIRED:
            return
        if event not in HANDLERS:
            raise ValueError(f"unknown hook event {event!r}; expected one of {sorted(HANDLERS)}")
        inp = hookio.parse(event, text)
        if event in _WAITING and not _has_work(event, inp, environ):
            return  # decided from the payload and one stat: no config, state or heartbeat (#14)
        project = paths.find_project_root_str(environ.get("CLAUDE_PROJECT_DIR") or inp.cwd)
        state = paths.state_dir_str(project, environ)
        if paths.is_filesystem_root(project):
            return  # no project: nothing to remember, nowhere to write (#12)
        env = _make_env(project, state, started, environ, begun)
        name = HANDLERS[event]
        __import__(name)  # importlib.import_module, without importing importlib
        result = sys.modules[name].handle(inp, env)
        out = hookio.render(event, result)
        if out:
            stdout.write(out)
            stdout.flush()
        outcome = "output" if out else "ok"
        detail = {**result.detail, "python": sys.executable}
        if environ.get("CCSTATE_PLUGIN_VENV"):  # the plugin launcher ran it with the venv's
            detail["venv"] = environ["CCSTATE_PLUGIN_VENV"]  # packages, in its own process
        hooklog.write_heartbeat(state, event, outcome, now=started, detail=detail)
    except (Exception, KeyboardInterrupt) as exc:
        if not project:
            project = paths.find_project_root_str(_project_guess(environ))
            state = paths.state_dir_str(project, environ)
        _fail(project, state, event, exc, text, started)


_WAITING = frozenset({"PostToolUse", "UserPromptSubmit"})  # run at every tool call / prompt


def _has_work(event: str, inp: hookio.HookInput, environ: Mapping[str, str]) -> bool:
    """Work for this run of a hot event: the call itself needs ccstate (PostToolUse), or a
    compaction left a reminder for the session (one stat; #26)."""
    if event == "PostToolUse" and post_tool_use.has_work(inp, environ):
        return True
    return paths.reminder_waits(inp.session_id, environ)


def begin_epoch(event: str, text: str, environ: Mapping[str, str]) -> None:
    """PreCompact, SessionStart `compact` and `resume` end the read ledger's epoch; the plugin
    launcher does it here, in its own process, before a venv interpreter could fail (#12).
    Standard library only; never raises (the handler does it again and logs problems)."""
    try:
        inp = hookio.parse(event, text)
        from ccstate.ledger import lifecycle as ledger_lifecycle

        reason = ledger_lifecycle.epoch_reason(event, inp.source)
        if not reason:
            return
        project = paths.find_project_root_str(environ.get("CLAUDE_PROJECT_DIR") or inp.cwd)
        if paths.is_filesystem_root(project):
            return
        state = paths.state_dir_str(project, environ)
        ledger_lifecycle.start_session_epoch(state, inp.session_id, reason, now=time.time())
    except Exception:
        return


def note(event: str, text: str, environ: Mapping[str, str], line: str) -> None:
    """Append a launcher problem to the project's hook log (never raises)."""
    try:
        now = time.time()
        try:
            cwd = hookio.parse(event, text).cwd
        except hookio.PayloadError:
            cwd = _project_guess(environ)
        project = paths.find_project_root_str(environ.get("CLAUDE_PROJECT_DIR") or cwd)
        if paths.is_filesystem_root(project):
            return
        state = paths.state_dir_str(project, environ)
        from ccstate.secrets import redact

        line = redact.Redactor().redact(f"{event}: {line}; ran in-process")
        max_bytes = int(config.load_for_hook(project, state).get("log.max_bytes"))
        hooklog.append_log(state, line, max_bytes=max_bytes, now=now)
    except Exception:
        return


def _make_env(
    project: str, state: str, now: float, environ: Mapping[str, str], begun: float
) -> HookEnv:
    store.ensure_state_dir(state)
    cfg = config.env_overrides(config.load_for_hook(project, state), environ)
    max_bytes = int(cfg.get("log.max_bytes"))
    for warning in cfg.warnings:
        hooklog.append_log(state, f"config warning: {warning}", max_bytes=max_bytes, now=now)
    return HookEnv(
        project=project,
        state=state,
        config=cfg,
        now=now,
        plugin_root=environ.get("CLAUDE_PLUGIN_ROOT") or None,
        plugin_data=environ.get("CLAUDE_PLUGIN_DATA") or None,
        environ=dict(environ),
        begun=begun,
    )


def _fail(
    project: str, state: str, event: str, exc: BaseException, payload: str, now: float
) -> None:
    if paths.is_filesystem_root(project):
        return
    try:
        import traceback  # only failures pay for it

        max_bytes = int(config.load_for_hook(project, state).get("log.max_bytes"))
        line = f"ccstate {__version__} {event or '?'} failed: {type(exc).__name__}: {exc}"
        line, trace, head = _redacted(project, line, traceback.format_exc(), payload)
        details = trace + f"payload (first {hooklog.PAYLOAD_HEAD} chars): " + (head or "<empty>")
        hooklog.append_log(state, line, details=details, max_bytes=max_bytes, now=now)
        name = event if event in HANDLERS else "unknown"
        hooklog.write_heartbeat(state, name, f"error: {type(exc).__name__}", now=now)
    except Exception:
        pass  # nothing may escape the guard


def _redacted(project: str, line: str, trace: str, payload: str) -> tuple[str, str, str]:
    """The log must not keep secrets from a payload (#4): redact first, then cut to the head."""
    from pathlib import Path

    from ccstate.secrets import redact

    try:
        redactor = redact.for_project(Path(project))
        head = redactor.before_cut(payload, head=hooklog.PAYLOAD_HEAD)[: hooklog.PAYLOAD_HEAD]
        return redactor.redact(line), redactor.redact(trace), head
    except Exception:  # e.g. an unreadable .env: keep the error, withhold the payload
        return line, trace, "<withheld: redaction failed>"


def _project_guess(environ: Mapping[str, str]) -> str:
    """Where to log before the payload is parsed: Claude Code runs hooks in the project dir."""
    try:
        return environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    except OSError:
        return "."


if __name__ == "__main__":
    sys.exit(main())
