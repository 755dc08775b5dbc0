"""CLAUDE.md pointer-architecture lint: price what loads every session, flag what breaks it.

`lint()` computes the always-loaded set (instructions.py), counts its tokens with the
counter it is given, and runs `RULES`, a tuple of small functions from a `Context` to a
list of `Finding`s. The CLI passes tiktoken's offline cl100k_base (an estimate of
Claude's tokenizer); hooks pass `estimate` (chars/4) and never load tiktoken. The last
result is cached in the state dir (cache.py; status.py reads it for the SessionStart capsule). Rules
and layout: docs/CLAUDE-MD.md. Standard library and string paths only.
"""

from __future__ import annotations

import math
import os

from ccstate import paths
from ccstate.instructions import cache
from ccstate.paths import is_within as within
from ccstate.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, Literal

    from ccstate.config import Config
    from ccstate.instructions.loaded import LoadedFile, LoadedSet
    from ccstate.instructions.pointers import Pointer

    Level = Literal["error", "warning", "info"]
    Counter = Callable[[str], tuple[int, bool]]

LEVELS: tuple[Level, ...] = ("error", "warning", "info")
SPLIT_HINT = "move detail into topic files (`ccstate split {path}`)"


def estimate(text: str) -> tuple[int, bool]:
    """chars/4, rounded up: what hooks use instead of a tokenizer."""
    return math.ceil(len(text) / 4), False


class Finding(Record):
    """One lint result; `path` is shown relative to the project (or `~/...`)."""

    __slots__ = ("level", "line", "message", "path", "rule", "suggestion", "tokens")
    rule: str
    level: Level
    path: str
    line: int
    message: str
    tokens: int | None
    suggestion: str | None

    def __init__(
        self,
        rule: str,
        level: Level,
        path: str,
        line: int,
        message: str,
        tokens: int | None = None,
        suggestion: str | None = None,
    ) -> None:
        self._init(
            rule=rule,
            level=level,
            path=path,
            line=line,
            message=message,
            tokens=tokens,
            suggestion=suggestion,
        )

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


class Context:
    """What every rule may look at; built once per lint."""

    __slots__ = (
        "consulted",
        "costs",
        "environ",
        "full",
        "loaded",
        "pointers",
        "project",
        "reached",
        "settings",
        "sources",
        "tokens",
    )

    def __init__(
        self,
        loaded: LoadedSet,
        tokens: Mapping[str, int],
        settings: Mapping[str, Any],
        environ: Mapping[str, str],
        full: bool,
    ) -> None:
        from ccstate.instructions import pointers

        self.loaded = loaded
        self.project = loaded.project
        self.tokens = tokens
        self.costs = _subtree_costs(loaded, tokens)
        self.settings = settings
        self.environ = environ
        self.full = full
        self.consulted: list[str] = list(loaded.consulted)
        self.sources = [f.path for f in loaded.files if _editable(f, loaded.project)]
        self.sources += [path for path, _globs in loaded.scoped_rules]
        self.reached, self.pointers = pointers.reach(loaded, self.sources, self.consulted)

    def show(self, path: str) -> str:
        return display(path, self.project, self.environ)


class Report(Record):
    """The lint's answer: the always-loaded files with their tokens, and the findings."""

    __slots__ = ("context", "exact", "files", "findings")
    context: Context
    files: tuple[tuple[LoadedFile, int], ...]
    findings: tuple[Finding, ...]
    exact: bool

    def __init__(
        self,
        context: Context,
        files: tuple[tuple[LoadedFile, int], ...],
        findings: tuple[Finding, ...],
        exact: bool,
    ) -> None:
        self._init(context=context, files=files, findings=findings, exact=exact)

    @property
    def total_tokens(self) -> int:
        return sum(tokens for _file, tokens in self.files)

    def count(self, level: Level) -> int:
        return sum(f.level == level for f in self.findings)

    @property
    def tokenizer(self) -> str:
        if self.exact:
            return "tiktoken cl100k_base (offline), an estimate of Claude's tokenizer"
        return "chars/4, a rough estimate (tiktoken unavailable)"

    def to_json(self) -> dict[str, Any]:
        show = self.context.show
        return {
            "project": self.context.project,
            "tokenizer": self.tokenizer,
            "files": [
                {
                    "path": show(f.path),
                    "kind": f.kind,
                    "lines": f.lines,
                    "tokens": tokens,
                    "depth": f.depth,
                    "via": show(f.via) if f.via else None,
                    "external": f.external,
                }
                for f, tokens in self.files
            ],
            "total_tokens": self.total_tokens,
            "counts": {level: self.count(level) for level in LEVELS},
            "findings": [f.to_json() for f in self.findings],
        }

    def to_cache(self) -> dict[str, Any]:
        """The record cache.py keeps: stamp, settings, error summary, root sizes, imports."""
        ctx = self.context
        imports: dict[str, list[list[Any]]] = {}
        for ref in ctx.loaded.imports:
            cost = ctx.costs.get(ref.target, 0) if ref.status == "loaded" else 0
            imports.setdefault(ref.source, []).append([ref.raw, ref.status, cost])
        errors = [f for f in self.findings if f.level == "error"]
        return {
            "v": cache.CACHE_VERSION,
            "stamp": cache.stamp([*ctx.consulted, *(f.path for f, _n in self.files)]),
            "settings": dict(ctx.settings),
            "exact": self.exact,
            "errors": len(errors),
            "error_rules": sorted({f.rule for f in errors}),
            "roots": {
                f.path: [f.lines, len(f.text), tokens]
                for f, tokens in self.files
                if f.kind == "root"
            },
            "imports": imports,
        }


def lint(
    project: str,
    config: Config,
    environ: Mapping[str, str],
    count: Counter = estimate,
    *,
    full: bool = True,
) -> Report:
    """Lint `project`'s always-loaded instructions. `full=False` skips the tree walk."""
    from ccstate.instructions import loaded as instructions

    loaded = instructions.compute(project, environ)
    counted = [(f, count(f.text)) for f in loaded.files]
    tokens = {f.path: n for f, (n, _exact) in counted}
    settings = cache.settings_of(config)
    ctx = Context(loaded, tokens, settings, environ, full)
    findings = [finding for rule in RULES for finding in rule(ctx)]
    findings.sort(key=lambda f: (LEVELS.index(f.level), f.path, f.line, f.rule, f.message))
    exact = all(e for _f, (_n, e) in counted)
    files = tuple((f, n) for f, (n, _e) in counted)
    return Report(ctx, files, tuple(findings), exact)


def display(path: str, project: str, environ: Mapping[str, str]) -> str:
    if within(path, project):
        return os.path.relpath(path, project)
    home = os.path.realpath(paths.home_str(environ))
    if within(path, home):
        return "~/" + os.path.relpath(path, home)
    return path


# ----------------------------------------------------------------------------- rules


def rule_root_size(ctx: Context) -> list[Finding]:
    """The root CLAUDE.md over its line or token budget (error)."""
    max_lines, max_tokens = (
        ctx.settings["lint.root_max_lines"],
        ctx.settings["lint.root_max_tokens"],
    )
    found: list[Finding] = []
    for f in ctx.loaded.files:
        if f.kind != "root":
            continue
        hint = SPLIT_HINT.format(path=ctx.show(f.path))
        tokens = ctx.tokens[f.path]
        if f.lines > max_lines:
            msg = f"{f.lines} lines, over the {max_lines}-line budget (lint.root_max_lines): {hint}"
            found.append(Finding("root-lines", "error", ctx.show(f.path), 0, msg, tokens))
        if tokens > max_tokens:
            msg = (
                f"{tokens:,} tokens, over the {max_tokens:,}-token budget (lint.root_max_tokens): "
            )
            found.append(Finding("root-tokens", "error", ctx.show(f.path), 0, msg + hint, tokens))
    return found


def rule_imports(ctx: Context) -> list[Finding]:
    """Each @import that loads: its cost every session and the plain pointer to use instead."""
    from ccstate.instructions import mdscan

    limit = ctx.settings["lint.import_max_tokens"]
    found: list[Finding] = []
    for ref in ctx.loaded.imports:
        if ref.status != "loaded" or ref.target not in ctx.costs:
            continue
        cost = ctx.costs[ref.target]
        nested = cost - ctx.tokens[ref.target]
        extra = f" ({nested:,} of them through nested imports)" if nested else ""
        level: Level = "error" if cost > limit else "warning"
        msg = f"@{ref.raw} loads {cost:,} tokens into every session{extra}; a plain pointer loads "
        msg += "only when a task needs it"
        suggestion = pointer_line(mdscan.import_path(ref.raw), ctx.loaded, ref.target)
        found.append(
            Finding("import", level, ctx.show(ref.source), ref.line, msg, cost, suggestion)
        )
    return found


def rule_import_not_loaded(ctx: Context) -> list[Finding]:
    """@imports Claude Code skips: too deep, not text, outside the project and not approved."""
    from ccstate.instructions import loaded as instructions

    why = {
        "too-deep": f"not loaded: deeper than {instructions.MAX_DEPTH - 1} imports",
        "not-text": "not loaded: Claude Code imports text files only",
        "external": "not loaded: outside the project, and external imports are not approved "
        "for this project in Claude Code",
    }
    return [
        Finding(
            "import-not-loaded", "info", ctx.show(r.source), r.line, f"@{r.raw}: {why[r.status]}"
        )
        for r in ctx.loaded.imports
        if r.status in why
    ]


def rule_dead_pointers(ctx: Context) -> list[Finding]:
    """@imports and links that point nowhere (error); plain paths that do (warning)."""
    from ccstate.instructions import mdscan

    found = [
        Finding("dead-pointer", "error", ctx.show(r.source), r.line, _dead_import(r.raw, r.target))
        for r in ctx.loaded.imports
        if r.status == "missing" and _looks_like_path(mdscan.import_path(r.raw))
    ]
    for source in ctx.sources:
        for p in ctx.pointers.get(source, []):
            if p.target is None:
                level: Level = "error" if p.kind == "link" else "warning"
                msg = f"{p.raw}: no such file or folder (relative to this file or the project)"
                found.append(Finding("dead-pointer", level, ctx.show(source), p.line, msg))
    return found


def rule_orphan_topics(ctx: Context) -> list[Finding]:
    """Topic files nothing in the instructions (or another topic file) points to."""
    from ccstate.instructions import pointers

    folder = os.path.join(ctx.project, str(ctx.settings["lint.topic_dir"]))
    return [
        Finding("orphan-topic", "warning", ctx.show(path), 0, _ORPHAN)
        for path in pointers.topic_files(folder, ctx.consulted)
        if path not in ctx.reached
    ]


_ORPHAN = "nothing points to this topic file: add an index line to CLAUDE.md, or delete it"


def rule_vague_pointers(ctx: Context) -> list[Finding]:
    """Index lines whose pointer comes without a word on what lives behind it."""
    from ccstate.instructions import loaded as instructions
    from ccstate.instructions import mdscan

    found: list[Finding] = []
    roots = [f for f in ctx.loaded.files if f.kind == "root"]
    for f in roots:
        lines = dict(mdscan.prose_lines(instructions.read_text(f.path) or ""))
        for number in sorted({p.line for p in ctx.pointers.get(f.path, []) if _topical(p)}):
            line = lines.get(number, "")
            if (
                mdscan.heading(line)
                or mdscan.description_words(line) >= mdscan.DESCRIPTION_MIN_WORDS
            ):
                continue
            raw = next(p.raw for p in ctx.pointers[f.path] if p.line == number and _topical(p))
            msg = f"this index line does not say what `{raw}` holds: add a few words on what it "
            msg += "covers and when to read it"
            found.append(Finding("vague-pointer", "warning", ctx.show(f.path), number, msg))
    return found


def rule_scoped(ctx: Context) -> list[Finding]:
    """`paths:`-scoped rules load late and vanish after compaction (info)."""
    return [
        Finding(
            "scoped-rule",
            "info",
            ctx.show(path),
            0,
            f"loads only when Claude works on {', '.join(globs)}, and is gone after compaction "
            "until such a file is touched again",
        )
        for path, globs in ctx.loaded.scoped_rules
    ]


def rule_nested(ctx: Context) -> list[Finding]:
    """CLAUDE.md files below the root load late and vanish after compaction (info)."""
    from ccstate.instructions import pointers

    if not ctx.full:
        return []
    return [
        Finding(
            "nested-claude-md",
            "info",
            ctx.show(path),
            0,
            f"loads only when Claude reads a file under {ctx.show(os.path.dirname(path))}/, "
            "and is gone after compaction until it does again",
        )
        for path in pointers.nested_claude_mds(ctx.project)
    ]


def rule_memory_head(ctx: Context) -> list[Finding]:
    """The auto-memory index is cut at 200 lines / 25,000 characters (info)."""
    from ccstate.instructions import loaded as instructions

    memory = ctx.loaded.memory
    if memory is None or not memory[3]:
        return []
    path, lines, chars, _cut = memory
    msg = f"{lines} lines, {chars:,} characters: only the first {instructions.MEMORY_MAX_LINES} "
    msg += f"lines or {instructions.MEMORY_MAX_CHARS:,} characters load"
    return [Finding("memory-head", "info", ctx.show(path), 0, msg)]


RULES: tuple[Callable[[Context], list[Finding]], ...] = (
    rule_root_size,
    rule_imports,
    rule_import_not_loaded,
    rule_dead_pointers,
    rule_orphan_topics,
    rule_vague_pointers,
    rule_scoped,
    rule_nested,
    rule_memory_head,
)


# ----------------------------------------------------------------------------- helpers


def pointer_line(path: str, loaded: LoadedSet | None, target: str) -> str:
    """The plain pointer that replaces an import: the path and a one-line gist."""
    from ccstate.instructions import gists, mdscan
    from ccstate.instructions import loaded as instructions

    text = next((f.text for f in loaded.files if f.path == target), None) if loaded else None
    if text is None:
        text = instructions.read_text(target) or ""
    return f"`{path}` ({gists.gist(mdscan.content_as_loaded(text))})"


def _subtree_costs(loaded: LoadedSet, tokens: Mapping[str, int]) -> dict[str, int]:
    """Tokens a file brings in: its own plus those of the files first loaded through it."""
    costs = dict(tokens)
    for f in reversed(loaded.files):
        if f.via is not None and f.via in costs:
            costs[f.via] += costs[f.path]
    return costs


def _editable(f: LoadedFile, project: str) -> bool:
    return f.kind != "memory" and within(f.path, project)


def _topical(p: Pointer) -> bool:
    return (
        p.raw.lower().endswith((".md", ".mdx"))
        or p.raw.endswith("/")
        or (p.target is not None and os.path.isdir(p.target))
    )


def _dead_import(raw: str, target: str) -> str:
    message = f"@{raw}: no such file; Claude Code skips it without a word"
    stripped = target.rstrip(".,;:!?)*_")
    if stripped != target and os.path.exists(stripped):
        message += f" (the trailing {target[len(stripped) :]!r} is read as part of the path)"
    return message


def _looks_like_path(path: str) -> bool:
    return "/" in path or "." in path
