"""Stream Claude Code transcript JSONL into records, tolerating anything odd.

Files can be tens of MB: read line by line, never whole. Unknown record types
pass through as dicts; a malformed line (e.g. a partial last line written while
the session is live) is skipped and counted. Standard library only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class ReadStats:
    lines: int = 0
    records: int = 0
    skipped: int = 0  # blank, malformed or non-object lines
    skipped_lines: list[int] = field(default_factory=list)


def iter_records(path: Path, stats: ReadStats | None = None) -> Iterator[dict[str, Any]]:
    """Each JSON object in `path`, in file order."""
    stats = stats if stats is not None else ReadStats()
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, start=1):
            stats.lines += 1
            if not line.strip():
                continue
            record = _count(stats, number, _loads(line))
            if record is not None:
                yield record


def _loads(line: str | bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _count(stats: ReadStats, number: int, record: Any) -> dict[str, Any] | None:
    """Tally one parsed line: a dict is a record; anything else is skipped (first 20 noted)."""
    if not isinstance(record, dict):
        stats.skipped += 1
        if len(stats.skipped_lines) < 20:
            stats.skipped_lines.append(number)
        return None
    stats.records += 1
    return record


def message_content(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of a user/assistant record (a plain string becomes one text block)."""
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


# --------------------------------------------------------------------------- fast reading (#7)
# `ccstate report` reads tens of MB per run. Most bytes are in two places it does not need:
# `progress` records (2.1.x streams subagent activity into them) and a user record's
# `toolUseResult`, a second copy of the tool output that `message.content` already holds.
# `iter_light_records` skips both without decoding them and falls back to a full parse
# whenever the cheap checks are not sure.

SUBAGENTS_DIR = "subagents"
_TOP_TYPE = re.compile(rb'"type"\s*:\s*"([A-Za-z0-9_-]{1,40})"')
_TOOL_USE_RESULT = re.compile(rb'"toolUseResult"\s*:')
_CHEAP_PREFIX = 2048  # where to look for the top-level "type" key


def _at_top_level(prefix: bytes) -> bool:
    """True when `prefix` (a record's start) holds one `{` and no other bracket: the end of
    it is then at the top level, whatever the strings in it hold. False means "not sure"."""
    return prefix.count(b"{") == 1 and not any(c in prefix for c in (b"[", b"]", b"}"))


def top_level_type(line: bytes) -> str | None:
    """The record's `type` when it appears early at the top level, else None (parse to know)."""
    match = _TOP_TYPE.search(line, 0, _CHEAP_PREFIX)
    if match is None or not _at_top_level(line[: match.start()]):
        return None
    return match.group(1).decode("ascii")


def _decode_without_tool_use_result(line: bytes) -> Any:
    """A user record minus `toolUseResult` and the keys after it; None when unsure.

    No depth check is needed: cut anywhere but at the top level, the head is not valid JSON.
    """
    match = _TOOL_USE_RESULT.search(line)
    if match is None:
        return None
    head = line[: match.start()].rstrip()
    if not head.endswith(b","):
        return None
    try:
        record = json.loads(head[:-1] + b"}")
    except ValueError:
        return None
    return record if isinstance(record, dict) and "message" in record else None


def iter_light_records(
    path: Path, stats: ReadStats | None = None, skip_types: frozenset[str] = frozenset()
) -> Iterator[dict[str, Any]]:
    """Like `iter_records`, but skips records whose top-level `type` is in `skip_types` and
    returns user records without `toolUseResult` (and any keys after it).

    A record whose type cannot be told cheaply is parsed in full, so nothing is lost but speed.
    """
    stats = stats if stats is not None else ReadStats()
    with path.open("rb") as fh:
        for number, line in enumerate(fh, start=1):
            stats.lines += 1
            if line.isspace():  # stops at the first other byte: no copy of a long line
                continue
            kind = top_level_type(line)
            if kind is not None and kind in skip_types:
                stats.records += 1
                continue
            record = _decode_without_tool_use_result(line) if kind == "user" else None
            record = _count(stats, number, record if record is not None else _loads(line))
            if record is not None:
                yield record


def subagent_transcripts(main: Path) -> list[Path]:
    """The subagent transcripts of a main transcript: `<dir>/<session>/subagents/agent-*.jsonl`."""
    folder = main.parent / main.stem / SUBAGENTS_DIR
    try:
        return sorted(folder.glob("agent-*.jsonl"))
    except OSError:
        return []


def session_of(path: Path) -> str:
    """The session a transcript file belongs to: its stem, or for a file in
    `<session>/subagents/`, that session's id."""
    if path.parent.name == SUBAGENTS_DIR:
        return path.parent.parent.name
    return path.stem
