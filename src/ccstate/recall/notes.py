"""Moments from what ccstate and the team wrote: DECISIONS.md entries, handoff sections,
progress-log entries (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ccstate.recall.moments import ANSWER_CAP, Moment
from ccstate.recall.text import clip


def decision_moments(log: Any) -> Iterator[Moment]:
    """One moment per entry of a parsed DECISIONS.md (`decisions.log.Log`)."""
    for entry in log.entries:
        d = entry.decision
        if not d.number:
            continue
        parts = [f"status: {d.status_text}"]
        parts += [f"{name}: {text}" for name, text in _sections(d) if text]
        title = f"{d.id}: {d.title}"
        yield Moment("decision", entry.start + 1, title, "\n".join(parts), d.date or "")


def _sections(d: Any) -> Iterable[tuple[str, str]]:
    return (("context", d.context), ("decision", d.decision), ("consequences", d.consequences))


_HANDOFF_HEAD = re.compile(r"^# Handoff: .*? · `?([^`·]*?)`? · session (\S+)")
_HANDOFF_WRITTEN = re.compile(r" on (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d) UTC")
_EMPTY_ITEM = "- none written yet"


def handoff_moments(text: str, session: str) -> Iterator[Moment]:
    """One moment per non-empty `## ` section of a handoff's markdown (`handoff.doc.render`)."""
    lines = text.splitlines()
    branch, ts = "", ""
    head = _HANDOFF_HEAD.match(lines[0]) if lines else None
    if head is not None:
        branch = head.group(1).strip()
        branch = "" if branch in ("detached HEAD", "detached") else branch
    written = _HANDOFF_WRITTEN.search("\n".join(lines[:3]))
    if written is not None:
        ts = f"{written.group(1)}T{written.group(2)}Z"
    starts = [i for i, ln in enumerate(lines) if ln.startswith("## ")]
    for n, start in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(lines)
        items = [ln for ln in lines[start + 1 : stop] if ln.strip()]
        if not items or items[0].startswith(_EMPTY_ITEM):
            continue
        title = "handoff: " + lines[start][3:].strip()
        body = clip("\n".join(items), ANSWER_CAP)
        yield Moment("handoff", start + 1, title, body, ts, branch, session)


_PROGRESS_HEAD = re.compile(r"^## (\S+) · (\S+) · session (\S+) · (\S+)")


def progress_moments(text: str) -> Iterator[Moment]:
    """One moment per entry (`## time · event · session · branch`) of a progress log."""
    lines = text.splitlines()
    starts = [i for i, ln in enumerate(lines) if _PROGRESS_HEAD.match(ln)]
    for n, start in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(lines)
        match = _PROGRESS_HEAD.match(lines[start])
        assert match is not None
        when, event, session, branch = match.groups()
        body = "\n".join(ln for ln in lines[start + 1 : stop] if ln.strip())
        branch = "" if branch == "detached" else branch.split(" @ ")[0]
        title = f"progress {event}"
        yield Moment("handoff", start + 1, title, clip(body, ANSWER_CAP), when, branch, session)
