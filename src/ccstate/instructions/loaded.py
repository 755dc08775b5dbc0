"""What Claude Code loads into every session before the first prompt, read from the files.

Observed in Claude Code 2.1.328 against the real CLI (docs/CLAUDE-MD.md#what-loads), in
this order: `CLAUDE.md` at the launch directory, `.claude/CLAUDE.md`, every
`.claude/rules/**/*.md` without a scoping `paths:` frontmatter, `CLAUDE.local.md`, each
followed by its `@imports` (depth first, resolved against the importing file, each file
once; the root is depth 0 and nothing at depth 5 loads, so at most four hops), then the
head of the auto-memory index `~/.claude/projects/<slug>/memory/MEMORY.md` (200 lines,
25,000 characters). An import outside the project loads only once the user has approved
external imports for it (`hasClaudeMdExternalIncludesApproved` in `~/.claude.json`);
imports of non-text files and empty files load nothing.

Standard library and string paths only: the PostToolUse edit check computes this.
"""

from __future__ import annotations

import json
import os

from ccstate import paths
from ccstate.instructions import mdscan
from ccstate.paths import is_within as within
from ccstate.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Literal

    Kind = Literal["root", "import", "rule", "local", "memory"]
    Status = Literal["loaded", "duplicate", "missing", "too-deep", "external", "not-text"]

MAX_DEPTH = 5  # a file at this depth (root = 0) is not loaded
MEMORY_MAX_LINES = 200
MEMORY_MAX_CHARS = 25_000
MAX_FILE_BYTES = 4 * 1024 * 1024  # Claude Code skips bigger instruction files
_TEXT_EXTENSIONS = (
    ".md .txt .text .json .yaml .yml .toml .xml .csv .html .htm .css .scss .sass .less .js "
    ".ts .tsx .jsx .mjs .cjs .mts .cts .py .pyi .pyw .rb .erb .rake .go .rs .java .kt .kts "
    ".scala .c .cpp .cc .cxx .h .hpp .hxx .cs .swift .sh .bash .zsh .fish .ps1 .bat .cmd "
    ".env .ini .cfg .conf .config .properties .sql .graphql .gql .proto .vue .svelte "
    ".astro .ejs .hbs .pug .jade .php .pl .pm .lua .r .dart .ex .exs .erl .hrl .clj .cljs "
    ".cljc .edn .hs .lhs .elm .ml .mli .f .f90 .f95 .for .cmake .make .makefile .gradle "
    ".sbt .rst .adoc .asciidoc .org .tex .latex .lock .log .diff .patch "
)
TEXT_EXTENSIONS = frozenset(_TEXT_EXTENSIONS.split())
ROOT_NAMES = ("CLAUDE.md", os.path.join(".claude", "CLAUDE.md"))
LOCAL_NAME = "CLAUDE.local.md"
RULES_DIR = os.path.join(".claude", "rules")


class LoadedFile(Record):
    """One file in the always-loaded set; `text` is what Claude Code sends for it."""

    __slots__ = ("depth", "external", "kind", "lines", "path", "text", "via", "via_line")
    path: str
    kind: Kind
    text: str
    lines: int
    depth: int
    via: str | None
    via_line: int
    external: bool

    def __init__(
        self,
        path: str,
        kind: Kind,
        text: str,
        lines: int,
        depth: int = 0,
        via: str | None = None,
        via_line: int = 0,
        external: bool = False,
    ) -> None:
        self._init(
            path=path,
            kind=kind,
            text=text,
            lines=lines,
            depth=depth,
            via=via,
            via_line=via_line,
            external=external,
        )


class ImportRef(Record):
    """One `@path` written in a loaded file, and what Claude Code does with it."""

    __slots__ = ("line", "raw", "source", "status", "target")
    source: str
    line: int
    raw: str
    target: str
    status: Status

    def __init__(self, source: str, line: int, raw: str, target: str, status: Status) -> None:
        self._init(source=source, line=line, raw=raw, target=target, status=status)


class LoadedSet(Record):
    """The always-loaded set of a project, plus what the lint needs to explain it."""

    __slots__ = (
        "consulted",
        "external_approved",
        "files",
        "imports",
        "memory",
        "project",
        "scoped_rules",
    )
    project: str
    files: tuple[LoadedFile, ...]
    imports: tuple[ImportRef, ...]
    scoped_rules: tuple[tuple[str, tuple[str, ...]], ...]
    memory: tuple[str, int, int, bool] | None  # path, lines, chars on disk, truncated
    external_approved: bool | None
    consulted: tuple[str, ...]

    def __init__(
        self,
        project: str,
        files: tuple[LoadedFile, ...],
        imports: tuple[ImportRef, ...],
        scoped_rules: tuple[tuple[str, tuple[str, ...]], ...],
        memory: tuple[str, int, int, bool] | None,
        external_approved: bool | None,
        consulted: tuple[str, ...],
    ) -> None:
        self._init(
            project=project,
            files=files,
            imports=imports,
            scoped_rules=scoped_rules,
            memory=memory,
            external_approved=external_approved,
            consulted=consulted,
        )


def compute(project: str, environ: Mapping[str, str]) -> LoadedSet:
    """Walk the project the way Claude Code does at launch (see the module docstring)."""
    walk = _Walk(os.path.realpath(project), environ)
    for name in ROOT_NAMES:
        walk.top(os.path.join(walk.project, name), "root")
    scoped = walk.rules()
    walk.top(os.path.join(walk.project, LOCAL_NAME), "local")
    memory = walk.memory()
    return LoadedSet(
        project=walk.project,
        files=tuple(walk.files),
        imports=tuple(walk.imports),
        scoped_rules=tuple(scoped),
        memory=memory,
        external_approved=walk.approved,
        consulted=tuple(sorted(set(walk.consulted))),
    )


def resolve_import(raw: str, source: str, environ: Mapping[str, str]) -> str:
    """The file an `@raw` in `source` names: relative to the importing file, `~/` = home."""
    path = mdscan.import_path(raw)
    if path.startswith("~/"):
        path = os.path.join(paths.home_str(environ), path[2:])
    elif not os.path.isabs(path):
        path = os.path.join(os.path.dirname(source), path)
    return os.path.normpath(path)


def read_text(path: str) -> str | None:
    """A file's text, or None when it is missing, a folder, unreadable or too big."""
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def memory_head(text: str) -> tuple[str, bool]:
    """What Claude Code sends of MEMORY.md, and whether it was cut.

    The first 200 lines, then at most 25,000 characters (cut at a line end), followed
    by Claude Code's own warning line; the same arithmetic as 2.1.328.
    """
    full = text.strip()
    count, size = full.count("\n") + 1, len(full)
    by_lines, by_size = count > MEMORY_MAX_LINES, size > MEMORY_MAX_CHARS
    if not by_lines and not by_size:
        return full, False
    head = "\n".join(full.split("\n")[:MEMORY_MAX_LINES]) if by_lines else full
    if len(head) > MEMORY_MAX_CHARS:
        end = head.rfind("\n", 0, MEMORY_MAX_CHARS + 1)
        head = head[: end if end > 0 else MEMORY_MAX_CHARS]
    kept = head.count("\n") + 1 if full[len(head) : len(head) + 1] == "\n" else 0
    after = full[len(head) + 1 :].split("\n", 1)[0].strip()
    if kept:
        quote = f' ("{_clip(after, 80)}")' if after else ""
        cut = f"{count - kept} of {count} lines were cut off, starting at line {kept + 1}{quote}"
    else:
        cut = f"everything after the first {len(head)} characters of line 1 was cut off"
    if by_size and not by_lines:
        what = f"{_kb(size)} (limit: {_kb(MEMORY_MAX_CHARS)}) \u2014 index entries are too long"
    else:
        what = f"{count} lines (limit: {MEMORY_MAX_LINES})" if not by_size else ""
        what = what or f"{count} lines and {_kb(size)}"
    warning = (
        f"MEMORY.md is {what}. Only part of it was loaded: {cut}. Keep index entries to one "
        "line under ~200 chars; move detail into topic files."
    )
    return f"{head}\n\n> WARNING: {warning}", True


def _kb(size: int) -> str:
    return f"{size / 1024:.1f}".removesuffix(".0") + "KB"


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = max(head.rfind(" "), head.rfind("\t"))
    words = head[:space].rstrip() if space >= 0 else ""
    return (words if len(words) > limit / 2 else head.rstrip()) + "\u2026"


class _Walk:
    __slots__ = ("approved", "consulted", "environ", "files", "imports", "project", "seen")

    def __init__(self, project: str, environ: Mapping[str, str]) -> None:
        self.project = project
        self.environ = environ
        self.files: list[LoadedFile] = []
        self.imports: list[ImportRef] = []
        self.seen: set[str] = set()
        self.consulted: list[str] = []
        self.approved: bool | None = None  # read from ~/.claude.json on first external import

    def top(self, path: str, kind: Kind) -> None:
        self.consulted.append(path)
        self._load(path, kind, 0, None, 0, None)

    def rules(self) -> list[tuple[str, tuple[str, ...]]]:
        """Load unscoped rules; return the `paths:`-scoped ones (path, globs)."""
        folder = os.path.join(self.project, RULES_DIR)
        self.consulted.append(folder)
        scoped: list[tuple[str, tuple[str, ...]]] = []
        for root, dirs, names in os.walk(folder):
            dirs.sort()
            self.consulted.extend(os.path.join(root, d) for d in dirs)
            for name in sorted(n for n in names if n.endswith(".md")):
                path = os.path.join(root, name)
                text = read_text(path)
                if text is None:
                    continue
                globs = mdscan.scoped_globs(mdscan.split_frontmatter(text)[0])
                if globs:
                    self.consulted.append(path)
                    scoped.append((path, tuple(globs)))
                else:
                    self.top(path, "rule")
        return scoped

    def memory(self) -> tuple[str, int, int, bool] | None:
        path = paths.auto_memory_path_str(self.project, self.environ)
        self.consulted.append(path)
        text = read_text(path)
        if text is None or not text.strip():
            return None
        head, cut = memory_head(text)
        self.files.append(LoadedFile(path, "memory", head, len(text.splitlines())))
        return path, len(text.splitlines()), len(text), cut

    def _load(
        self, path: str, kind: Kind, depth: int, via: str | None, line: int, raw: str | None
    ) -> None:
        real = os.path.realpath(path)
        status = self._status(real, depth)
        if status is not None:
            self._ref(via, line, raw, real, status)
            return
        text = read_text(real)
        if text is None:
            self._ref(via, line, raw, real, "missing")
            return
        self._ref(via, line, raw, real, "loaded")
        content = mdscan.content_as_loaded(text)
        if not content.strip():
            return
        self.seen.add(real)
        external = not within(real, self.project)
        self.files.append(
            LoadedFile(real, kind, content, len(text.splitlines()), depth, via, line, external)
        )
        for number, token in mdscan.imports(text):
            target = resolve_import(token, real, self.environ)
            self.consulted.append(target)
            self._load(target, "import", depth + 1, real, number, token)

    def _status(self, real: str, depth: int) -> Status | None:
        if real in self.seen:
            return "duplicate"
        if depth >= MAX_DEPTH:
            return "too-deep"
        extension = os.path.splitext(real)[1].lower()
        if depth and extension and extension not in TEXT_EXTENSIONS and os.path.isfile(real):
            return "not-text"
        outside = depth and not within(real, self.project) and os.path.exists(real)
        if outside and not self._external_approved():
            return "external"
        return None

    def _ref(self, via: str | None, line: int, raw: str | None, real: str, status: Status) -> None:
        if via is not None and raw is not None:
            self.imports.append(ImportRef(via, line, raw, real, status))

    def _external_approved(self) -> bool:
        if self.approved is None:
            self.approved = external_imports_approved(self.project, self.environ)
        return self.approved


def external_imports_approved(project: str, environ: Mapping[str, str]) -> bool:
    """Has the user approved imports from outside `project` (Claude Code's per-project flag)?"""
    try:
        with open(paths.claude_json_path_str(environ), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return False
    projects = data.get("projects") if isinstance(data, dict) else None
    entry = projects.get(project) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("hasClaudeMdExternalIncludesApproved") is True
