"""Stream Claude Code transcript JSONL into records, tolerating anything odd.

Files can be tens of MB: read line by line, never whole. Unknown record types
pass through as dicts; a malformed line (e.g. a partial last line written while
the session is live) is skipped and counted. Standard library only.
"""

from __future__ import annotations

import json
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
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            if not isinstance(record, dict):
                stats.skipped += 1
                if len(stats.skipped_lines) < 20:
                    stats.skipped_lines.append(number)
                continue
            stats.records += 1
            yield record


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
