"""PostToolUse: Read goes to the read ledger (#3); edits of instruction files to the lint (#6)."""

from __future__ import annotations

from ccstate.hookio import HookResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ccstate.hookio import HookInput
    from ccstate.hooks import HookEnv

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    detail = describe(inp)
    if inp.tool_name == "Read":
        return _on_read(inp, env, detail)
    if inp.tool_name in EDIT_TOOLS:
        return _on_edit(inp, env, detail)
    if inp.tool_name == "Bash":
        return _on_bash(inp, env, detail)
    return HookResult.noop(**detail)


def _on_read(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> HookResult:
    """The read ledger (docs/LEDGER.md): full content unless this context provably has it."""
    from ccstate.errors import StateError
    from ccstate.ledger import core as ledger
    from ccstate.ledger import store as ledger_store
    from ccstate.ledger import witness

    opts = ledger.Options.from_config(env.config)
    read = ledger.read_event(inp.tool_input, inp.tool_response, inp.cwd, inp.tool_use_id or "")
    if not opts.enabled or not read.path:
        return HookResult.noop(**detail, ledger="off" if not opts.enabled else read.skip)
    if not _context_known(inp):
        return HookResult.noop(**detail, ledger="full", ledger_reason="unknown context")
    transcript = witness.transcript_for(inp.transcript_path, inp.session_id, inp.agent_id)
    pid = env.environ.get("CLAUDE_PID", "")
    try:
        with ledger_store.open_context(
            env.state,
            inp.session_id,
            inp.agent_id,
            now=env.now,
            verify=True,
            transcript=transcript,
            pid=pid,
        ) as ctx:
            decision = ledger.decide(ctx.ledger, read, ctx.load, opts)
            cached = ctx.ledger.files.get(read.path)
            sha, stamp = ledger_store.file_sha(read.path, cached) if not read.skip else ("", None)
            ctx.ledger = ledger.record(ctx.ledger, read, decision, sha, stamp)
            got = ledger.delivered(read, decision)
            if got is not None:
                ctx.keep(got[2])
    except StateError as exc:
        _log(env, f"read ledger: {exc}; the Read was served in full")
        return HookResult.noop(**detail, ledger="full", ledger_reason="ledger locked")
    for problem in ctx.problems:
        _log(env, f"read ledger: {problem}")
    if ctx.reset:
        _log(env, f"read ledger: new epoch ({ctx.reset})")
        detail["ledger_epoch"] = ctx.reset
    detail.update(ledger=decision.kind, ledger_reason=decision.reason)
    if not decision.replaced:
        return HookResult.noop(**detail)
    return HookResult(
        updated_tool_output=ledger.read_output(inp.tool_response, decision),
        additional_context=decision.context or None,
        detail=detail,
    )


def _on_bash(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> HookResult:
    """Count `cat`/`head`/`sed -n` re-prints of lines this context already holds (never altered)."""
    from ccstate.ledger import core as ledger
    from ccstate.ledger import reprint
    from ccstate.ledger import store as ledger_store

    command, response = inp.tool_input.get("command"), inp.tool_response
    target = reprint.parse_command(command, inp.cwd) if isinstance(command, str) else None
    output = response.get("stdout") if isinstance(response, dict) else None
    if target is None or not isinstance(output, str) or not env.config.get("dedupe.enabled"):
        return HookResult.noop(**detail)
    if not _context_known(inp):
        return HookResult.noop(**detail)
    with ledger_store.open_context(env.state, inp.session_id, inp.agent_id, now=env.now) as ctx:
        if reprint.is_known_output(ctx.ledger, target, output, ctx.load):
            ctx.ledger = ledger.bump(ctx.ledger, bash_reprints=1, bash_reprint_chars=len(output))
            detail["bash_reprint"] = target[0]
    return HookResult.noop(**detail)


def _context_known(inp: HookInput) -> bool:
    """An `agent_id` that is there but not a non-empty string names no context we can key:
    its Reads must not be filed under the main thread (serve in full, record nothing)."""
    return "agent_id" not in inp.raw or bool(inp.agent_id)


def _log(env: HookEnv, line: str) -> None:
    from ccstate import hooklog

    hooklog.append_log(env.state, line, max_bytes=int(env.config.get("log.max_bytes")), now=env.now)


def _on_edit(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> HookResult:
    """CLAUDE.md lint (docs/CLAUDE-MD.md): one line when an edit breaks the budget or imports."""
    path = inp.tool_input.get("file_path")
    if not isinstance(path, str) or not path.endswith(".md"):  # every other edit stops here
        return HookResult.noop(**detail)
    if path.rsplit("/", 1)[-1] not in _INSTRUCTION_NAMES and "/.claude/rules/" not in path:
        return HookResult.noop(**detail)
    from ccstate.instructions import edit_check as claude_md_edit

    line = claude_md_edit.check_edit(
        env.project, env.state, env.config, env.environ, path, inp.tool_input
    )
    lint = {"file_path": path, "lint": "warned" if line else "ok"}
    return HookResult(additional_context=line or None, detail={**detail, **lint})


_INSTRUCTION_NAMES = ("CLAUDE.md", "CLAUDE.local.md")


def describe(inp: HookInput) -> dict[str, Any]:
    """The fields the handlers rely on, as seen in this payload (for the heartbeat)."""
    detail: dict[str, Any] = {"tool_name": inp.tool_name, "tool_use_id": inp.tool_use_id}
    if inp.agent_id:
        detail["agent_id"] = inp.agent_id
    response = inp.tool_response
    if inp.tool_name == "Read" and isinstance(response, dict):
        raw_file = response.get("file")
        file: dict[str, Any] = raw_file if isinstance(raw_file, dict) else {}
        detail.update(
            file_path=inp.tool_input.get("file_path"),
            response_type=response.get("type"),
            start_line=file.get("startLine"),
            num_lines=file.get("numLines"),
            total_lines=file.get("totalLines"),
            content_chars=len(file["content"]) if isinstance(file.get("content"), str) else None,
        )
    return detail
