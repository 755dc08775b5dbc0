"""Token accounting for one transcript: API calls deduplicated by `message.id`, compactions,
what filled the context, what preceded each call and the hooks that ran (pure over records;
`scan_file` adds the reading).

Claude Code writes one API response with N content blocks as N assistant records that share
`message.id` and carry the same (final) usage; summing every record overstates the cost
(1.9x on the public corpus). Each response is counted once, with the usage of its last
record. Definitions: docs/REPORT.md.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ccstate.ledger.text import NOTE_TAG, NOTICE_TAG
from ccstate.report.composition import ATTACHED_KINDS, Composition, Tracker
from ccstate.report.timeline import Sizes
from ccstate.transcript.content import message_content
from ccstate.transcript.lines import ReadStats
from ccstate.transcript.runs import iter_light_records
from ccstate.transcript.sessions import SUBAGENTS_DIR, session_of

CAPSULE_HEADER = "[ccstate] project state"  # = capsule.HEADER, kept literal: no import chain
DEFAULT_NOTICE_PREFIX = NOTICE_TAG  # how the read ledger's notices start (ledger/text.py)
MAIN = "main"
# What happened in a thread since its previous API call (Turn.events, a bit set): the rebuild
# audit (audit.py) classifies a call by it. START: the thread's first call in this file.
EV_PROMPT, EV_TOOL_RESULT, EV_COMPACTION, EV_MICROCOMPACT, EV_NEW_CONTEXT, EV_START = (
    1,
    2,
    4,
    8,
    16,
    32,
)
_NEW_CONTEXT_HOOKS = ("SessionStart:resume", "SessionStart:clear")  # hookName of a restart
_CLEAR_COMMAND = "<command-name>/clear</command-name>"
# a cost-state record's modelUsage fields, in Turn's order (input, 5m, 1h, reads, output)
_COST_STATE_KEYS = (
    "inputTokens",
    "cacheCreationEphemeral5mInputTokens",
    "cacheCreationEphemeral1hInputTokens",
    "cacheReadInputTokens",
    "outputTokens",
)
_NO_TOOL_USE: tuple[str, dict[str, Any]] = ("?", {})  # a result whose tool_use was not seen
# Record types that never carry usage or context the report needs; skipped undecoded.
SKIP_TYPES = frozenset(
    {
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "api-request",
        "api-request-shape",
        "api-request-blob",
        "last-prompt",
        "tools-used",
        "permission-mode",  # 2.1.x: the mode, the session's names
        "custom-title",
        "agent-name",
        "ai-title",
    }
)


class Turn(NamedTuple):  # a NamedTuple: cheap to create, to pickle and to cache as a row
    """One API response: its final usage, and where and when it happened."""

    message_id: str
    model: str
    timestamp: str  # its first record's
    thread: str
    input: int
    cache_write_5m: int
    cache_write_1h: int
    cache_read: int
    output: int
    fast: bool = False
    line: int = 0  # the file line of its first record
    last: str = ""  # its last record's timestamp; "" when the same as `timestamp`
    events: int = 0  # EV_* bits: what happened in its thread since the thread's previous call
    effort: str = ""  # the record's `effort` (2.1.x), "" when not written

    @property
    def cache_write(self) -> int:
        return self.cache_write_5m + self.cache_write_1h

    @property
    def context(self) -> int:
        """Context size after this turn (reference §4): prompt tokens plus output."""
        return self.input + self.cache_write + self.cache_read + self.output


class Compaction(NamedTuple):
    timestamp: str
    trigger: str  # manual / auto / "unknown" (1.0.x wrote no boundary record)
    pre_tokens: int
    pre_estimated: bool  # True: taken from the last turn's context, not compactMetadata
    post_tokens: int | None = None
    model: str = ""
    summary_chars: int = 0
    rebuild_5m: int = 0  # cache writes of the first API call after the compaction
    rebuild_1h: int = 0
    line: int = 0  # the file line of its boundary (or 1.0.x summary) record
    reread_chars: int = 0  # main-thread Reads, after it, of files only an earlier epoch held


@dataclass
class FileScan:
    """What one transcript file holds: API responses, compactions, context composition."""

    path: str
    session_id: str
    project: str
    subagent_file: bool
    turns: dict[str, Turn] = field(default_factory=dict)
    compactions: list[Compaction] = field(default_factory=list)
    composition: Composition = field(default_factory=Composition)
    records: int = 0
    skipped: int = 0
    folded: int = 0  # assistant records folded into an earlier one with the same message.id
    first: str = ""
    last: str = ""
    versions: list[str] = field(default_factory=list)
    hook_runs: list[tuple[str, str, int]] = field(default_factory=list)  # (command, event, ms)
    # per API call: the context sources that changed since its thread's previous call, as
    # (source, chars so far in this epoch) pairs (timeline.py)
    sizes: dict[str, list[list[Any]]] = field(default_factory=dict)
    # Claude Code's running totals (`cost-state` records, 2.1.x): [API responses seen before it,
    # compactions seen before it, latest timestamp, {model: [input, 5m writes, 1h writes,
    # reads, output]}]; what they count beyond the file's own calls is the summarising call
    cost_states: list[list[Any]] = field(default_factory=list)


def notice_prefixes() -> tuple[str, ...]:
    """How the read ledger's notices (a Read result replaced by a notice) start."""
    return (NOTICE_TAG,)


def scan_file(path: Path, prefixes: tuple[str, ...] | None = None) -> FileScan:
    """Read one transcript (streamed) and account for it."""
    stats = ReadStats()
    records = iter_light_records(path, stats, SKIP_TYPES)
    scan = scan_records(records, path=path, prefixes=prefixes or notice_prefixes(), stats=stats)
    scan.records, scan.skipped = stats.records, stats.skipped
    return scan


def scan_records(
    records: Iterable[dict[str, Any]],
    *,
    path: Path,
    prefixes: tuple[str, ...],
    stats: ReadStats | None = None,
) -> FileScan:
    """Account for the records of one transcript file (pure). `stats`, when the reader that
    yields `records` updates it, gives each call its file line."""
    project, session_id, subagent = file_session(path)
    scan = FileScan(str(path), session_id, project, subagent)
    _Scanner(scan, Tracker(prefixes, CAPSULE_HEADER, NOTE_TAG), stats).run(records)
    return scan


def file_session(path: Path) -> tuple[str, str, bool]:
    """(project, session id, a subagent's file?) of a transcript, from where it lies:
    `<project>/<session>.jsonl` or `<project>/<session>/subagents/agent-*.jsonl`."""
    subagent = path.parent.name == SUBAGENTS_DIR
    # the file's real folder: its folder's, resolved once per folder, unless it is a link
    # (keyed by its absolute path: a relative one names another folder after a chdir)
    folder = (
        path.resolve().parent if path.is_symlink() else _real_folder(os.path.abspath(path.parent))
    )
    project_dir = folder.parent.parent if subagent else folder
    return project_dir.name, session_of(path), subagent


@functools.lru_cache(maxsize=4096)
def _real_folder(folder: str) -> Path:
    return Path(folder).resolve()


class _Scanner:
    def __init__(self, scan: FileScan, tracker: Tracker, stats: ReadStats | None = None) -> None:
        self.scan = scan
        self.tracker = tracker
        self.stats = stats
        self.tool_uses: dict[str, tuple[str, dict[str, Any]]] = {}
        self.sidechains = 0
        # message.id -> [model, first timestamp, thread, final usage, line, last timestamp,
        # events, effort]: a Turn once read through
        self.turns: dict[str, list[Any]] = {}
        self.since: dict[str, int] = {}  # thread -> EV_* bits since its last call
        self.called: set[str] = set()  # threads that made a call
        self.sizes = Sizes(MAIN)  # the charts show the main thread
        self.last_main: str | None = None  # message.id of the latest main-thread response
        self.rebuild_pending = False
        self.summary_pending = False
        self.summaries: set[int] = set()
        self.versions: set[str] = set()
        self.cwd = ""  # the latest `cwd` a user record carried

    def run(self, records: Iterable[dict[str, Any]]) -> None:
        """The hot loop of `ccstate report` (tens of thousands of records per run): locals,
        the common cases inline, no object per record."""
        handlers = {
            "user": self._user,
            "system": self._system,
            "attachment": self._attachment,
            "cost-state": self._cost_state,
        }
        assistant = self._assistant
        first, last, versions, version_seen = self.scan.first, self.scan.last, self.versions, None
        agents: dict[str, str] = {}  # agentId -> its thread name, formatted once
        for rec in records:
            get = rec.get
            stamp = get("timestamp")
            if isinstance(stamp, str) and stamp:
                if stamp > last:
                    last = stamp
                if not first or stamp < first:
                    first = stamp
            version = get("version")
            if version != version_seen and isinstance(version, str):
                versions.add(version)
                version_seen = version
            agent = get("agentId")
            if isinstance(agent, str) and agent:
                thread = agents.get(agent) or agents.setdefault(agent, f"agent-{agent}")
            elif get("isSidechain"):
                thread = self._sidechain(rec)
            else:
                thread = MAIN
            kind = get("type")
            if kind == "assistant":
                assistant(rec, thread)
            elif isinstance(kind, str) and (handler := handlers.get(kind)) is not None:
                handler(rec, thread)
        self.scan.first, self.scan.last = first, last
        self.scan.turns = {key: _turn(key, *parts) for key, parts in self.turns.items()}
        self.scan.sizes = self.sizes.calls
        self.scan.composition = self.tracker.finish()
        self.scan.versions = sorted(versions)

    def _sidechain(self, rec: dict[str, Any]) -> str:
        # 1.0.x wrote Task subagents inline; each one starts a chain at a root prompt.
        if rec.get("type") == "user" and rec.get("parentUuid") is None and _is_prompt(rec):
            self.sidechains += 1
        return f"sidechain-{self.sidechains}"

    def _assistant(self, rec: dict[str, Any], thread: str) -> None:
        message = rec.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    block_id = block.get("id")
                    if isinstance(block_id, str):
                        tool_input = block.get("input")
                        inp = tool_input if isinstance(tool_input, dict) else {}
                        self.tool_uses[block_id] = (str(block.get("name") or "unknown"), inp)
        usage = message.get("usage")
        if not isinstance(usage, dict):
            return
        model = message.get("model")
        if not (isinstance(model, str) and model):
            model = str(model or "unknown")
        if model == "<synthetic>":
            return
        key = message.get("id")
        if not isinstance(key, str) or not key:
            key = str(key or rec.get("requestId") or f"no-id-{len(self.turns)}")
        turns = self.turns
        stamp = rec.get("timestamp")
        stamp = stamp if isinstance(stamp, str) else str(stamp or "")
        earlier = turns.get(key)
        if earlier is not None:  # the same response, a later block: keep its final usage
            self.scan.folded += 1
            earlier[0], earlier[2], earlier[3], earlier[5] = model, thread, usage, stamp
            if thread == MAIN:
                self.last_main = key
            return
        since = self.since.pop(thread, 0)
        if thread not in self.called:
            self.called.add(thread)
            since |= EV_START
        line = self.stats.lines if self.stats is not None else 0
        effort = rec.get("effort")
        effort = effort if isinstance(effort, str) else ""
        turns[key] = [model, stamp, thread, usage, line, stamp, since, effort]
        if thread == MAIN:
            self.sizes.call(thread, key)
        self.tracker.api_call(thread)
        if thread == MAIN:
            self.last_main = key
            if self.rebuild_pending:
                write = _int(usage.get("cache_creation_input_tokens"))
                one_hour = _one_hour(usage, write)
                self._set_last_compaction(rebuild_5m=write - one_hour, rebuild_1h=one_hour)
                self.rebuild_pending = False

    def _last_main_turn(self) -> Turn | None:
        """The latest main-thread API response, with the final usage seen so far."""
        if self.last_main is None:
            return None
        return _turn(self.last_main, *self.turns[self.last_main])

    def _event(self, thread: str, bit: int) -> None:
        self.since[thread] = self.since.get(thread, 0) | bit

    def _user(self, rec: dict[str, Any], thread: str) -> None:
        message = rec.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            blocks = [b for b in content if isinstance(b, dict)]
        else:
            blocks = message_content(rec)
        if rec.get("isCompactSummary"):
            text = "\n".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
            self._event(thread, EV_COMPACTION)
            self.sizes.reset(thread)
            self.sizes.add(thread, "conversation", len(text))
            self.tracker.compact_summary(text)
            if self.summary_pending:
                self._set_last_compaction(summary_chars=len(text))
                self.summary_pending = False
            elif (last_main := self._last_main_turn()) is None or hash(text) in self.summaries:
                # 1.0.x: a file that continues a compacted session, or a resume that restarts
                # from a summary already counted: the context restarts, nothing is summarised.
                self.tracker.compaction(thread)
            else:  # 1.0.x: a new summary with no boundary record before it
                stamp = str(rec.get("timestamp") or "")
                self._compacted(thread, "unknown", last_main.context, True, None, stamp)
                self._set_last_compaction(summary_chars=len(text))
            self.summaries.add(hash(text))
            return
        # a long record is cut before its `toolUseResult` (iter_light_records), and
        # with it any key written after it, `cwd` among them: the session's last one stands in
        cwd = rec.get("cwd")
        if isinstance(cwd, str) and cwd:
            self.cwd = cwd
        else:
            cwd = self.cwd
        meta = bool(rec.get("isMeta"))
        since = self.since
        for block in blocks:
            kind = block.get("type")
            if kind == "tool_result":
                name, tool_input = self.tool_uses.get(str(block.get("tool_use_id")), _NO_TOOL_USE)
                text = result_text(block.get("content"))
                error = bool(block.get("is_error"))
                since[thread] = since.get(thread, 0) | EV_TOOL_RESULT
                if thread == MAIN:  # (Sizes ignores other threads; this skips the call)
                    self.sizes.add(thread, "tool:" + name, len(text))
                self.tracker.tool_result(thread, name, tool_input, text, error, cwd)
                if (
                    name == "Read"
                    and thread == MAIN
                    and self.tracker.last_read_kind(MAIN) == ("after_compaction")
                ):
                    self._add_reread(len(text))
            elif kind == "text":
                said = block.get("text")
                if not meta and isinstance(said, str):
                    clear = said.startswith(_CLEAR_COMMAND)
                    self._event(thread, EV_NEW_CONTEXT if clear else EV_PROMPT)
                    if thread == MAIN:
                        self.sizes.add(thread, "conversation", len(said))
                self._maybe_injection(thread, said)

    def _system(self, rec: dict[str, Any], thread: str) -> None:
        if rec.get("subtype") == "compact_boundary":
            meta = rec.get("compactMetadata")
            meta = meta if isinstance(meta, dict) else {}
            raw_pre, post = meta.get("preTokens"), meta.get("postTokens")
            estimated = not isinstance(raw_pre, int)
            if isinstance(raw_pre, int):
                pre = raw_pre
            else:  # no metadata: the context of the last main-thread turn
                last_main = self._last_main_turn()
                pre = last_main.context if last_main else 0
            trigger = str(meta.get("trigger") or "unknown")
            stamp = str(rec.get("timestamp") or "")
            post_tokens = post if isinstance(post, int) else None
            self._compacted(thread, trigger, pre, estimated, post_tokens, stamp)
            self.summary_pending = True
            return
        subtype = rec.get("subtype")
        if subtype == "microcompact_boundary":  # old tool results cleared
            self._event(thread, EV_MICROCOMPACT)
            return
        if subtype == "stop_hook_summary":  # every Stop hook run, silent ones too
            event = "Stop" if thread == MAIN else "SubagentStop"
            for info in rec.get("hookInfos") or ():
                if isinstance(info, dict):
                    self._hook_run(info.get("command"), event, info.get("durationMs"))
            return
        self._maybe_injection(thread, rec.get("content"))

    def _cost_state(self, rec: dict[str, Any], thread: str) -> None:
        usage = rec.get("modelUsage")
        if not isinstance(usage, dict):
            return
        totals = {
            str(model): [_int(u.get(k)) for k in _COST_STATE_KEYS]
            for model, u in usage.items()
            if isinstance(u, dict)
        }
        latest = next(reversed(self.turns.values()), None)  # the newest response: its end
        stamp = str(latest[5]) if latest is not None else ""
        self.scan.cost_states.append([len(self.turns), len(self.scan.compactions), stamp, totals])

    def _add_reread(self, chars: int) -> None:
        if self.scan.compactions:
            last = self.scan.compactions[-1]
            self.scan.compactions[-1] = last._replace(reread_chars=last.reread_chars + chars)

    def _attachment(self, rec: dict[str, Any], thread: str) -> None:
        attachment = rec.get("attachment")
        if not isinstance(attachment, dict):
            return
        kind = attachment.get("type")
        shown = ATTACHED_KINDS.get(kind) if isinstance(kind, str) else None
        if shown is not None:
            self.tracker.attached(shown, _attached_chars(str(kind), attachment))
        if kind == "hook_additional_context":
            for value in _strings(attachment.get("content")):
                self._maybe_injection(thread, value)
        elif kind == "instructions" or kind == "nested_memory":  # CLAUDE.md files (2.1.x)
            self.sizes.add(thread, "claude_md", sum(len(v) for v in _strings(attachment)))
        elif kind == "file":  # a file compaction attached again, or an @-mention
            self.sizes.add(thread, "tool:Read", sum(len(v) for v in _strings(attachment)))
        if isinstance(kind, str) and kind.startswith("hook_"):
            self._hook(thread, attachment)

    def _hook(self, thread: str, attachment: dict[str, Any]) -> None:
        """A hook run (its duration, 2.1.x), or a restart a SessionStart hook announced."""
        name = attachment.get("hookName")
        if isinstance(name, str) and name.startswith(_NEW_CONTEXT_HOOKS):
            self._event(thread, EV_NEW_CONTEXT)
        command = attachment.get("command") or name
        self._hook_run(command, attachment.get("hookEvent"), attachment.get("durationMs"))

    def _hook_run(self, command: Any, event: Any, duration: Any) -> None:
        if isinstance(duration, (int, float)) and not isinstance(duration, bool):
            self.scan.hook_runs.append((str(command or "?"), str(event or "?"), int(duration)))

    def _maybe_injection(self, thread: str, text: Any) -> None:
        if not isinstance(text, str) or "[ccstate" not in text:
            return
        if CAPSULE_HEADER in text:
            self.sizes.add(thread, "ccstate", len(text))
            self.tracker.injection(thread, text)
        elif text.lstrip().startswith(self.tracker.note_tag):
            self.sizes.add(thread, "ccstate", len(text.lstrip()))
            self.tracker.note(thread, text.lstrip())

    def _compacted(
        self, thread: str, trigger: str, pre: int, estimated: bool, post: int | None, stamp: str
    ) -> None:
        model = self.turns[self.last_main][0] if self.last_main else ""
        line = self.stats.lines if self.stats is not None else 0
        found = Compaction(stamp, trigger, pre, estimated, post, model, line=line)
        self.scan.compactions.append(found)
        self._event(thread, EV_COMPACTION)
        self.sizes.reset(thread)
        self.tracker.compaction(thread)
        self.rebuild_pending = True

    def _set_last_compaction(self, **changes: Any) -> None:
        if self.scan.compactions:
            last = self.scan.compactions[-1]
            self.scan.compactions[-1] = last._replace(**changes)


def _turn(
    key: str,
    model: str,
    stamp: str,
    thread: str,
    usage: dict[str, Any],
    line: int = 0,
    last: str = "",
    events: int = 0,
    effort: str = "",
) -> Turn:
    write = _int(usage.get("cache_creation_input_tokens"))
    one_hour = _one_hour(usage, write)
    return Turn(  # positional: the fields in order (message_id, model, timestamp, thread, ...)
        key,
        model,
        stamp,
        thread,
        _int(usage.get("input_tokens")),
        write - one_hour,
        one_hour,
        _int(usage.get("cache_read_input_tokens")),
        _int(usage.get("output_tokens")),
        usage.get("speed") == "fast",
        line,
        "" if last == stamp else last,
        events,
        effort,
    )


def _one_hour(usage: dict[str, Any], write: int) -> int:
    """The part of a response's cache writes made with the 1-hour TTL (at most all of them)."""
    split = usage.get("cache_creation")
    return (
        min(_int(split.get("ephemeral_1h_input_tokens")), write) if isinstance(split, dict) else 0
    )


def _is_prompt(rec: dict[str, Any]) -> bool:
    return not any(b.get("type") == "tool_result" for b in message_content(rec))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def result_text(content: Any) -> str:
    """A tool_result's text: a string, or its text blocks joined (images count as nothing)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text") or "")
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _attached_chars(kind: str, attachment: dict[str, Any]) -> int:
    """What of an attachment the model reads: its content (a file's text, a nested
    CLAUDE.md's, a hook's context...), not the paths and flags around it."""
    if kind == "file":
        content = attachment.get("content")
        file = content.get("file") if isinstance(content, dict) else None
        text = file.get("content") if isinstance(file, dict) else None
        return len(text) if isinstance(text, str) else sum(len(v) for v in _strings(content))
    if kind == "nested_memory":
        content = attachment.get("content")
        inner = content.get("content") if isinstance(content, dict) else content
        return sum(len(v) for v in _strings(inner))
    key = {"edited_text_file": "snippet", "queued_command": "prompt"}.get(kind, "content")
    value = attachment.get(key)
    if kind.endswith("_delta"):
        value = [attachment.get("addedBlocks"), attachment.get("addedLines")]
    return sum(len(v) for v in _strings(value))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []
