"""The progress log: one entry per handoff written, append-only, newest last, in
`handoff/progress.md`; past `handoff.progress_max_bytes` it moves to `handoff/archive/`
(`progress.<n>.md`, the newest `handoff.progress_archives` kept) and a fresh log starts.
Written by store.py under the index lock; recall indexes its entries (recall/notes.py).
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from ccstate import store
from ccstate.config import Config
from ccstate.handoff import index as handoff
from ccstate.handoff.doc import Handoff


def entry(doc: Handoff, rel: str) -> str:
    """The log's entry for a handoff written at `rel`: its heading, its gist, its path."""
    m = doc.meta
    where = m.branch or "detached"
    head = f" @ {m.head[:7]}" if m.head else ""
    lines = [f"## {m.written} · {m.event} · session {m.session[:8]} · {where}{head}"]
    lines += [f"- {key}: {text}" for key, text in doc.gist]
    lines.append(f"- handoff: {rel}")
    return "\n".join(lines) + "\n\n"


def append(state: Path, config: Config, text: str) -> None:
    """Append to progress.md; past the size limit it moves to archive/ first (bounded)."""
    log = Path(handoff.handoff_dir(state)) / "progress.md"
    limit = int(config.get("handoff.progress_max_bytes"))
    try:
        current = log.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = "# ccstate progress log (append-only; newest last)\n\n"
    if len(current.encode("utf-8")) + len(text.encode("utf-8")) > limit:
        _rotate(log, int(config.get("handoff.progress_archives")))
        current = "# ccstate progress log (append-only; newest last; older entries in archive/)\n\n"
    store.atomic_write_text(log, current + text, private=True)


def _rotate(log: Path, keep: int) -> None:
    archive = log.parent / "archive"
    store.make_private_dirs(archive)
    numbers = sorted(
        int(m.group(1))
        for p in archive.glob("progress.*.md")
        if (m := re.fullmatch(r"progress\.(\d+)\.md", p.name))
    )
    following = (numbers[-1] + 1) if numbers else 1
    if keep > 0 and log.exists():
        os.replace(log, archive / f"progress.{following}.md")
        numbers.append(following)
    for number in numbers[: max(0, len(numbers) - keep)]:
        with contextlib.suppress(FileNotFoundError, IsADirectoryError):
            (archive / f"progress.{number}.md").unlink()
