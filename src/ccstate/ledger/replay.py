"""`ccstate replay`: run the read ledger's own decision code over recorded transcripts.

Per transcript: how many Reads there were, which the hook would have replaced (identical /
unseen range / diff), the characters and tokens that kept out of the context, the token-turns
(saved tokens x later API calls in the same context and epoch), shell reads (`cat F`...) and
the notices that would have replaced their repeats, and a safety check: an independent record
of what each context received, against which every replacement's claims are verified. An
`observer` (outputs.replay.DigestTally) sees the same walk: API calls, epochs, tool results.
Never used on a hook path (it counts tokens).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ccstate import fanout, tokens
from ccstate.ledger import core as ledger
from ccstate.ledger import replay_writes, shell, writes
from ccstate.ledger.records import write_no, written_by
from ccstate.ledger.replay_totals import KINDS, SHELL_FIELDS, Totals, kept_out_share
from ccstate.transcript.content import message_content
from ccstate.transcript.lines import ReadStats
from ccstate.transcript.runs import fast_loads, iter_fast_records

__all__ = ["KINDS", "SHELL_FIELDS", "FileReport", "Totals", "kept_out_share", "replay"]

CONTEXT_PREFIX = "PostToolUse:Read hook additional context: "  # how Claude Code shows it


# Replay costs ~20x what `report` does per byte (digests, token counts): fork from 1 MiB.
PARALLEL_MIN_BYTES = 1 << 20
BYTES_PER_WORKER = 256 << 10


class Observer(Protocol):
    """What else watches a replay (outputs.replay.DigestTally). To replay over several
    processes, an observer also has `fresh()` (an empty one, the same settings: each file's
    walk gets its own) and `merge(other)` (adds another's findings, in file order)."""

    def api_call(self, key: str) -> None: ...

    def new_epoch(self, key: str) -> None: ...

    def result(
        self, key: str, name: str, tool_input: dict[str, Any], seen: str, extra: Any, cwd: str
    ) -> None: ...


@dataclass
class FileReport:
    path: Path
    totals: Totals
    skipped_lines: int = 0


def transcript_files(paths: Iterable[Path]) -> list[Path]:
    """Files as given; a directory contributes its `*.jsonl` (subagent folders included)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(sorted(path.rglob("*.jsonl")))
        else:
            out.append(path)
    return out


def replay(
    paths: Iterable[Path],
    opts: ledger.Options,
    observer: Observer | None = None,
    jobs: int | None = 1,
) -> tuple[list[FileReport], Totals]:
    """Replay every transcript of `paths`, over `jobs` processes (None: as many as the CPUs
    and the bytes call for; more than one needs an observer with `fresh` and `merge`). Files
    are independent walks, so the result is the same whatever the number of processes."""
    files = transcript_files(paths)
    sizes = [_size(f) for f in files]
    workers = jobs or fanout.auto_workers(
        len(files), sum(sizes), PARALLEL_MIN_BYTES, BYTES_PER_WORKER
    )
    if workers <= 1 or len(files) <= 1:
        reports = [replay_file(path, opts, observer) for path in files]
    else:
        fast_loads()  # imported once, before the fork, as the tokenizer:
        tokens.encoding_available()  # ~0.4 s each process would spend on its own
        order = sorted(range(len(files)), key=lambda i: -sizes[i])  # big files first
        template = observer.fresh() if observer is not None else None  # type: ignore[attr-defined]
        walk = functools.partial(_replay_one, opts=opts, template=template)
        done = fanout.fan_out(walk, [files[i] for i in order], workers)
        by_file = dict(zip(order, done, strict=True))
        reports = []
        for i in range(len(files)):  # in file order, as one process would
            report, seen = by_file[i]
            reports.append(report)
            if observer is not None:
                observer.merge(seen)  # type: ignore[attr-defined]
    total = Totals()
    for report in reports:
        total.add(report.totals)
    return reports, total


def _replay_one(path: Path, opts: ledger.Options, template: Any) -> tuple[FileReport, Any]:
    observer = template.fresh() if template is not None else None
    return replay_file(path, opts, observer), observer


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def replay_file(path: Path, opts: ledger.Options, observer: Observer | None = None) -> FileReport:
    stats = ReadStats()
    sim = _Simulation(opts, observer, str(path))
    for record in iter_fast_records(path, stats):
        sim.feed(record)
    return FileReport(path, sim.finish(), stats.skipped)


# --------------------------------------------------------------------------- the simulation


@dataclass
class _Context:
    ledger: ledger.Ledger = field(default_factory=ledger.Ledger)
    # The safety check's own record, never the ledger's: Read # (or a write's number, records.py)
    # -> (path, start, lines), and its own view of each file (replay_writes.Views).
    received: dict[int, tuple[str, int, tuple[str, ...]]] = field(default_factory=dict)
    views: replay_writes.Views = field(default_factory=replay_writes.Views)
    open_saved: int = 0  # tokens saved by replacements still in context (this epoch)
    open_shell_saved: int = 0  # ... by shell-read notices
    open_sources: dict[str, int] = field(default_factory=dict)  # ... by where their text came from
    open_results: int = 0  # tokens of every tool result still in context
    open_cc_saved: int = 0  # tokens Claude Code's own "file unchanged" answers kept out
    seen_calls: set[str] = field(default_factory=set)
    # uuid -> what the context held then (epoch, Reads, shell reads, writes): a rewind check
    state_at: dict[str, tuple[int, ...]] = field(default_factory=dict)
    last_uuid: str | None = None

    def state(self) -> tuple[int, ...]:
        led = self.ledger
        return led.epoch, led.reads, led.shell_reads, sum(led.writes.values())


class _Simulation:
    def __init__(
        self, opts: ledger.Options, observer: Observer | None = None, name: str = ""
    ) -> None:
        self.opts = opts
        self.shell_opts = shell.options(opts)
        self.observer = observer
        self.name = name  # keeps contexts of two files apart for the observer
        self.totals = Totals()
        self.blobs: dict[str, str] = {}
        self.contexts: dict[str, _Context] = {}
        self.pending: dict[str, tuple[str, dict[str, Any], str]] = {}
        self.sidechain_root: dict[str, str] = {}
        self.assistants: set[str] = set()

    def finish(self) -> Totals:
        self.totals.contexts = len(self.contexts)
        self.totals.epochs = sum(c.ledger.epoch for c in self.contexts.values())
        return self.totals

    # -- records

    def feed(self, record: dict[str, Any]) -> None:
        key = self._context_key(record)
        ctx = self.contexts.get(key)
        if ctx is None:  # (not setdefault: that would build a context for every record)
            ctx = self.contexts[key] = _Context()
        self._epoch_markers(record, ctx)
        self._rewind_check(record, ctx)
        if record.get("type") == "assistant":
            self._assistant(record, ctx, key)
        elif record.get("type") == "user":
            self._user(record, ctx)
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            ctx.state_at[uuid] = ctx.state()
            ctx.last_uuid = uuid

    def _context_key(self, record: dict[str, Any]) -> str:
        session = str(record.get("sessionId") or "")
        agent = record.get("agentId")
        if isinstance(agent, str) and agent:
            return f"{session}/agent-{agent}"
        if not record.get("isSidechain"):
            return f"{session}/main"
        # Older versions wrote sidechains inline, without an agentId: one per chain root.
        uuid, parent = record.get("uuid"), record.get("parentUuid")
        root = self.sidechain_root.get(parent) if isinstance(parent, str) else None
        root = root or (uuid if isinstance(uuid, str) else "?")
        if isinstance(uuid, str):
            self.sidechain_root[uuid] = root
        return f"{session}/sidechain-{root}"

    def _epoch_markers(self, record: dict[str, Any], ctx: _Context) -> None:
        attachment = record.get("attachment")
        hook = attachment.get("hookName") if isinstance(attachment, dict) else None
        boundary = record.get("type") == "system" and record.get("subtype") == "compact_boundary"
        if boundary or record.get("isCompactSummary"):
            self._new_epoch(ctx, "compaction")
        elif record.get("type") == "content-replacement":  # results persisted (2.1.332)
            self._new_epoch(ctx, "replaced")
        elif hook in ("SessionStart:resume", "SessionStart:compact", "SessionStart:clear"):
            self._new_epoch(ctx, hook.split(":")[1])
        elif record.get("type") == "user" and _is_clear(record):
            self._new_epoch(ctx, "clear")  # /clear in the same file (older 2.x)

    def _rewind_check(self, record: dict[str, Any], ctx: _Context) -> None:
        """A record continuing an earlier point of the conversation (a rewind) drops what came
        after it: if a Read was among that, start a new epoch."""
        parent = record.get("parentUuid")
        if record.get("type") not in ("user", "assistant") or not isinstance(parent, str):
            return
        if parent == ctx.last_uuid or parent not in ctx.state_at:
            return
        if record.get("type") == "user" and parent in self.assistants:
            return  # one of several parallel tool results
        if ctx.state_at[parent] != ctx.state():
            self._new_epoch(ctx, "rewind")

    def _new_epoch(self, ctx: _Context, reason: str) -> None:
        ctx.ledger = ledger.new_epoch(ctx.ledger, reason)  # a no-op when nothing happened
        ctx.received.clear()
        ctx.views.clear()
        ctx.open_saved = ctx.open_shell_saved = ctx.open_results = ctx.open_cc_saved = 0
        ctx.open_sources.clear()
        if self.observer is not None:
            self.observer.new_epoch(self._observed(ctx))

    def _assistant(self, record: dict[str, Any], ctx: _Context, key: str) -> None:
        message = record.get("message")
        msg_id = message.get("id") if isinstance(message, dict) else None
        if _synthetic(record):  # Claude Code's stand-in for a failed call: no API call
            msg_id = None
        if isinstance(msg_id, str) and msg_id not in ctx.seen_calls:
            ctx.seen_calls.add(msg_id)
            totals = self.totals
            totals.api_calls += 1
            totals.token_turns_saved += ctx.open_saved
            totals.shell_token_turns_saved += ctx.open_shell_saved
            totals.result_token_turns += ctx.open_results
            totals.cc_dedupe_token_turns += ctx.open_cc_saved
            for source, saved in ctx.open_sources.items():
                totals.by_source[source][2] += saved
            if self.observer is not None:
                self.observer.api_call(self._observed(ctx))
        if isinstance(record.get("uuid"), str):
            self.assistants.add(record["uuid"])
        for block in message_content(record):
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                raw = block.get("input")
                tool_input: dict[str, Any] = raw if isinstance(raw, dict) else {}
                self.pending[block["id"]] = (str(block.get("name")), tool_input, key)

    def _user(self, record: dict[str, Any], ctx: _Context) -> None:
        results = [b for b in message_content(record) if b.get("type") == "tool_result"]
        for block in results:
            call = self.pending.pop(str(block.get("tool_use_id")), None)
            seen = _block_text(block.get("content"))
            extra = record.get("toolUseResult") if len(results) == 1 else None
            self._result_tokens(ctx, _shown(call[0] if call else "", seen, extra))
            if call is None or block.get("is_error"):
                continue
            name, tool_input, _key = call
            cwd = str(record.get("cwd") or "/")
            tool_use_id = str(block.get("tool_use_id"))
            if name == "Read" and replay_writes.is_cc_stub(extra, seen):
                self._cc_stub(ctx, tool_input, cwd, tool_use_id)
            elif name == "Read" and isinstance(extra, dict):
                self._read(ctx, tool_input, extra, cwd, tool_use_id)
            elif name in writes.WRITE_TOOLS:
                self._write(ctx, name, tool_input, extra, cwd, tool_use_id)
            elif name == "Bash" and self._shell_read(ctx, tool_input, block, extra, cwd):
                continue  # a read, not an output to digest
            elif self.observer is not None:
                self.observer.result(self._observed(ctx), name, tool_input, seen, extra, cwd)

    def _result_tokens(self, ctx: _Context, seen: str) -> None:
        """Every tool result counts in the denominator: its tokens, in context from now."""
        count, exact = tokens.count_tokens(seen) if seen else (0, True)
        self.totals.tokens_exact = self.totals.tokens_exact and exact
        self.totals.result_tokens += count
        ctx.open_results += count

    # -- tools

    def _read(
        self,
        ctx: _Context,
        tool_input: dict[str, Any],
        response: dict[str, Any],
        cwd: str,
        tool_use_id: str,
    ) -> None:
        event = ledger.read_event(tool_input, response, cwd, tool_use_id)
        if not event.path:
            return
        if event.path in ctx.ledger.paths:
            self.totals.rereads += 1
        decision = ledger.decide(ctx.ledger, event, self.blobs.get, self.opts)
        read_no = ctx.ledger.reads + 1
        ctx.ledger = ledger.record(ctx.ledger, event, decision)
        self.totals.reads += 1
        if not event.skip:
            self.totals.read_chars += rendered_len(event.content, event.start)
        if decision.replaced:
            self._check(ctx, event, decision, read_no)
            original = render(event.content, event.start) if not event.skip else ""
            self._count(ctx, original, decision)
        self._remember(ctx, event, decision, read_no)

    def _cc_stub(
        self, ctx: _Context, tool_input: dict[str, Any], cwd: str, tool_use_id: str
    ) -> None:
        """Claude Code answered this Read itself ("File unchanged since last read..."): no file
        text, so the ledger records a Read that delivered nothing, answers nothing and keeps
        nothing out; what Claude Code kept out (the text the context holds of the file, as a
        Read shows it) is counted as Claude Code's saving."""
        raw = tool_input.get("file_path")
        path = ledger.normpath(raw if isinstance(raw, str) else "", cwd)
        stub = {"type": replay_writes.UNCHANGED_TYPE, "file": {"filePath": path}}
        event = ledger.read_event(tool_input, stub, cwd, tool_use_id)
        decision = ledger.decide(ctx.ledger, event, self.blobs.get, self.opts)
        assert not decision.replaced  # a stub is never a delivery the ledger could answer
        ctx.ledger = ledger.record(ctx.ledger, event, decision)
        self.totals.reads += 1
        self.totals.cc_dedupe += 1
        held = ctx.views.text(path)
        if held is not None:
            kept, exact = tokens.count_tokens(render(held, 1))
            self.totals.tokens_exact = self.totals.tokens_exact and exact
            self.totals.cc_dedupe_tokens += kept
            ctx.open_cc_saved += kept

    def _write(
        self,
        ctx: _Context,
        name: str,
        tool_input: dict[str, Any],
        extra: Any,
        cwd: str,
        tool_use_id: str,
    ) -> None:
        """The context's own Write / Edit / MultiEdit, as the hook records it (ledger/writes.py),
        with the transcript's record of the file after it standing in for the disk. The
        safety check computes what the context knows of the file on its own, and the ledger
        must never hold other text."""
        raw = tool_input.get("file_path")
        path = ledger.normpath(raw if isinstance(raw, str) else "", cwd)
        if not path:
            return
        event = writes.write_event(name, tool_input, extra, path, tool_use_id)
        held = None
        if not event.skip:
            before = None
            if name != "Write":
                before = writes.held_text(ctx.ledger, path, event.original_lines, self.blobs.get)
            held = writes.held_after(event, before)
            if held is not None and held != replay_writes.file_after(name, tool_input, extra):
                held = None
        ctx.ledger = writes.record_write(ctx.ledger, name, path, held, event.skip, tool_use_id)
        self.totals.writes[name] += 1
        known = ctx.views.after_write(name, path, tool_input, event.original_lines)
        no = write_no(name, ctx.ledger.writes[name])
        if held is not None:
            self.totals.writes_held[name] += 1
            self.blobs[ledger.sha256(held)] = held
            if known != held:
                self.totals.violations.append(
                    f"{path} {name} #{ctx.ledger.writes[name]}: the ledger holds text the "
                    "context was not given"
                )
            else:
                ctx.received[no] = (path, 1, tuple(held.split("\n")))
        ctx.views.wrote(path, known)

    def _remember(
        self, ctx: _Context, event: ledger.ReadEvent, decision: ledger.Decision, read_no: int
    ) -> None:
        """What a Read put into the context in full: a blob for later decisions, and the
        safety check's own record (the event's sha and lines when it is the whole Read)."""
        got = ledger.delivered(event, decision)
        if got is None:
            return
        start, _end, text = got
        if text is event.content and event.sha and len(event.lines) == text.count("\n") + 1:
            sha, lines = event.sha, event.lines
        else:
            sha, lines = ledger.sha256(text), tuple(text.split("\n"))
        self.blobs[sha] = text
        ctx.received[read_no] = (event.path, start, lines)
        ctx.views.delivered(event.path, start, lines)

    def _count(self, ctx: _Context, original: str, decision: ledger.Decision) -> None:
        replacement = render(decision.content, decision.start_line)
        if decision.context:
            replacement += "\n" + CONTEXT_PREFIX + decision.context
        before, exact_a = tokens.count_tokens(original)
        after, exact_b = tokens.count_tokens(replacement)
        self.totals.tokens_exact = self.totals.tokens_exact and exact_a and exact_b
        self.totals.replaced[decision.kind] += 1
        self.totals.chars_saved += len(original) - len(replacement)
        self.totals.tokens_saved += before - after
        ctx.open_saved += before - after
        self._by_source(ctx, decision, before - after)

    def _by_source(self, ctx: _Context, decision: ledger.Decision, saved: int) -> None:
        """A replacement relying on one of the context's own writes is the write's saving."""
        sources = [written_by(c.read_no) for c in decision.claims]
        source = next((s[0] for s in sources if s is not None), "Read")
        row = self.totals.by_source[source]
        row[0] += 1
        row[1] += saved
        ctx.open_sources[source] = ctx.open_sources.get(source, 0) + saved

    def _check(
        self, ctx: _Context, event: ledger.ReadEvent, decision: ledger.Decision, read_no: int
    ) -> None:
        """Every claim must name text this context received, in this epoch, in that Read."""
        where = f"{event.path} Read #{read_no} ({decision.kind})"
        if not decision.claims:
            self.totals.violations.append(f"{where}: a replacement without claims")
        for claim in decision.claims:
            got = ctx.received.get(claim.read_no)
            if got is None or got[0] != event.path:
                self.totals.violations.append(f"{where}: Read #{claim.read_no} not received")
                continue
            _path, start, lines = got
            part = lines[claim.start - start : claim.end - start + 1]
            if claim.start < start or len(part) != claim.end - claim.start + 1:
                self.totals.violations.append(f"{where}: lines outside Read #{claim.read_no}")
            elif ledger.sha256("\n".join(part)) != claim.sha:
                self.totals.violations.append(f"{where}: text differs from Read #{claim.read_no}")
            elif decision.kind != "diff" and not _matches_now(event, claim):
                self.totals.violations.append(f"{where}: lines {claim.start}-{claim.end} changed")

    def _shell_read(
        self,
        ctx: _Context,
        tool_input: dict[str, Any],
        block: dict[str, Any],
        extra: Any,
        cwd: str,
    ) -> bool:
        """A shell read (`cat F`...): the ledger's decision, as the hook makes it, with the
        output standing in for the file (the transcript holds no file). True when the command
        is one: its output is then never digested."""
        command = tool_input.get("command")
        target = shell.parse_command(command, cwd) if isinstance(command, str) else None
        if target is None:
            return False
        output = extra.get("stdout") if isinstance(extra, dict) else None
        if not isinstance(output, str):
            output = _block_text(block.get("content"))
        tool_use_id = str(block.get("tool_use_id"))
        event = shell.replay_event(target, output, tool_use_id, str(command))
        if event is None:
            return True
        self.totals.shell_reads += 1
        decision = ledger.decide(ctx.ledger, event, self.blobs.get, self.shell_opts)
        read_no = ledger.next_read_no(ctx.ledger, event)
        ctx.ledger = ledger.record(ctx.ledger, event, decision)
        if decision.replaced:
            self._check(ctx, event, decision, read_no)
            before, exact_a = tokens.count_tokens(output)
            after, exact_b = tokens.count_tokens(decision.content)
            self.totals.tokens_exact = self.totals.tokens_exact and exact_a and exact_b
            self._by_source(ctx, decision, before - after)
            self.totals.shell_notices += 1
            self.totals.shell_chars_saved += len(output) - len(decision.content)
            self.totals.shell_tokens_saved += before - after
            ctx.open_shell_saved += before - after
        self._remember(ctx, event, decision, read_no)
        return True

    def _observed(self, ctx: _Context) -> str:
        return f"{self.name}#{id(ctx)}"


def _shown(name: str, seen: str, extra: Any) -> str:
    """What the model was shown of a result: the block's text; for a Read, its content as
    Claude Code renders it (the same text in 2.x transcripts; 1.0.x drew another gutter)."""
    file = extra.get("file") if name == "Read" and isinstance(extra, dict) else None
    if isinstance(file, dict) and extra.get("type") == "text":
        content, start = file.get("content"), file.get("startLine")
        if isinstance(content, str) and isinstance(start, int):
            return render(content, start)
    return seen


def _synthetic(record: dict[str, Any]) -> bool:
    """An assistant record Claude Code wrote itself for a call that failed (a rate limit, an
    API error: `isApiErrorMessage`, model `<synthetic>`), which no API response stands behind."""
    message = record.get("message")
    model = message.get("model") if isinstance(message, dict) else None
    return bool(record.get("isApiErrorMessage")) or model == "<synthetic>"


def _is_clear(record: dict[str, Any]) -> bool:
    content = (
        record.get("message", {}).get("content")
        if isinstance(record.get("message"), dict)
        else None
    )
    text = content if isinstance(content, str) else ""
    if isinstance(content, list) and content and isinstance(content[0], dict):
        text = str(content[0].get("text") or "")
    return text.lstrip().startswith("<command-name>/clear</command-name>")


def _matches_now(event: ledger.ReadEvent, claim: ledger.Claim) -> bool:
    lines = event.lines[claim.start - event.start : claim.end - event.start + 1]
    return claim.start >= event.start and ledger.sha256("\n".join(lines)) == claim.sha


def render(content: str, start: int) -> str:
    """Read content as the model sees it: each line numbered from `start` (reference §7)."""
    return "\n".join(f"{n}\t{line.removesuffix(chr(13))}" for n, line in _numbered(content, start))


def rendered_len(content: str, start: int) -> int:
    """`len(render(content, start))`, without rendering: each line gains its number and a
    tab, and loses the `\\r` it ends with."""
    if not content:
        return 0
    lines = content.count("\n") + 1
    ends_r = content.count("\r\n") + content.endswith("\r")
    return len(content) + lines - ends_r + _digits(start, start + lines - 1)


def _digits(first: int, last: int) -> int:
    """How many digits (and minus signs) the numbers first..last are written with."""
    if first < 1:
        return sum(len(str(n)) for n in range(first, min(last, 0) + 1)) + _digits(1, last)
    total, width, low = 0, 1, 1
    while low <= last:
        high = low * 10 - 1
        if high >= first:
            total += (min(high, last) - max(low, first) + 1) * width
        low, width = high + 1, width + 1
    return total


def _numbered(content: str, start: int) -> Iterator[tuple[int, str]]:
    return enumerate(content.split("\n"), start) if content else iter(())


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""
