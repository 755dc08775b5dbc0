"""The handoff document: built from a transcript scan, git and notes; rendered to markdown (pure).

Every item carries its provenance (`L123` = transcript line, `git <sha>`, `note 2`,
`git status`, `git diff <base>`, or a file), so a successor can check it. Every text
is redacted before it is trimmed, and the rendered document is redacted again.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ccstate.gitinfo import Snapshot
from ccstate.handoff import gist as handoff_gist
from ccstate.handoff.checks import failure_line
from ccstate.handoff.scan import Scan
from ccstate.secrets.redact import Redactor

SCHEMA_VERSION = 1
CHARS_PER_TOKEN = 3  # conservative for paths and code; the real count is checked in tests
# section key -> (title, most items rendered before the budget trims further)
SECTIONS: tuple[tuple[str, str, int], ...] = (
    ("next", "Next steps (from the agent)", 6),
    ("goal", "Goal", 4),  # first and latest prompt, the session's title, Claude Code's recap
    ("changed", "What changed", 16),
    ("checks", "Verification", 5),
    ("todos", "Open todos", 8),
    ("errors", "Unresolved errors", 3),
    ("decisions", "Decisions", 3),
    ("state", "Repository state", 4),
    ("compactions", "Compactions (what the summary kept of what ccstate asked)", 3),
)
CLIP_HEAD = 4000  # characters of a text an item looks at (whitespace is collapsed after)
MAX_KEPT = 60  # items kept in the JSON (the markdown shows fewer)
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Item:
    text: str
    source: str  # provenance, shown as [source]
    tag: str = ""  # a short fact for the capsule gist: a prompt, a path, a check's verdict


@dataclass(frozen=True)
class Meta:
    project: str
    session: str
    event: str  # PreCompact | SessionEnd | manual
    written: str  # UTC, "2026-11-30T12:34:56Z"
    written_epoch: int
    transcript: str  # file name only: paths of the user's home stay out of the document
    records: int
    last_line: int
    branch: str | None
    head: str | None
    head_subject: str
    base: str | None


@dataclass(frozen=True)
class Handoff:
    meta: Meta
    sections: tuple[tuple[str, tuple[Item, ...]], ...]
    gist: tuple[tuple[str, str], ...]  # short lines for the SessionStart capsule

    def section(self, key: str) -> tuple[Item, ...]:
        return dict(self.sections).get(key, ())

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "meta": self.meta.__dict__,
            "sections": [
                [k, [[i.text, i.source, i.tag] for i in items]] for k, items in self.sections
            ],
            "gist": [list(pair) for pair in self.gist],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Handoff:
        sections = tuple(
            (str(k), tuple(Item(*map(str, item)) for item in items))
            for k, items in data["sections"]
        )
        return cls(Meta(**data["meta"]), sections, tuple((str(k), str(v)) for k, v in data["gist"]))

    def fingerprint(self) -> str:
        """Hash of the content without when/why it was written: equal means nothing new.

        The transcript's length is left out too: it grows with every hook that runs
        (PreCompact firing again for the same compaction must be a no-op).
        """
        meta = {
            k: v
            for k, v in self.meta.__dict__.items()
            if k not in ("event", "written", "written_epoch", "records", "last_line")
        }
        body = json.dumps([meta, self.to_json()["sections"]], sort_keys=True)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]

    def substantive(self) -> bool:
        """Did the session do anything a successor needs? (a question-only session did not)"""
        changed = any(
            i.tag.startswith("file:") or i.tag == "commit" for i in self.section("changed")
        )
        keys = ("next", "checks", "todos", "errors")
        recorded = any(i.text.startswith("recorded:") for i in self.section("decisions"))
        return changed or recorded or any(self.section(k) for k in keys)


def clip(redactor: Redactor, text: str, limit: int) -> str:
    """Redact first (a secret must not be cut in half and survive), then one line, then trim."""
    head = redactor.before_cut(text, head=CLIP_HEAD)[:CLIP_HEAD]  # .env values too (#23)
    flat = _WS.sub(" ", head).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def build(
    scan: Scan,
    snap: Snapshot,
    notes: Sequence[str],
    meta: Meta,
    redactor: Redactor,
    *,
    known_decisions: Iterable[str] | None = None,
    roots: Sequence[str] = (),
    compactions: Sequence[tuple[str, str]] = (),
) -> Handoff:
    """The handoff for one session. `roots` make file paths relative (project first);
    `compactions`: (text, provenance) per compaction ccstate checked (compaction/store.py)."""
    r = redactor
    shown = _relative(roots)
    sections = (
        ("next", note_items(notes, r)),
        (
            "goal",
            tuple(
                Item(f'{label}: "{clip(r, p.text, 240)}"', f"L{p.line}", clip(r, p.text, 120))
                for label, p in [*scan.goal_prompts(), *scan.named()]
            ),
        ),
        ("changed", _changed(scan, snap, r, shown)),
        ("checks", _checks(scan, r)),
        ("todos", _todos(scan, r)),
        ("errors", _errors(scan, r, shown)),
        ("decisions", _decisions(scan, known_decisions)),
        ("state", _state(snap, r, meta)),
        ("compactions", compaction_items(compactions, r)),
    )
    draft = Handoff(meta, sections, ())
    return Handoff(meta, sections, make_gist(draft))


def compaction_items(entries: Sequence[tuple[str, str]], r: Redactor) -> tuple[Item, ...]:
    """Newest first: the latest compaction is what the successor most needs to know about."""
    return tuple(Item(clip(r, text, 300), source) for text, source in reversed(entries))


def note_items(notes: Sequence[str], r: Redactor) -> tuple[Item, ...]:
    return tuple(
        Item(clip(r, n, 300), f"note {i}", clip(r, n, 140)) for i, n in enumerate(notes, 1)
    )


def _relative(roots: Sequence[str]) -> Any:
    """A path shown relative to the first root holding it; pass it redacted (relpath makes it
    normal: `https://` would be `https:/` to redaction)."""

    def shown(path: str) -> str:
        for root in roots:
            if root and (path == root or path.startswith(root.rstrip("/") + "/")):
                return os.path.relpath(path, root)
        return path

    return shown


def _changed(scan: Scan, snap: Snapshot, r: Redactor, shown: Any) -> tuple[Item, ...]:
    items = [
        Item(
            f"{t.kind} `{clip(r, shown(r.redact(t.path)), 160)}`"
            + (f" x{t.count}" if t.count > 1 else ""),
            f"L{t.first_line}" + (f"-L{t.last_line}" if t.last_line != t.first_line else ""),
            "file:" + clip(r, shown(r.redact(t.path)), 60),
        )
        for t in sorted(scan.touches.values(), key=lambda t: t.last_line, reverse=True)[:MAX_KEPT]
    ]
    if snap.base and snap.diffstat:
        added = sum(max(a, 0) for _p, a, _d in snap.diffstat)
        deleted = sum(max(d, 0) for _p, _a, d in snap.diffstat)
        top = sorted(snap.diffstat, key=lambda row: (-(max(row[1], 0) + max(row[2], 0)), row[0]))[
            :5
        ]
        files = ", ".join(f"{clip(r, p, 80)} {_plusminus(a, d)}" for p, a, d in top)
        more = f", +{len(snap.diffstat) - len(top)} more" if len(snap.diffstat) > len(top) else ""
        items.insert(
            0,
            Item(
                f"diffstat since session start `{snap.base[:7]}`: {len(snap.diffstat)} files, "
                f"+{added} -{deleted} ({files}{more})",
                f"git diff {snap.base[:7]}",
            ),
        )
    elif snap.base:
        items.insert(
            0,
            Item(
                f"no changes to tracked files since session start `{snap.base[:7]}`",
                f"git diff {snap.base[:7]}",
            ),
        )
    commits = [(sha, subject, f"git {sha[:7]}") for sha, subject in snap.commits]
    known = {sha[:7] for sha, _s in snap.commits}
    commits += [
        (sha, subject, f"L{line}")
        for sha, (subject, line) in scan.commits.items()
        if sha[:7] not in known and not snap.commits
    ]
    for sha, subject, source in commits[:8]:
        items.append(Item(f'commit `{sha[:7]}` "{clip(r, subject, 120)}"', source, "commit"))
    return tuple(items)


def _plusminus(added: int, deleted: int) -> str:
    return "(binary)" if added < 0 else f"+{added}/-{deleted}"


def _checks(scan: Scan, r: Redactor) -> tuple[Item, ...]:
    """One item per tool (and target), newest first: its verdict, a failure's telling line,
    and the shell line that ran it (#42)."""
    latest = sorted(scan.checks.values(), key=lambda c: c.line, reverse=True)[:8]
    items = []
    for check in latest:
        verdict = check.verdict
        tool = clip(r, verdict.key, 80)
        said = clip(r, verdict.text(), 120)  # its figure is numbers and fixed words, mostly
        detail = ""
        if verdict.outcome == "FAILED" and check.output:
            detail = f": {clip(r, _failure(r, check.output), 160)}"
        command = clip(r, check.command, 140)
        ran = f" (ran `{command}`)" if command != tool else ""
        items.append(
            Item(
                f"`{tool}`: {said}{detail}{ran}",
                f"L{check.line}",
                f"`{clip(r, verdict.key, 60)}`: {said}",
            )
        )
    return tuple(items)


def _failure(r: Redactor, output: str) -> str:
    """A failed run's telling line, picked from its output once redacted (#23)."""
    return failure_line(r.before_cut(output, head=CLIP_HEAD)[:CLIP_HEAD])


def _todos(scan: Scan, r: Redactor) -> tuple[Item, ...]:
    return tuple(
        Item(f"[{t.status or 'pending'}] {clip(r, t.text, 160)}", f"L{t.line}")
        for t in scan.open_todos()[:MAX_KEPT]
    )


def _errors(scan: Scan, r: Redactor, shown: Any) -> tuple[Item, ...]:
    problems = sorted(scan.problems.values(), key=lambda p: p.line, reverse=True)[:10]
    return tuple(
        Item(
            _problem_text(
                p.tool, clip(r, shown(r.redact(p.subject)), 100), clip(r, p.message, 180)
            ),
            f"L{p.line}",
        )
        for p in problems
    )


def _problem_text(tool: str, subject: str, message: str) -> str:
    return f"{tool} `{subject}`: {message}" if subject else f"{tool}: {message}"


def _decisions(scan: Scan, known: Iterable[str] | None) -> tuple[Item, ...]:
    """IDs recorded with `ccstate decide`, and IDs cited that exist in DECISIONS.md."""
    items = []
    if scan.added:
        ids = sorted(scan.added, key=scan.added.__getitem__)
        items.append(Item("recorded: " + ", ".join(ids), f"L{scan.added[ids[0]]}"))
    valid = set(known or ())
    cited = [
        d
        for d in sorted(scan.cited, key=scan.cited.__getitem__)
        if d in valid and d not in scan.added
    ]
    if cited:
        items.append(
            Item("cited: " + ", ".join(cited) + " (DECISIONS.md)", f"L{scan.cited[cited[0]]}")
        )
    return tuple(items)


def _state(snap: Snapshot, r: Redactor, meta: Meta) -> tuple[Item, ...]:
    items = []
    if snap.head:
        where = f"branch `{snap.branch}`" if snap.branch else "detached HEAD"
        subject = f' "{clip(r, snap.head_subject, 100)}"' if snap.head_subject else ""
        items.append(Item(f"{where} at `{snap.head[:7]}`{subject}", f"git {snap.head[:7]}"))
    if snap.dirty:
        names = ", ".join(clip(r, line, 80) for line in snap.dirty[:8])
        more = f", +{len(snap.dirty) - 8} more" if len(snap.dirty) > 8 else ""
        items.append(Item(f"uncommitted: {len(snap.dirty)} ({names}{more})", "git status"))
    elif snap.head and not snap.note:
        items.append(Item("working tree clean", "git status"))
    if snap.note:
        items.append(Item(clip(r, snap.note, 160), "git"))
    return tuple(items)


def make_gist(handoff: Handoff) -> tuple[tuple[str, str], ...]:
    """At most six short lines for the capsule, from the items' tags (gist.py)."""
    return handoff_gist.make_gist(dict(handoff.sections))


def adds(handoff: Handoff) -> tuple[str, ...]:
    """What the file holds beyond the capsule's lines (gist.py); () when nothing."""
    return handoff_gist.adds(dict(handoff.sections))


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def render(handoff: Handoff, max_tokens: int, redactor: Redactor) -> str:
    """Markdown, cut section by section (lowest priority first) to fit `max_tokens`."""
    limits = {key: cap for key, _title, cap in SECTIONS}
    text = _render(handoff, limits)
    order = [key for key, _t, _c in reversed(SECTIONS)]
    floor = {key: 1 if key in ("next", "goal") else 0 for key in limits}

    def shown(key: str) -> int:
        return min(limits[key], len(handoff.section(key)))

    while estimate_tokens(text) > max_tokens and any(shown(k) > floor[k] for k in order):
        key = max(order, key=lambda k: (shown(k) - floor[k], -order.index(k)))
        limits[key] = shown(key) - 1
        text = _render(handoff, limits)
    return redactor.redact(text)


def _render(handoff: Handoff, limits: Mapping[str, int]) -> str:
    m = handoff.meta
    where = f"`{m.branch}`" if m.branch else "detached HEAD"
    head = f" at `{m.head[:7]}`" if m.head else ""
    lines = [
        f"# Handoff: {m.project} · {where} · session {m.session[:8]}",
        "",
        f"Written by ccstate ({m.event}) on {m.written.replace('T', ' ').rstrip('Z')} UTC, from "
        f"transcript `{m.transcript}` ({m.records} records, last line {m.last_line}){head}.",
        "Sources in brackets: [L12] transcript line 12, [git abc1234] a commit, [note 1] an agent "
        "note, [git status] / [git diff base] the working tree.",
    ]
    omitted = []
    for key, title, _cap in SECTIONS:
        items = handoff.section(key)
        if not items:
            continue  # an empty section is left out (#42)
        if items and limits[key] == 0:
            omitted.append(f"{title} ({len(items)})")
            continue
        lines += ["", f"## {title}"]
        shown = items[: limits[key]]
        lines += [f"- {i.text} [{i.source}]" for i in shown]
        if len(items) > len(shown):
            lines.append(f"- … {len(items) - len(shown)} more (`ccstate handoff show --json`)")
    if omitted:
        left_out = ", ".join(omitted)
        lines += [
            "",
            f"Left out for the size budget: {left_out}; see `ccstate handoff show --json`.",
        ]
    return "\n".join(lines) + "\n"
