"""What each API call's context held, by source, for the charts of `ccstate report --html`
(pure; standard library only).

While a transcript is scanned, `Sizes` keeps for the main thread (the scanner feeds it no
other) the characters each source has put
into the current epoch: `conversation` (prompts, compaction summaries), `claude_md` (the
`instructions` and `nested_memory` attachments of 2.1.x), `ccstate` (capsule and notes), and
`tool:<name>` (tool results by tool). At each new API call it records only the sources that
changed since the thread's previous call, so a scan stays small. `series` replays them per
call and puts the rest of the prompt the usage reports (system prompt, tools, reminders,
and whatever the transcript does not show) under `system`. Definitions: docs/REPORT.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

SYSTEM = "system"  # system prompt, tools and the rest: the prompt minus every estimate
ORDER = ("system", "claude_md", "conversation", "ccstate")  # then tools, largest first
CHARS_PER_TOKEN = 4
TOOLS_SHOWN = 5  # tools charted on their own; the rest as "tool:other"


class Sizes:
    """For one thread: characters by source in this epoch; per call: what changed (a
    delta). Other threads are ignored."""

    __slots__ = ("calls", "changed", "only", "threads")

    def __init__(self, only: str) -> None:
        self.only = only
        self.threads: dict[str, dict[str, int]] = {}
        self.changed: dict[str, set[str]] = {}
        self.calls: dict[str, list[list[Any]]] = {}  # [source, chars]: as JSON keeps them

    def add(self, thread: str, source: str, chars: int) -> None:
        if thread != self.only:
            return
        sums = self.threads.get(thread)
        if sums is None:
            sums = self.threads[thread] = {}
            self.changed[thread] = set()
        sums[source] = sums.get(source, 0) + chars
        self.changed[thread].add(source)

    def reset(self, thread: str) -> None:
        """A compaction: the thread's context starts again (every source back to 0)."""
        sums = self.threads.get(thread)
        if sums:
            for source in sums:
                sums[source] = 0
            self.changed[thread].update(sums)

    def call(self, thread: str, message_id: str) -> None:
        changed = self.changed.get(thread)
        if changed:
            sums = self.threads[thread]
            self.calls[message_id] = [[source, sums[source]] for source in sorted(changed)]
            changed.clear()


class Point(NamedTuple):
    """One API call of a chart: estimated tokens by source (they add up to `prompt`)."""

    prompt: int
    tokens: dict[str, int]


def series(calls: Iterable[tuple[int, Sequence[Sequence[Any]], int]]) -> list[Point]:
    """Points for consecutive calls of one thread: (prompt tokens the usage reports, the
    sources that changed before the call (a compaction sets them all to 0), the output tokens
    of the thread's earlier calls in this epoch: the model's side of the conversation).
    Estimates never exceed the prompt: what is left of it is `system`."""
    sums: dict[str, int] = {}
    out: list[Point] = []
    for prompt, changed, replies in calls:
        for source, chars in changed:
            sums[source] = chars
        tokens = {s: -(-c // CHARS_PER_TOKEN) for s, c in sums.items() if c > 0}
        if replies:
            tokens["conversation"] = tokens.get("conversation", 0) + replies
        estimated = sum(tokens.values())
        if estimated > prompt:  # chars/4 overshot: scale the estimates down to the prompt
            scale = prompt / estimated if estimated else 0.0
            tokens = {s: int(t * scale) for s, t in tokens.items()}
            estimated = sum(tokens.values())
        tokens[SYSTEM] = prompt - estimated
        out.append(Point(prompt, tokens))
    return out


def chart_sources(points: Sequence[Point], tools_shown: int = TOOLS_SHOWN) -> list[str]:
    """The series of a chart, in stacking order: system, CLAUDE.md, conversation, ccstate,
    then the biggest tools and `tool:other` for the rest."""
    peak: dict[str, int] = {}
    for point in points:
        for source, tokens in point.tokens.items():
            peak[source] = max(peak.get(source, 0), tokens)
    tools = sorted((s for s in peak if s.startswith("tool:")), key=lambda s: (-peak[s], s))
    fixed = [s for s in ORDER if peak.get(s, 0) > 0 or s == SYSTEM]
    shown = tools[:tools_shown]
    rest = ["tool:other"] if len(tools) > tools_shown else []
    return fixed + shown + rest


def stacked(points: Sequence[Point], sources: Sequence[str]) -> list[list[int]]:
    """Per source (in `sources` order), its tokens at each point; `tool:other` sums the
    tools not listed."""
    listed = set(sources)
    rows = []
    for source in sources:
        if source == "tool:other":
            rows.append(
                [
                    sum(t for s, t in p.tokens.items() if s.startswith("tool:") and s not in listed)
                    for p in points
                ]
            )
        else:
            rows.append([p.tokens.get(source, 0) for p in points])
    return rows
