"""The capsule's lines about a handoff, and what the file adds beyond them (pure; #42).

`make_gist` picks at most six short lines from the handoff's items (their tags: no new
facts). `adds` names what the handoff file holds that those lines do not say and a
successor would open it for: the next steps the gist does not show whole, failing checks
(the file has their telling lines, wherever they are in the list), the open todos' and
unresolved errors' texts, Claude Code's recap, compaction records. Left out on purpose: a
prompt's words past the gist's cut, decisions (the capsule lists the active ones), changed
files past the three named, commit subjects and the repository state (git says them,
fresher), and passing checks older than the three shown. An empty `adds` means the file
spares no read, and the capsule points to no file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

NAMED = ("session title:", "Claude Code's recap:")  # goal items that are not prompts
GIST_CHECKS = 3  # checks the capsule's `checks` line names
GIST_FILES = 3  # changed files it names


class Line(Protocol):
    """A handoff item as far as the gist reads it (doc.Item)."""

    @property
    def text(self) -> str: ...

    @property
    def tag(self) -> str: ...


Sections = Mapping[str, Sequence[Line]]


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def make_gist(sections: Sections) -> tuple[tuple[str, str], ...]:
    """At most six short lines for the capsule, from the items' tags (no new facts)."""
    gist: list[tuple[str, str]] = []
    notes = sections.get("next", ())
    if notes:
        more = f" (+{len(notes) - 1} more)" if len(notes) > 1 else ""
        gist.append(("next", notes[0].tag + more))
    goal = [i for i in sections.get("goal", ()) if not i.text.startswith(NAMED)]
    if goal:
        gist.append(("goal", goal[0].tag))
    if len(goal) > 1:
        gist.append(("latest prompt", goal[-1].tag))
    changed = sections.get("changed", ())
    files = [i.tag[len("file:") :] for i in changed if i.tag.startswith("file:")]
    commits = sum(i.tag == "commit" for i in changed)
    parts = []
    if files:
        more = f", +{len(files) - GIST_FILES} more" if len(files) > GIST_FILES else ""
        parts.append(f"{plural(len(files), 'file')} ({', '.join(files[:GIST_FILES])}{more})")
    if commits:
        parts.append(plural(commits, "commit"))
    if parts:
        gist.append(("changed", "; ".join(parts)))
    checks = [i.tag for i in sections.get("checks", ())[:GIST_CHECKS]]
    if checks:
        gist.append(("checks", "; ".join(checks)))
    todos, errors = len(sections.get("todos", ())), len(sections.get("errors", ()))
    if todos or errors:
        gist.append(("open", f"{plural(todos, 'open todo')}, {plural(errors, 'unresolved error')}"))
    return tuple(gist)


def adds(sections: Sections) -> tuple[str, ...]:
    """What the handoff file holds beyond the gist, as short counts ("2 failing checks",
    "3 next steps"); () when nothing."""
    out = []
    notes = sections.get("next", ())
    if len(notes) > 1 or (notes and notes[0].text != notes[0].tag):
        out.append(plural(len(notes), "next step"))
    checks = sections.get("checks", ())
    failing = sum("FAILED" in i.tag for i in checks)
    if failing:
        out.append(plural(failing, "failing check"))
    for key, word in (("todos", "open todo"), ("errors", "unresolved error")):
        if sections.get(key):
            out.append(plural(len(sections[key]), word))
    if any(i.text.startswith(NAMED[1]) for i in sections.get("goal", ())):
        out.append("Claude Code's recap")
    if sections.get("compactions"):
        out.append(plural(len(sections["compactions"]), "compaction record"))
    return tuple(out)
