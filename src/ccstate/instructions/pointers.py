"""Plain pointers in instruction and topic files: find them, resolve them, follow them.

A pointer is a markdown link or a path in the text or in a code span (mdscan.pointer_tokens),
resolved against its file's folder first, then the project root. Standard library and
string paths only (the hooks reach this through the lint).
"""

from __future__ import annotations

import os

from ccstate.instructions import loaded as instructions
from ccstate.instructions import mdscan
from ccstate.paths import is_within as within
from ccstate.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.instructions.loaded import LoadedSet

MAX_FILES = 2000


class Pointer(Record):
    """A plain pointer (link or path) on a line of an instruction or topic file."""

    __slots__ = ("kind", "line", "raw", "source", "target", "text")
    source: str
    line: int
    kind: str  # "link" | "path"
    raw: str
    target: str | None  # the existing file or folder it resolves to; None when dead
    text: str

    def __init__(
        self, source: str, line: int, kind: str, raw: str, target: str | None, text: str
    ) -> None:
        self._init(source=source, line=line, kind=kind, raw=raw, target=target, text=text)


def topic_files(folder: str, consulted: list[str]) -> list[str]:
    """Markdown files under the topic folder, sorted; hidden folders skipped."""
    found: list[str] = []
    consulted.append(folder)
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        consulted.extend(os.path.join(root, d) for d in dirs)
        found.extend(os.path.join(root, n) for n in sorted(names) if n.endswith((".md", ".mdx")))
        if len(found) > MAX_FILES:
            break
    return [os.path.realpath(p) for p in found]


_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", "build", "dist", "target"})


def nested_claude_mds(project: str, limit: int = 20_000) -> list[str]:
    """CLAUDE.md files below the project root (hidden and vendored folders skipped)."""
    found: list[str] = []
    for seen, (root, dirs, names) in enumerate(os.walk(project)):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        if root != project and "CLAUDE.md" in names:
            found.append(os.path.join(root, "CLAUDE.md"))
        if seen > limit:
            break
    return found


def scan_pointers(source: str, text: str, project: str, consulted: list[str]) -> list[Pointer]:
    """Every plain pointer in `text`, resolved against its file's folder, then the project."""
    found: list[Pointer] = []
    folder = os.path.dirname(source)
    for number, line in mdscan.prose_lines(text):
        for kind, raw, label in mdscan.pointer_tokens(line):
            target = None
            for base in (folder, project):
                candidate = os.path.normpath(os.path.join(base, raw))
                consulted.append(candidate)
                if os.path.exists(candidate):
                    target = os.path.realpath(candidate)
                    break
            found.append(Pointer(source, number, kind, raw, target, label))
    return found


def reach(
    loaded: LoadedSet, sources: list[str], consulted: list[str]
) -> tuple[set[str], dict[str, list[Pointer]]]:
    """Files reachable from `sources` through imports and pointers, and each file's pointers.

    Markdown files inside the project are followed too (a topic file may point on).
    """
    project = loaded.project
    reached = {r.target for r in loaded.imports if r.status != "missing"}
    pointers: dict[str, list[Pointer]] = {}
    queue = list(sources)
    done: set[str] = set()
    while queue and len(done) < MAX_FILES:
        source = queue.pop(0)
        if source in done:
            continue
        done.add(source)
        text = instructions.read_text(source)
        if text is None:
            continue
        pointers[source] = scan_pointers(source, text, project, consulted)
        for p in pointers[source]:
            if p.target is None or p.target in reached:
                continue
            reached.add(p.target)
            if p.target.endswith((".md", ".mdx")) and within(p.target, project):
                queue.append(p.target)
    return reached, pointers
