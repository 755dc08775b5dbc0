"""The read ledger's decision core (pure): given what a context already holds and this Read, what
should the model see? Design, notice texts and rules: docs/LEDGER.md (issue #3).

A context is the main thread or one subagent. Per file path the ledger keeps `Segment`s: line
ranges a Read of this epoch delivered in full, newest last, with the sha256 of their text (the
text itself sits in a content-addressed blob store, reached through `load`). For each requested
line the newest segment covering it says what the context last received for that line.

Standard library only: the PostToolUse hook imports this module.
"""

from __future__ import annotations

import os

from ccstate.ledger import text as ledger_text
from ccstate.ledger.records import Claim, Decision, Ledger, Options, ReadEvent, Segment
from ccstate.ledger.text import NOTICE_TAG
from ccstate.store import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    Loader = Callable[[str], "str | None"]  # blob sha -> text, None when missing or damaged
    Kept = Callable[[str], bool]  # blob sha -> is it in the blob store still (cheaper than load)

__all__ = ["Claim", "Decision", "Ledger", "Options", "ReadEvent", "Segment"]  # re-exported

SCHEMA_VERSION = 2  # 2: `meta` (generation, transcript witness, last event, pid); #12
MAX_PATHS = 256  # per context; the least recently read path goes first
MAX_SEGMENTS = 12  # per path; segments covered by a newer one go first
MAX_HISTORY = 64  # per context, newest kept
# Stat stamps of recently read files (the file sha of a history entry without hashing an
# unchanged file again): a cache, so a small one. Every PostToolUse parses and rewrites the
# ledger; at 256 entries the cache alone was 40 KB of a 95 KB file (#14).
MAX_FILES = 64
MAX_CONTEXT_CHARS = 9_000  # a diff rides in additionalContext (Claude Code inlines <= 10,000)


# --------------------------------------------------------------------------- input


def sha256(text: str) -> str:
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


def read_event(
    tool_input: Mapping[str, Any], response: Any, cwd: str, tool_use_id: str = ""
) -> ReadEvent:
    """A Read's payload as a ReadEvent; `skip` says why the ledger must leave it alone."""
    raw_path = tool_input.get("file_path")
    path = normpath(raw_path if isinstance(raw_path, str) else "", cwd)
    args = _args_key(tool_input.get("offset"), tool_input.get("limit"))
    if not isinstance(response, dict) or response.get("type") != "text":
        kind = response.get("type") if isinstance(response, dict) else type(response).__name__
        return ReadEvent(path, args, 0, "", 0, tool_use_id, f"not a text read ({kind})")
    file = response.get("file")
    file = file if isinstance(file, dict) else {}
    content, start = file.get("content"), file.get("startLine")
    num, total = file.get("numLines"), file.get("totalLines")
    if isinstance(file.get("filePath"), str) and file["filePath"]:
        path = normpath(file["filePath"], cwd)
    skip = _skip_reason(tool_input, file, content, start, num, total, path)
    if skip:
        return ReadEvent(path, args, 0, "", 0, tool_use_id, skip)
    assert isinstance(content, str) and isinstance(start, int) and isinstance(total, int)
    lines = tuple(content.split("\n"))
    if len(lines) != num:
        return ReadEvent(path, args, 0, "", 0, tool_use_id, f"numLines {num} != {len(lines)}")
    return ReadEvent(path, args, start, content, total, tool_use_id, "", lines, sha256(content))


def _skip_reason(
    tool_input: Mapping[str, Any],
    file: Mapping[str, Any],
    content: Any,
    start: Any,
    num: Any,
    total: Any,
    path: str,
) -> str:
    if file.get("truncatedByTokenCap"):
        return "token-capped partial result"
    if tool_input.get("pages"):
        return "pages requested"
    if path.endswith(".ipynb") or not path:
        return "notebook" if path else "no path"
    if not isinstance(content, str) or not content:
        return "empty content"
    ints = (start, num, total)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in ints) or start < 1:
        return "line numbers missing"
    if content.startswith(NOTICE_TAG):
        return "already a ccstate notice"
    return ""


def normpath(path: str, cwd: str) -> str:
    """Absolute and normalised, symlinks kept: two spellings of one file stay two paths."""
    if not path:
        return ""
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd or "/", path))


def _args_key(offset: Any, limit: Any) -> str:
    off = offset if isinstance(offset, int) and not isinstance(offset, bool) and offset > 1 else 1
    lim = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else ""
    return f"{off}:{lim}"


# --------------------------------------------------------------------------- the decision


def decide(
    ledger: Ledger, read: ReadEvent, load: Loader, opts: Options, kept: Kept | None = None
) -> Decision:
    """Full content unless the context provably holds (part of) this text already, and the
    blob store still keeps what it was given (evicted text: full content, never a notice;
    `kept` answers for the identical case without reading the blob, `load` otherwise)."""
    if not opts.enabled:
        return Decision("full", "disabled")
    if read.skip:
        return Decision("full", read.skip)
    if _escape_hatch(ledger.pending, read):
        return Decision("full", "escape hatch: same Read right after a notice or diff")
    segments = ledger.paths.get(read.path, ())
    if not segments:
        return Decision("full", "first read of this path in this epoch")
    newest = _newest_overlapping(segments, read.start, read.end)
    if newest is None:
        return Decision("full", "no line of this range delivered yet")
    if (newest.start, newest.end, newest.sha) == (read.start, read.end, read.sha):
        if not (kept(newest.sha) if kept is not None else load(newest.sha) is not None):
            return Decision("full", "ledger text missing or damaged")
        claim = Claim(newest.read_no, read.start, read.end, read.sha)
        return _identical(read, (claim,), opts)
    owners, same, missing = _compare_lines(segments, read, load)
    if missing:
        return Decision("full", "ledger text missing or damaged")
    if all(same):
        return _identical(read, _claims(read, owners, same), opts)
    candidates = [
        _unseen(read, owners, same, opts) if opts.unseen_ranges else None,
        _diff(segments, read, load, opts)
        if opts.diff and not all(o == 0 for o in owners)
        else None,
    ]
    best = max((c for c in candidates if c), key=lambda c: c.saved_chars, default=None)
    if best is None or best.saved_chars < opts.min_saved_chars:
        return Decision("full", "changed or unseen lines; replacing would save too little")
    return best


def _escape_hatch(pending: tuple[str, ...] | None, read: ReadEvent) -> bool:
    """The very next Read asks again for the path and range just answered with less, and the
    text is what it was then (an older ledger kept no sha: the path and range decide). A
    change in between is news: the ordinary decision answers it (a diff, the changed lines)."""
    if pending is None or pending[:2] != (read.path, read.args):
        return False
    return len(pending) < 3 or pending[2] == read.sha


def _newest_overlapping(segments: Iterable[Segment], start: int, end: int) -> Segment | None:
    for seg in reversed(tuple(segments)):
        if seg.start <= end and seg.end >= start:
            return seg
    return None


def _compare_lines(
    segments: tuple[Segment, ...], read: ReadEvent, load: Loader
) -> tuple[list[int], list[bool], bool]:
    """Per requested line: the Read # that last delivered it (0: never) and whether it is equal."""
    owners, texts, missing = _latest_lines(segments, read.start, read.end, load)
    same = [owner != 0 and texts[i] == read.lines[i] for i, owner in enumerate(owners)]
    return owners, same, missing


def _latest_lines(
    segments: tuple[Segment, ...], start: int, end: int, load: Loader
) -> tuple[list[int], list[str], bool]:
    """Per line start..end: the Read # that last delivered it (0: never) and its text then."""
    n = end - start + 1
    owners, texts = [0] * n, [""] * n
    for seg in reversed(segments):
        lo, hi = max(start, seg.start), min(end, seg.end)
        todo = [i for i in range(lo - start, hi - start + 1) if not owners[i]]
        if not todo:
            continue
        old = _segment_lines(seg, load)
        if old is None:
            return owners, texts, True
        for i in todo:
            owners[i] = seg.read_no
            texts[i] = old[i + start - seg.start]
    return owners, texts, False


def _segment_lines(seg: Segment, load: Loader) -> list[str] | None:
    text = load(seg.sha)
    if text is None:
        return None
    lines = text.split("\n")
    return lines if len(lines) == seg.end - seg.start + 1 else None


def _claims(read: ReadEvent, owners: list[int], same: list[bool]) -> tuple[Claim, ...]:
    """Runs of equal lines, grouped by the Read that delivered them."""
    out: list[Claim] = []
    i, n = 0, len(owners)
    while i < n:
        if not same[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and same[j + 1] and owners[j + 1] == owners[i]:
            j += 1
        text = "\n".join(read.lines[i : j + 1])
        out.append(Claim(owners[i], read.start + i, read.start + j, sha256(text)))
        i = j + 1
    return tuple(out)


def _identical(read: ReadEvent, claims: tuple[Claim, ...], opts: Options) -> Decision:
    if not opts.identical:
        return Decision("full", "identical, but dedupe.identical is off")
    notice = ledger_text.identical_notice(read, claims)
    saved = len(read.content) - len(notice)
    if saved < opts.min_saved_chars:
        return Decision("full", "identical, but too short to be worth a notice")
    return Decision("identical", "unchanged", notice, 0, 1, claims=claims, saved_chars=saved)


def _unseen(read: ReadEvent, owners: list[int], same: list[bool], opts: Options) -> Decision | None:
    need = [i for i, ok in enumerate(same) if not ok]
    first, last = need[0], need[-1]
    if first == 0 and last == len(same) - 1:
        return None
    shown = "\n".join(read.lines[first : last + 1])
    claims = _claims(read, owners, same)
    omitted = [c for c in claims if c.end < read.start + first or c.start > read.start + last]
    note = ledger_text.unseen_note(read, read.start + first, read.start + last, omitted)
    saved = len(read.content) - len(shown) - len(note)
    return Decision(
        "unseen",
        "part of the range already delivered",
        shown,
        read.start + first,
        last - first + 1,
        note,
        tuple(omitted),
        saved,
    )


def _diff(
    segments: tuple[Segment, ...], read: ReadEvent, load: Loader, opts: Options
) -> Decision | None:
    """A unified diff against the newest delivery of the same requested range."""
    base = next((s for s in reversed(segments) if s.args == read.args), None)  # "" never matches
    if base is None or base.start != read.start or base.sha == read.sha:
        return None
    old = _segment_lines(base, load)
    if old is None:
        return None
    body = ledger_text.render_diff(old, base.start, list(read.lines), read.start)
    if body is None:  # too many edits, or too costly to find: full content
        return None
    note = ledger_text.diff_note(read, base, body)
    notice = ledger_text.diff_notice(read, base)
    if len(note) > MAX_CONTEXT_CHARS or len(body) > opts.diff_max_ratio * len(read.content):
        return None
    saved = len(read.content) - len(notice) - len(note)
    claim = Claim(base.read_no, base.start, base.end, base.sha)
    return Decision("diff", "changed since delivered", notice, 0, 1, note, (claim,), saved)


# --------------------------------------------------------------------------- bookkeeping


def delivered(read: ReadEvent, decision: Decision) -> tuple[int, int, str] | None:
    """(start, end, text) of the lines this Read put into the context in full, if any."""
    if decision.kind == "full" and not read.skip:
        return read.start, read.end, read.content
    if decision.kind == "unseen":
        end = decision.start_line + decision.num_lines - 1
        return decision.start_line, end, decision.content
    return None  # a notice or a diff: the context holds no new verbatim text


def record(
    ledger: Ledger,
    read: ReadEvent,
    decision: Decision,
    file_sha: str = "",
    stamp: list[Any] | None = None,
) -> Ledger:
    """The ledger after this Read was answered with `decision` (file sha and stat stamp from
    the store)."""
    if read.skip and not read.path:
        return ledger
    read_no = next_read_no(ledger, read)
    paths = dict(ledger.paths)
    got = delivered(read, decision)
    if got is not None:
        start, end, text = got
        whole = decision.kind == "full"  # a diff base must be a whole requested range
        sha = read.sha if whole else sha256(text)
        new = Segment(start, end, sha, read_no, read.args if whole else "")
        kept = [s for s in paths.pop(read.path, ()) if not (start <= s.start and s.end <= end)]
        paths[read.path] = (*kept[-(MAX_SEGMENTS - 1) :], new)
    elif read.path in paths:
        paths[read.path] = paths.pop(read.path)  # most recently read goes last
    while len(paths) > MAX_PATHS:
        del paths[next(iter(paths))]
    entry = {
        "n": read_no,
        "tool_use_id": read.tool_use_id,
        "path": read.path,
        "args": read.args,
        "range": [read.start, read.end] if not read.skip else None,
        "sha": read.sha,
        "file_sha": file_sha,
        "kind": decision.kind,
        "reason": decision.reason,
        "epoch": ledger.epoch,
    }
    if read.command:
        entry.update(tool="Bash", command=read.command)
    files = dict(ledger.files)
    files.pop(read.path, None)
    if stamp is not None and file_sha:
        files[read.path] = {"stamp": stamp, "sha": file_sha}
    while len(files) > MAX_FILES:
        del files[next(iter(files))]
    stats = dict(ledger.stats)
    stats["reads"] = stats.get("reads", 0) + 1
    stats[decision.kind] = stats.get(decision.kind, 0) + 1
    stats["saved_chars"] = stats.get("saved_chars", 0) + decision.saved_chars
    return Ledger(
        epoch=ledger.epoch,
        epoch_reason=ledger.epoch_reason,
        reads=ledger.reads if read.command else read_no,
        paths=paths,
        pending=(read.path, read.args, read.sha) if decision.replaced else None,
        history=(*ledger.history[-(MAX_HISTORY - 1) :], entry),
        stats=stats,
        files=files,
        shell_reads=-read_no if read.command else ledger.shell_reads,
        meta=ledger.meta,
        writes=ledger.writes,
        unheld=_unheld_after_read(ledger.unheld, read, decision),
    )


def _unheld_after_read(
    unheld: tuple[str, ...], read: ReadEvent, decision: Decision
) -> tuple[str, ...]:
    """A whole file delivered in full is again what the context holds of it."""
    if read.path not in unheld or decision.kind != "full" or read.skip:
        return unheld
    if read.start != 1 or read.end != read.total_lines:
        return unheld
    return tuple(p for p in unheld if p != read.path)


def next_read_no(ledger: Ledger, read: ReadEvent) -> int:
    """The number the ledger gives this read: Read #n counts the Reads of the epoch, and a
    shell read (ledger/shell.py) counts apart, as -n ("shell read #n"), as the model made them."""
    return -(ledger.shell_reads + 1) if read.command else ledger.reads + 1


def new_epoch(ledger: Ledger, reason: str) -> Ledger:
    """Forget what the context saw (compaction, resume); history, counters and the stat cache
    survive. A no-op when nothing was read or written since the epoch began (PreCompact fires
    2-4 times)."""
    if not ledger.reads and not ledger.paths and not ledger.writes:
        return ledger
    stats = dict(ledger.stats)
    stats["epochs"] = stats.get("epochs", 0) + 1
    return Ledger(
        epoch=ledger.epoch + 1,
        epoch_reason=reason,
        history=ledger.history,
        stats=stats,
        files=ledger.files,
        meta=ledger.meta,
    )


def with_meta(ledger: Ledger, **meta: Any) -> Ledger:
    """The ledger with `meta` entries set (the epoch's witnesses, docs/RELIABILITY.md)."""
    return updated(ledger, meta={**ledger.meta, **meta})


def updated(ledger: Ledger, **changes: Any) -> Ledger:
    """A copy of `ledger` with some fields replaced (records are values)."""
    fields = {name: getattr(ledger, name) for name in Ledger.__slots__}
    return Ledger(**{**fields, **changes})


REPLACED_KINDS = ("identical", "unseen", "diff")


def replaced_paths(ledger: Ledger, epoch: int) -> list[str]:
    """Paths whose Reads in `epoch` were answered with a notice, an omission or a diff."""
    return sorted(
        {
            str(h.get("path"))
            for h in ledger.history
            if h.get("epoch") == epoch and h.get("kind") in REPLACED_KINDS
        }
    )


def known_lines(ledger: Ledger, path: str, start: int, end: int, load: Loader) -> list[str] | None:
    """The text the context last received for lines start..end of `path`; None if any is not."""
    if end < start:
        return None
    owners, texts, missing = _latest_lines(ledger.paths.get(path, ()), start, end, load)
    return None if missing or not all(owners) else texts
