"""Token accounting for one transcript: API calls deduplicated by `message.id`, compactions,
and what filled the context (pure over records; `scan_file` adds the reading).

Claude Code writes one API response with N content blocks as N assistant records that share
`message.id` and carry the same (final) usage; summing every record overstates the cost
(1.9x on the public corpus). Each response is counted once, with the usage of its last
record. Definitions: docs/REPORT.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccstate import transcript
from ccstate.composition import Composition, Tracker

CAPSULE_HEADER = "[ccstate] project state"  # = capsule.HEADER, kept literal: no import chain
DEFAULT_NOTICE_PREFIX = "[ccstate: not file content]"  # = ledger_text.NOTICE_TAG
NOTE_TAG = "[ccstate]"  # = ledger_text.NOTE_TAG: notes in additionalContext (diffs, ranges)
MAIN = "main"
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
    }
)


@dataclass(frozen=True, slots=True)
class Turn:
    """One API response: its final usage."""

    message_id: str
    model: str
    timestamp: str
    thread: str
    input: int
    cache_write_5m: int
    cache_write_1h: int
    cache_read: int
    output: int
    fast: bool = False

    @property
    def cache_write(self) -> int:
        return self.cache_write_5m + self.cache_write_1h

    @property
    def context(self) -> int:
        """Context size after this turn (reference §4): prompt tokens plus output."""
        return self.input + self.cache_write + self.cache_read + self.output


@dataclass(frozen=True, slots=True)
class Compaction:
    timestamp: str
    trigger: str  # manual / auto / "unknown" (1.0.x wrote no boundary record)
    pre_tokens: int
    pre_estimated: bool  # True: taken from the last turn's context, not compactMetadata
    post_tokens: int | None = None
    model: str = ""
    summary_chars: int = 0
    rebuild_5m: int = 0  # cache writes of the first API call after the compaction
    rebuild_1h: int = 0


@dataclass
class FileScan:
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


def ledger_text(name: str, default: str) -> str:
    """A marker of the read ledger's texts (issue #3), read lazily from where it is defined."""
    import importlib

    for module in ("ccstate.ledger_text", "ccstate.ledger"):
        try:
            value = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if isinstance(value, str) and value:
            return value
    return default


def notice_prefixes() -> tuple[str, ...]:
    """How the read ledger's notices (a Read result replaced by a notice) start."""
    return (ledger_text("NOTICE_TAG", DEFAULT_NOTICE_PREFIX),)


def scan_file(path: Path, prefixes: tuple[str, ...] | None = None) -> FileScan:
    """Read one transcript (streamed) and account for it."""
    stats = transcript.ReadStats()
    records = transcript.iter_light_records(path, stats, SKIP_TYPES)
    scan = scan_records(records, path=path, prefixes=prefixes or notice_prefixes())
    scan.records, scan.skipped = stats.records, stats.skipped
    return scan


def scan_records(
    records: Iterable[dict[str, Any]], *, path: Path, prefixes: tuple[str, ...]
) -> FileScan:
    """Account for the records of one transcript file (pure)."""
    subagent = path.parent.name == transcript.SUBAGENTS_DIR
    folder = path.resolve().parent
    project_dir = folder.parent.parent if subagent else folder
    scan = FileScan(str(path), transcript.session_of(path), project_dir.name, subagent)
    note_tag = ledger_text("NOTE_TAG", NOTE_TAG)
    _Scanner(scan, Tracker(prefixes, CAPSULE_HEADER, note_tag)).run(records)
    return scan


class _Scanner:
    def __init__(self, scan: FileScan, tracker: Tracker) -> None:
        self.scan = scan
        self.tracker = tracker
        self.tool_uses: dict[str, tuple[str, dict[str, Any]]] = {}
        self.sidechains = 0
        self.last_main: Turn | None = None
        self.rebuild_pending = False
        self.summary_pending = False
        self.summaries: set[int] = set()
        self.versions: set[str] = set()

    def run(self, records: Iterable[dict[str, Any]]) -> None:
        handlers = {"assistant": self._assistant, "user": self._user, "system": self._system}
        handlers["attachment"] = self._attachment
        for rec in records:
            stamp = rec.get("timestamp")
            if isinstance(stamp, str) and stamp:
                if not self.scan.first or stamp < self.scan.first:
                    self.scan.first = stamp
                self.scan.last = max(self.scan.last, stamp)
            version = rec.get("version")
            if isinstance(version, str):
                self.versions.add(version)
            handler = handlers.get(str(rec.get("type")))
            if handler is not None:
                handler(rec, self._thread(rec))
        self.scan.composition = self.tracker.finish()
        self.scan.versions = sorted(self.versions)

    def _thread(self, rec: dict[str, Any]) -> str:
        agent = rec.get("agentId")
        if isinstance(agent, str) and agent:
            return f"agent-{agent}"
        if rec.get("isSidechain"):
            # 1.0.x wrote Task subagents inline; each one starts a chain at a root prompt.
            if rec.get("type") == "user" and rec.get("parentUuid") is None and _is_prompt(rec):
                self.sidechains += 1
            return f"sidechain-{self.sidechains}"
        return MAIN

    def _assistant(self, rec: dict[str, Any], thread: str) -> None:
        message = rec.get("message")
        if not isinstance(message, dict):
            return
        for block in transcript.message_content(rec):
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                tool_input = block.get("input")
                inp = tool_input if isinstance(tool_input, dict) else {}
                self.tool_uses[block["id"]] = (str(block.get("name") or "unknown"), inp)
        usage = message.get("usage")
        model = str(message.get("model") or "unknown")
        if not isinstance(usage, dict) or model == "<synthetic>":
            return
        key = str(message.get("id") or rec.get("requestId") or f"no-id-{len(self.scan.turns)}")
        earlier = self.scan.turns.get(key)
        if earlier is not None:  # the same response, a later block: keep its final usage
            self.scan.folded += 1
            self.scan.turns[key] = _turn(key, model, earlier.timestamp, thread, usage)
            if thread == MAIN:
                self.last_main = self.scan.turns[key]
            return
        turn = _turn(key, model, str(rec.get("timestamp") or ""), thread, usage)
        self.tracker.api_call(thread)
        if thread == MAIN and self.rebuild_pending:
            self._set_last_compaction(
                rebuild_5m=turn.cache_write_5m, rebuild_1h=turn.cache_write_1h
            )
            self.rebuild_pending = False
        self.scan.turns[key] = turn
        if thread == MAIN:
            self.last_main = turn

    def _user(self, rec: dict[str, Any], thread: str) -> None:
        blocks = transcript.message_content(rec)
        if rec.get("isCompactSummary"):
            text = "\n".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
            self.tracker.compact_summary(text)
            if self.summary_pending:
                self._set_last_compaction(summary_chars=len(text))
                self.summary_pending = False
            elif self.last_main is None or hash(text) in self.summaries:
                # 1.0.x: a file that continues a compacted session, or a resume that restarts
                # from a summary already counted: the context restarts, nothing is summarised.
                self.tracker.compaction(thread)
            else:  # 1.0.x: a new summary with no boundary record before it
                stamp = str(rec.get("timestamp") or "")
                self._compacted(thread, "unknown", self.last_main.context, True, None, stamp)
                self._set_last_compaction(summary_chars=len(text))
            self.summaries.add(hash(text))
            return
        cwd = str(rec.get("cwd") or "")
        for block in blocks:
            kind = block.get("type")
            if kind == "tool_result":
                name, tool_input = self.tool_uses.get(str(block.get("tool_use_id")), ("?", {}))
                text = result_text(block.get("content"))
                error = bool(block.get("is_error"))
                self.tracker.tool_result(thread, name, tool_input, text, error, cwd)
            elif kind == "text":
                self._maybe_injection(thread, block.get("text"))

    def _system(self, rec: dict[str, Any], thread: str) -> None:
        if rec.get("subtype") == "compact_boundary":
            meta = rec.get("compactMetadata")
            meta = meta if isinstance(meta, dict) else {}
            raw_pre, post = meta.get("preTokens"), meta.get("postTokens")
            estimated = not isinstance(raw_pre, int)
            if isinstance(raw_pre, int):
                pre = raw_pre
            else:  # no metadata: the context of the last main-thread turn
                pre = self.last_main.context if self.last_main else 0
            trigger = str(meta.get("trigger") or "unknown")
            stamp = str(rec.get("timestamp") or "")
            post_tokens = post if isinstance(post, int) else None
            self._compacted(thread, trigger, pre, estimated, post_tokens, stamp)
            self.summary_pending = True
            return
        self._maybe_injection(thread, rec.get("content"))

    def _attachment(self, rec: dict[str, Any], thread: str) -> None:
        attachment = rec.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "hook_additional_context":
            for value in _strings(attachment.get("content")):
                self._maybe_injection(thread, value)

    def _maybe_injection(self, thread: str, text: Any) -> None:
        if not isinstance(text, str) or "[ccstate" not in text:
            return
        if CAPSULE_HEADER in text:
            self.tracker.injection(thread, text)
        elif text.lstrip().startswith(self.tracker.note_tag):
            self.tracker.note(thread, text.lstrip())

    def _compacted(
        self, thread: str, trigger: str, pre: int, estimated: bool, post: int | None, stamp: str
    ) -> None:
        model = self.last_main.model if self.last_main else ""
        self.scan.compactions.append(Compaction(stamp, trigger, pre, estimated, post, model))
        self.tracker.compaction(thread)
        self.rebuild_pending = True

    def _set_last_compaction(self, **changes: Any) -> None:
        if self.scan.compactions:
            last = self.scan.compactions[-1]
            self.scan.compactions[-1] = dataclasses.replace(last, **changes)


def _turn(key: str, model: str, stamp: str, thread: str, usage: dict[str, Any]) -> Turn:
    write = _int(usage.get("cache_creation_input_tokens"))
    split = usage.get("cache_creation")
    one_hour = _int(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else 0
    one_hour = min(one_hour, write)
    return Turn(
        message_id=key,
        model=model,
        timestamp=stamp,
        thread=thread,
        input=_int(usage.get("input_tokens")),
        cache_write_5m=write - one_hour,
        cache_write_1h=one_hour,
        cache_read=_int(usage.get("cache_read_input_tokens")),
        output=_int(usage.get("output_tokens")),
        fast=usage.get("speed") == "fast",
    )


def _is_prompt(rec: dict[str, Any]) -> bool:
    return not any(b.get("type") == "tool_result" for b in transcript.message_content(rec))


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


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []
