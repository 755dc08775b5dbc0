"""What a search returns: hits with their provenance and confidence, the REF that names one,
and the moments around it (`ccstate recall show REF`)."""

from __future__ import annotations

import dataclasses
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Literal

Confidence = Literal["strong", "weak"]


@dataclass(frozen=True)
class Hit:
    id: int
    kind: str
    session: str
    agent: str
    path: str
    line: int
    end_line: int
    ts: str
    branch: str
    title: str
    body: str
    score: float  # share of the question matched (its words weighted by rarity), in [0, 1]
    snippet: str = ""
    matched: tuple[str, ...] = field(default=())  # the question's words it holds, rarest first
    confidence: Confidence = "weak"

    def to_json(self, ranked: bool = True) -> dict[str, Any]:
        """The hit for `--json`; `ranked` False (a neighbour `recall show` prints) leaves out
        the confidence and its reason."""
        judged = {"confidence": self.confidence, "reason": reason(self)} if ranked else {}
        return {
            "ref": ref(self),
            "kind": self.kind,
            **judged,
            "session": self.session,
            "agent": self.agent or None,
            "file": self.path,
            "line": self.line,
            "end_line": self.end_line or None,
            "timestamp": self.ts or None,
            "branch": self.branch or None,
            "title": self.title,
            "text": self.body,
            "snippet": self.snippet,
            "score": round(self.score, 3),
            "matched": list(self.matched),
        }

    def but(self, **changes: Any) -> Hit:
        """This hit with some fields changed."""
        return dataclasses.replace(self, **changes)


def reason(hit: Hit) -> str:
    """Why a hit has its confidence: the question's words it matches, rarest first, and the
    share of the question (weighted by rarity) that makes."""
    words = ", ".join(hit.matched[:4]) + (", …" if len(hit.matched) > 4 else "")
    return f"matches {words or 'no word of it'} ({hit.score:.0%} of the question)"


def ref(hit: Hit) -> str:
    """A short, stable name for a hit (`ccstate recall show REF`): `3f2a9c1e:812` (a
    session's transcript), `agent-a12:40` (a subagent's), `3f2a9c1e.md:9` (a handoff),
    `DECISIONS.md:14`."""
    name = hit.path.rsplit("/", 1)[-1]
    stem, _dot, ext = name.rpartition(".")
    if ext == "jsonl":
        return f"{stem if stem.startswith('agent-') else stem[:8]}:{hit.line}"
    if hit.kind == "handoff" and hit.session and stem.startswith(hit.session[:8]):
        return f"{stem[:8]}.{ext}:{hit.line}"
    return f"{name}:{hit.line}"


SELECT = (
    "SELECT d.id, d.kind, d.session, s.agent, s.path, d.line, d.end_line, d.ts, d.branch,"
    " d.title, d.body FROM docs d JOIN sources s ON s.id = d.source"
)


def load(con: sqlite3.Connection, ids: list[int]) -> list[Hit]:
    """The moments `ids` as hits, in that order (an id no longer in the index is left out)."""
    if not ids:
        return []
    marks = ", ".join("?" for _ in ids)
    rows = {r[0]: r for r in con.execute(f"{SELECT} WHERE d.id IN ({marks})", ids)}
    return [from_row(rows[i]) for i in ids if i in rows]


def from_row(r: Any) -> Hit:
    """A Hit from a `SELECT` row."""
    return Hit(
        id=int(r[0]),
        kind=r[1],
        session=r[2],
        agent=r[3],
        path=r[4],
        line=int(r[5]),
        end_line=int(r[6]),
        ts=r[7],
        branch=r[8],
        title=r[9],
        body=r[10],
        score=0.0,
    )


def neighbours(con: sqlite3.Connection, hit_id: int, around: int = 2) -> list[Hit]:
    """The moments just before and after one, in the same file (`recall show`)."""
    row = con.execute("SELECT source, line FROM docs WHERE id = ?", (hit_id,)).fetchone()
    if row is None:
        return []
    source, line = row
    before = con.execute(
        f"{SELECT} WHERE d.source = ? AND (d.line < ? OR (d.line = ? AND d.id < ?)) "
        "ORDER BY d.line DESC, d.id DESC LIMIT ?",
        (source, line, line, hit_id, around),
    ).fetchall()
    after = con.execute(
        f"{SELECT} WHERE d.source = ? AND (d.line > ? OR (d.line = ? AND d.id >= ?)) "
        "ORDER BY d.line, d.id LIMIT ?",
        (source, line, line, hit_id, around + 1),
    ).fetchall()
    return [from_row(r) for r in [*reversed(before), *after]]


def find_ref(con: sqlite3.Connection, text: str) -> list[int]:
    """The moments a `ref` names (see `ref`); a session's first characters are enough, and a
    moment that spans lines (a call to its result, a failure to its fix) is named by either."""
    name, _, line = text.strip().rpartition(":")
    if not name or not line.isdigit():
        return []
    head, dot, ext = name.partition(".")
    like = head.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%/{like}%.{ext}" if dot else f"%/{like}%.jsonl"
    rows = con.execute(
        "SELECT d.id FROM docs d JOIN sources s ON s.id = d.source "
        "WHERE ? IN (d.line, d.end_line) AND s.path LIKE ? ESCAPE '\\' "
        "ORDER BY d.line != ?, d.id",  # a moment that starts there first
        (int(line), pattern, int(line)),
    ).fetchall()
    return [int(r[0]) for r in rows]
