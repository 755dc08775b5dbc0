"""PostToolUse: Read goes to the read ledger (#3), and so do the context's own Writes and Edits
(what it holds of the file after them, #24); every edited path is noted for the code index
(#41); edits of instruction files to the lint (#6); a
shell read of one file (`cat F`, `sed -n 'a,bp' F`) to the ledger too, and any other bulky
Bash, Grep, Glob, WebFetch or MCP result gets a digest (#15, docs/OUTPUTS.md)."""

from __future__ import annotations

from ccstate import hookio
from ccstate.hookio import HookResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ccstate.hookio import HookInput
    from ccstate.hooks import HookEnv
    from ccstate.ledger import shell
    from ccstate.ledger.records import Decision, Options, ReadEvent

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
WRITE_TOOLS = frozenset({"Edit", "MultiEdit", "Write"})  # what the ledger models (ledger/writes.py)
OUTPUT_TOOLS = frozenset({"Grep", "Glob", "WebFetch"})  # and every mcp__ tool
_INSTRUCTION_NAMES = ("CLAUDE.md", "CLAUDE.local.md")


def has_work(inp: HookInput, environ: Mapping[str, str]) -> bool:
    """False when this call certainly needs nothing from ccstate, decided from the payload and
    the environment alone, before the config, the state dir or the handler's modules are
    loaded (#14): a small output that is no shell read, a Read with CCSTATE_DEDUPE=0. Every
    Write, Edit, MultiEdit and NotebookEdit has work: its path is noted for the code index.
    True when `handle` has to look."""
    from ccstate.config import is_switched_off, least

    name = inp.tool_name or ""
    if name == "Read":
        return not is_switched_off(environ, "CCSTATE_DEDUPE")
    if name in EDIT_TOOLS:
        return True  # the code index notes the path (#41), whatever else is switched off
    if name == "Bash" and _may_be_shell_read(inp.tool_input.get("command")):
        return not is_switched_off(environ, "CCSTATE_DEDUPE")
    if name != "Bash" and name not in OUTPUT_TOOLS and not name.startswith("mcp__"):
        return False
    if is_switched_off(environ, "CCSTATE_DIGEST"):
        return False
    got = hookio.output_text(name, inp.tool_response)
    # no result under the least `outputs.min_chars` may be gets a digest, whatever the config
    return got is not None and (bool(got[1]) or len(got[0]) >= least("outputs.min_chars"))


def _may_be_shell_read(command: Any) -> bool:
    from ccstate.ledger import shell

    return isinstance(command, str) and shell.starts_like_a_read(command)


def _is_instruction_file(path: Any) -> bool:
    """CLAUDE.md, CLAUDE.local.md or a rule under .claude/rules/: the edits the lint checks."""
    if not isinstance(path, str) or not path.endswith(".md"):
        return False
    return path.rsplit("/", 1)[-1] in _INSTRUCTION_NAMES or "/.claude/rules/" in path


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    result = _handle(inp, env)
    if inp.agent_id or "agent_id" in inp.raw:
        return result  # a compaction's reminder is for the main thread's model
    from ccstate import paths

    if paths.reminder_waits(inp.session_id, env.environ):  # one stat (#26)
        from ccstate.compaction import pending

        line = pending.deliver(inp.session_id, env.environ, "PostToolUse")
        if line:
            result.additional_context = (
                f"{result.additional_context}\n\n{line}" if result.additional_context else line
            )
    return result


def _handle(inp: HookInput, env: HookEnv) -> HookResult:
    detail = describe(inp)
    name = inp.tool_name or ""
    if name == "Read":
        return _on_read(inp, env, detail)
    if name in EDIT_TOOLS:
        return _on_edit(inp, env, detail)
    if name == "Bash":
        return _on_bash(inp, env, detail)
    if name in OUTPUT_TOOLS or name.startswith("mcp__"):
        return _on_output(inp, env, detail)
    return HookResult.noop(**detail)


def _on_read(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> HookResult:
    """The read ledger (docs/LEDGER.md): full content unless this context provably has it."""
    from ccstate.ledger import core as ledger

    opts = ledger.Options.from_config(env.config)
    read = ledger.read_event(inp.tool_input, inp.tool_response, inp.cwd, inp.tool_use_id or "")
    if not opts.enabled or not read.path:
        return HookResult.noop(**detail, ledger="off" if not opts.enabled else read.skip)
    decision = _answer(inp, env, read, opts, detail)
    detail.update(ledger=decision.kind, ledger_reason=decision.reason)
    if not decision.replaced:
        return HookResult.noop(**detail)
    return hookio.read_result(
        inp.tool_response,
        decision.content,
        start_line=decision.start_line,
        num_lines=decision.num_lines,
        additional_context=decision.context or None,
        detail=detail,
    )


def _answer(
    inp: HookInput, env: HookEnv, read: ReadEvent, opts: Options, detail: dict[str, Any]
) -> Decision:
    """The ledger's answer to a Read or shell read, recorded in this context's ledger. Full
    content when the context is unknown, the ledger stays locked, or a witness says the epoch
    ended (docs/RELIABILITY.md); a new epoch goes into `detail`."""
    from ccstate.errors import StateError
    from ccstate.ledger import core as ledger
    from ccstate.ledger import store as ledger_store

    what = "shell read" if read.command else "Read"
    if not _context_known(inp):
        return ledger.Decision("full", "unknown context")
    try:
        with _open_context(inp, env) as ctx:
            decision = ledger.decide(ctx.ledger, read, ctx.load, opts, ctx.kept)
            cached = ctx.ledger.files.get(read.path)
            sha, stamp = ledger_store.file_sha(read.path, cached) if not read.skip else ("", None)
            ctx.ledger = ledger.record(ctx.ledger, read, decision, sha, stamp)
            got = ledger.delivered(read, decision)
            if got is not None:
                ctx.keep(got[2], read.sha if decision.kind == "full" else "")
    except StateError as exc:
        _log(env, f"read ledger: {exc}; the {what} was served in full")
        return ledger.Decision("full", "ledger locked")
    for problem in ctx.problems:
        _log(env, f"read ledger: {problem}")
    if ctx.reset:
        _log(env, f"read ledger: new epoch ({ctx.reset})")
        detail["ledger_epoch"] = ctx.reset
    return decision


def _open_context(inp: HookInput, env: HookEnv) -> Any:
    """This context's ledger, locked, its epoch checked by the witnesses (docs/RELIABILITY.md)."""
    from ccstate.ledger import store as ledger_store
    from ccstate.ledger import witness

    return ledger_store.open_context(
        env.state,
        inp.session_id,
        inp.agent_id,
        now=env.now,
        verify=True,
        transcript=witness.transcript_for(inp.transcript_path, inp.session_id, inp.agent_id),
        pid=env.environ.get("CLAUDE_PID", ""),
        store_max_bytes=int(env.config.get("dedupe.store_max_mb")) << 20,
    )


def _on_shell_read(
    inp: HookInput, env: HookEnv, detail: dict[str, Any], target: shell.Target
) -> HookResult:
    """`cat F` and the like (ledger/shell.py): the delivered lines are recorded as a Read's;
    an identical repeat of text this context holds becomes the Read notice, as Bash output.
    Never a digest: the model asked for the file's text."""
    from ccstate.ledger import core as ledger
    from ccstate.ledger import shell

    opts = ledger.Options.from_config(env.config)
    response = inp.tool_response
    output = response.get("stdout") if isinstance(response, dict) else None
    if not opts.enabled or not isinstance(output, str) or response.get("persistedOutputPath"):
        return HookResult.noop(**detail, shell_read="skipped")
    text = shell.read_file_text(target.path)
    command = str(inp.tool_input.get("command"))
    read = shell.read_event(target, output, text or "", inp.tool_use_id or "", command)
    if text is None or read is None:
        return HookResult.noop(**detail, shell_read="output is not the file's text")
    decision = _answer(inp, env, read, shell.options(opts), detail)
    detail.update(shell_read=target.path, ledger=decision.kind, ledger_reason=decision.reason)
    if not decision.replaced:
        return HookResult.noop(**detail)
    return hookio.output_result("Bash", response, decision.content, detail)


def _on_bash(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> HookResult:
    """A shell read of one file is a read (the ledger); any other command's output may get a
    digest."""
    from ccstate.ledger import shell

    command = inp.tool_input.get("command")
    target = (
        shell.parse_command(command, inp.cwd, env.environ.get("HOME", ""))
        if isinstance(command, str)
        else None
    )
    if target is None:
        return _on_output(inp, env, detail)
    return _on_shell_read(inp, env, detail, target)


def _on_output(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> HookResult:
    """A bulky result becomes a digest that names the complete original (docs/OUTPUTS.md).
    A small one returns before the `outputs` modules are imported."""
    name = inp.tool_name or ""
    got = hookio.output_text(name, inp.tool_response)
    if got is None or not env.config.get("outputs.enabled"):
        return HookResult.noop(**detail)
    text, persisted = got
    if not persisted and len(text) < int(env.config.get("outputs.min_chars")):
        return HookResult.noop(**detail)
    from ccstate.outputs import core as outputs

    if not outputs.Options.from_config(env.config).wants(name):
        return HookResult.noop(**detail)
    if persisted:
        from ccstate.outputs import store as out_store

        data = out_store.read_original(persisted)
        try:
            text = data.decode("utf-8") if data is not None else ""
        except UnicodeDecodeError:
            text = ""
        if not text:
            return HookResult.noop(**detail, digest="persisted output unreadable")
    return _digest(inp, env, detail, text, bool(persisted))


def _digest(
    inp: HookInput, env: HookEnv, detail: dict[str, Any], text: str, persisted: bool
) -> HookResult:
    import os

    from ccstate.outputs import core as outputs
    from ccstate.outputs import store as out_store

    name = inp.tool_name or ""
    exists = (lambda p: os.path.isfile(os.path.join(inp.cwd, p))) if name == "Grep" else None
    body = outputs.digest_for(name, text, exists=exists)
    if body is None:
        return HookResult.noop(**detail, digest="none")
    data = text.encode("utf-8", "surrogatepass")
    path = out_store.path_for(env.state, data)
    digest = outputs.with_handle(body, text, path)
    if not outputs.worth_it(digest, text, persisted=persisted):
        return HookResult.noop(**detail, digest="too little saved")
    from ccstate.errors import StateError

    try:
        out_store.keep(
            env.state, data, path, max_bytes=int(env.config.get("outputs.store_max_mb")) << 20
        )
    except (OSError, StateError) as exc:
        _log(env, f"digest: {path} not written ({exc}); the output was served in full")
        return HookResult.noop(**detail, digest="original not kept")
    detail.update(digest=body.how, original_chars=len(text), digest_chars=len(digest))
    return hookio.output_result(name, inp.tool_response, digest, detail)


def _context_known(inp: HookInput) -> bool:
    """An `agent_id` that is there but not a non-empty string names no context we can key:
    its Reads must not be filed under the main thread (serve in full, record nothing)."""
    return "agent_id" not in inp.raw or bool(inp.agent_id)


def _log(env: HookEnv, line: str) -> None:
    from ccstate import hooklog

    hooklog.append_log(env.state, line, max_bytes=int(env.config.get("log.max_bytes")), now=env.now)


def _on_edit(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> HookResult:
    """The read ledger records what the context holds of the file now (a Write, Edit or
    MultiEdit, docs/LEDGER.md); the CLAUDE.md lint (docs/CLAUDE-MD.md) adds one line when an
    edit of an instruction file breaks the budget or imports."""
    _note_for_index(inp, env, detail)
    if (inp.tool_name or "") in WRITE_TOOLS and not _off(env):
        _on_write(inp, env, detail)
    path = inp.tool_input.get("file_path")
    if not isinstance(path, str) or not _is_instruction_file(path):
        return HookResult.noop(**detail)
    from ccstate.instructions import edit_check as claude_md_edit

    line = claude_md_edit.check_edit(
        env.project, env.state, env.config, env.environ, path, inp.tool_input
    )
    lint = {"file_path": path, "lint": "warned" if line else "ok"}
    return HookResult(additional_context=line or None, detail={**detail, **lint})


def _note_for_index(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> None:
    """The code index re-reads this path first at its next update (#41): one line appended,
    nothing parsed here."""
    raw = inp.tool_input.get("file_path") or inp.tool_input.get("notebook_path")
    if not isinstance(raw, str) or not raw or not env.config.get("find.enabled"):
        return
    import os

    from ccstate.repo import notes

    path = raw if os.path.isabs(raw) else os.path.join(inp.cwd, raw)
    detail["find_noted"] = notes.note_path(env.state, path)


def _off(env: HookEnv) -> bool:
    from ccstate.config import is_switched_off

    return is_switched_off(env.environ, "CCSTATE_DEDUPE") or not env.config.get("dedupe.enabled")


def _on_write(inp: HookInput, env: HookEnv, detail: dict[str, Any]) -> None:
    """The ledger after the context's own write: the whole text it holds of the file when
    that is certain and the file on disk is exactly it, else the Reads' segments as they
    were (docs/LEDGER.md "The context's own writes"). Outcome in `detail`."""
    from ccstate.errors import StateError
    from ccstate.ledger import core as ledger
    from ccstate.ledger import writes

    name = inp.tool_name or ""
    raw = inp.tool_input.get("file_path")
    path = ledger.normpath(raw if isinstance(raw, str) else "", inp.cwd)
    event = writes.write_event(name, inp.tool_input, inp.tool_response, path, inp.tool_use_id or "")
    if not path or not _context_known(inp):
        detail.update(ledger="not recorded", ledger_reason=event.skip or "unknown context")
        return
    try:
        with _open_context(inp, env) as ctx:
            held, reason = _held_after(ctx, event)
            sha = ledger.sha256(held) if held is not None else ""
            ctx.ledger = writes.record_write(
                ctx.ledger, name, path, held, reason, event.tool_use_id, sha
            )
            if held is not None:
                ctx.keep(held, sha)
    except StateError as exc:
        _log(env, f"read ledger: {exc}; the {name} was not recorded")
        detail.update(ledger="not recorded", ledger_reason="ledger locked")
        return
    for problem in ctx.problems:
        _log(env, f"read ledger: {problem}")
    if ctx.reset:
        _log(env, f"read ledger: new epoch ({ctx.reset})")
        detail["ledger_epoch"] = ctx.reset
    detail.update(ledger="held" if held is not None else "not held", ledger_reason=reason)


def _held_after(ctx: Any, event: Any) -> tuple[str | None, str]:
    """(the whole text the context holds of the file after `event`, or None, and why)."""
    from ccstate.ledger import writes

    if event.skip:
        return None, event.skip
    before = None
    if event.tool != "Write":
        before = writes.held_text(ctx.ledger, event.path, event.original_lines, ctx.load)
    held = writes.held_after(event, before)
    if held is None and before is None:
        return None, "the context did not hold the whole file"
    if held is None:
        return None, "the edit does not apply to the text the context holds"
    on_disk, _data, _stamp = writes.disk_view(event.path)
    if on_disk != held:
        return None, "the file on disk is not the text the context holds"
    return held, "the context holds the file as written"


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
