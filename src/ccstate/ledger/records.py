"""The read ledger's records: options, a Read as delivered, segments, claims, decisions and
one context's ledger. Plain `__slots__` classes, immutable by convention (treat them as values):
`import dataclasses` costs the PostToolUse hook milliseconds per call. Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal

    Kind = Literal["full", "identical", "unseen", "diff"]

# What a segment or claim was delivered by: a Read (#n > 0), a shell read (-n) or one of the
# context's own writes, numbered per tool from WRITE_BASE times the tool's place in
# WRITE_TOOLS (Write #2 is 1 * WRITE_BASE + 2, Edit #1 is 2 * WRITE_BASE + 1): each number is
# what the model would count itself.
WRITE_TOOLS = ("Write", "Edit", "MultiEdit")
WRITE_BASE = 1 << 40


def write_no(tool: str, n: int) -> int:
    """The number a segment delivered by the context's n-th `tool` call (a write) carries."""
    return (WRITE_TOOLS.index(tool) + 1) * WRITE_BASE + n


def written_by(no: int) -> tuple[str, int] | None:
    """(tool, n) of a write's number; None for a Read's or a shell read's."""
    if no < WRITE_BASE:
        return None
    place, n = divmod(no, WRITE_BASE)
    return (WRITE_TOOLS[place - 1], n) if place <= len(WRITE_TOOLS) else None


class _Record:
    """A small immutable-by-convention record: equality and repr from `__slots__`."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _Record)
            and type(other) is type(self)
            and other._values() == self._values()
        )

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({inner})"


class Options(_Record):
    __slots__ = (
        "diff",
        "diff_max_ratio",
        "enabled",
        "identical",
        "min_saved_chars",
        "unseen_ranges",
    )

    def __init__(
        self,
        enabled: bool = True,
        identical: bool = True,
        unseen_ranges: bool = True,
        diff: bool = True,
        diff_max_ratio: float = 0.5,
        min_saved_chars: int = 200,
    ) -> None:
        self.enabled = enabled
        self.identical = identical
        self.unseen_ranges = unseen_ranges
        self.diff = diff
        self.diff_max_ratio = diff_max_ratio
        self.min_saved_chars = min_saved_chars

    @classmethod
    def from_config(cls, config: Any) -> Options:
        """From a `config.Config` (anything with `.get(dotted_key)`)."""
        return cls(
            enabled=bool(config.get("dedupe.enabled")),
            identical=bool(config.get("dedupe.identical")),
            unseen_ranges=bool(config.get("dedupe.unseen_ranges")),
            diff=bool(config.get("dedupe.diff")),
            diff_max_ratio=float(config.get("dedupe.diff_max_ratio")),
            min_saved_chars=int(config.get("dedupe.min_saved_chars")),
        )


class ReadEvent(_Record):
    """One Read as delivered. `skip` names why it must pass untouched ("" when it may not).

    `args` is the requested range as "offset:limit" ("1:" = from the top, no limit).
    `command` is the shell command of a shell read (`cat F`; ledger/shell.py), "" for a Read.
    """

    __slots__ = (
        "args",
        "command",
        "content",
        "lines",
        "path",
        "sha",
        "skip",
        "start",
        "tool_use_id",
        "total_lines",
    )

    def __init__(
        self,
        path: str,
        args: str,
        start: int,
        content: str,
        total_lines: int,
        tool_use_id: str = "",
        skip: str = "",
        lines: tuple[str, ...] = (),
        sha: str = "",
        command: str = "",
    ) -> None:
        self.path = path
        self.command = command
        self.args = args
        self.start = start
        self.content = content
        self.total_lines = total_lines
        self.tool_use_id = tool_use_id
        self.skip = skip
        self.lines = lines
        self.sha = sha

    @property
    def end(self) -> int:
        return self.start + len(self.lines) - 1


class Segment(_Record):
    """Lines start..end, delivered verbatim by Read #read_no; text sha256 `sha`. `args` is that
    Read's requested range when it delivered all of it, "" for part of one (an unseen range)."""

    __slots__ = ("args", "end", "read_no", "sha", "start")

    def __init__(self, start: int, end: int, sha: str, read_no: int, args: str) -> None:
        self.start = start
        self.end = end
        self.sha = sha
        self.read_no = read_no
        self.args = args


class Claim(_Record):
    """What a replacement relies on: Read #read_no delivered lines start..end with text `sha`."""

    __slots__ = ("end", "read_no", "sha", "start")

    def __init__(self, read_no: int, start: int, end: int, sha: str) -> None:
        self.read_no = read_no
        self.start = start
        self.end = end
        self.sha = sha


class Decision(_Record):
    """What the model gets: `kind` "full" (the Read as is) or a replacement `content` starting
    at `start_line`, plus `context` (additionalContext) and the `claims` it relies on."""

    __slots__ = (
        "claims",
        "content",
        "context",
        "kind",
        "num_lines",
        "reason",
        "saved_chars",
        "start_line",
    )

    def __init__(
        self,
        kind: Kind,
        reason: str,
        content: str = "",
        start_line: int = 0,
        num_lines: int = 0,
        context: str = "",
        claims: tuple[Claim, ...] = (),
        saved_chars: int = 0,
    ) -> None:
        self.kind: Kind = kind
        self.reason = reason
        self.content = content
        self.start_line = start_line
        self.num_lines = num_lines
        self.context = context
        self.claims = claims
        self.saved_chars = saved_chars

    @property
    def replaced(self) -> bool:
        return self.kind != "full"


class Ledger(_Record):
    """One context's state for the current epoch, plus counters and a stat cache that survive
    epochs. `paths` maps a path to its segments, newest last; `pending` is the (path, args,
    sha of the text then) of the last Read when it was replaced (the escape hatch); `files`
    maps a path to
    {"stamp": [mtime_ns, size, inode], "sha": file sha256}, so an unchanged file is not hashed
    again. `meta` holds what proves the epoch is still current (docs/RELIABILITY.md): the
    session `generation` it was built under, the transcript position checked (`witness`), the
    time of its last event (`last_seen`) and the Claude Code process (`pid`). `writes` counts
    the context's own Writes, Edits and MultiEdits of the epoch, per tool (ledger/writes.py)."""

    __slots__ = (
        "epoch",
        "epoch_reason",
        "files",
        "history",
        "meta",
        "paths",
        "pending",
        "reads",
        "shell_reads",
        "stats",
        "unheld",
        "writes",
    )

    def __init__(
        self,
        epoch: int = 1,
        epoch_reason: str = "start",
        reads: int = 0,
        paths: Mapping[str, tuple[Segment, ...]] | None = None,
        pending: tuple[str, ...] | None = None,
        history: tuple[dict[str, Any], ...] = (),
        stats: Mapping[str, int] | None = None,
        files: Mapping[str, Mapping[str, Any]] | None = None,
        shell_reads: int = 0,
        meta: Mapping[str, Any] | None = None,
        writes: Mapping[str, int] | None = None,
        unheld: tuple[str, ...] = (),
    ) -> None:
        self.epoch = epoch
        self.epoch_reason = epoch_reason
        self.reads = reads  # Reads in this epoch: Read #n in notices
        self.paths: Mapping[str, tuple[Segment, ...]] = paths if paths is not None else {}
        self.pending = pending
        self.history = history
        self.stats: Mapping[str, int] = stats if stats is not None else {}
        self.files: Mapping[str, Mapping[str, Any]] = files if files is not None else {}
        self.shell_reads = shell_reads  # shell reads in this epoch: "shell read #n" in notices
        self.meta: Mapping[str, Any] = meta if meta is not None else {}
        # the context's own Writes / Edits / MultiEdits in this epoch, per tool: "Edit #n"
        self.writes: Mapping[str, int] = writes if writes is not None else {}
        # paths the context wrote since their last whole delivery without the ledger knowing
        # the result: their segments still say what Reads delivered, but are no base for the
        # text after a later edit (writes.held_text)
        self.unheld = unheld
