"""Which tree-sitter grammar reads a file, and the queries run over its tree.

Grammars are the per-language PyPI wheels (`tree-sitter-python`, ...), imported on first use.
Definitions come from the tags query each wheel ships (`queries/tags.scm`, the one GitHub's
code navigation uses); TypeScript's extends JavaScript's, as tree-sitter's own configuration
says; bash ships none, so its one pattern is written here, as a tree-sitter query. References
are every identifier-kind leaf the grammar names (`identifier`, `type_identifier`, ...): the
query is built from the grammar's own node kinds, so no language needs a word list.
A file whose extension no wheel reads is cut into line windows (`chunks.py`).
"""

from __future__ import annotations

import os
from typing import Any

# extension -> language name
EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".rb": "ruby",
    ".ex": "elixir",
    ".exs": "elixir",
    ".sh": "bash",
    ".bash": "bash",
    ".lua": "lua",
}
# language -> (wheel module, its function returning the language pointer, languages whose
# tags queries it runs too, in order)
LANGUAGES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "python": ("tree_sitter_python", "language", ()),
    "javascript": ("tree_sitter_javascript", "language", ()),
    "typescript": ("tree_sitter_typescript", "language_typescript", ("javascript",)),
    "tsx": ("tree_sitter_typescript", "language_tsx", ("javascript",)),
    "rust": ("tree_sitter_rust", "language", ()),
    "go": ("tree_sitter_go", "language", ()),
    "java": ("tree_sitter_java", "language", ()),
    "c": ("tree_sitter_c", "language", ()),
    "cpp": ("tree_sitter_cpp", "language", ()),
    "ruby": ("tree_sitter_ruby", "language", ()),
    "elixir": ("tree_sitter_elixir", "language", ()),
    "bash": ("tree_sitter_bash", "language", ()),
    "lua": ("tree_sitter_lua", "language", ()),
}
# The wheels that ship no tags query: a tree-sitter query of their definitions.
OWN_TAGS = {
    "bash": "(function_definition name: (word) @name) @definition.function",
}
# Node kinds that hold a name where it is used (the reference graph's edges). Fields and
# properties count: `self.connect()` refers to `connect`.
_REFERENCE_SUFFIXES = ("identifier",)
_REFERENCE_KINDS = frozenset({"word", "constant", "alias", "atom"})


def language_of(path: str) -> str:
    """The language name for `path` by its extension ('' when no grammar reads it)."""
    return EXTENSIONS.get(os.path.splitext(path)[1].lower(), "")


class Grammar:
    """A language's parser and its two compiled queries."""

    def __init__(self, name: str, language: Any, tags: Any, refs: Any) -> None:
        self.name = name
        self.language = language
        self.tags = tags
        self.refs = refs
        self._parser: Any = None

    def parse(self, data: bytes) -> Any:
        if self._parser is None:
            import tree_sitter

            self._parser = tree_sitter.Parser(self.language)
        return self._parser.parse(data)


class Unavailable(Exception):
    """The grammar's wheel (or tree-sitter itself) is not installed, or its query fails."""


_LOADED: dict[str, Grammar | Unavailable] = {}


def grammar(name: str) -> Grammar:
    """The loaded grammar for language `name`; Unavailable says why not (cached either way)."""
    got = _LOADED.get(name)
    if got is None:
        try:
            got = _load(name)
        except Unavailable as exc:
            got = exc
        _LOADED[name] = got
    if isinstance(got, Unavailable):
        raise got
    return got


def _load(name: str) -> Grammar:
    import importlib

    module_name, func, inherits = LANGUAGES[name]
    try:
        import tree_sitter

        module = importlib.import_module(module_name)
        language = tree_sitter.Language(getattr(module, func)())
    except (ImportError, AttributeError, ValueError) as exc:
        wheel = module_name.replace("_", "-")
        raise Unavailable(f"no {name} grammar ({exc}); pip install {wheel}") from exc
    sources = [_tags_source(LANGUAGES[base][0], base) for base in inherits]
    sources.append(_tags_source(module_name, name))
    try:
        tags = tree_sitter.Query(language, "\n".join(s for s in sources if s))
        refs = tree_sitter.Query(language, _reference_query(language))
    except (tree_sitter.QueryError, ValueError) as exc:
        raise Unavailable(f"the {name} tags query does not compile ({exc})") from exc
    return Grammar(name, language, tags, refs)


def _tags_source(module_name: str, name: str) -> str:
    """The wheel's `queries/tags.scm` (read as a file: not every wheel exports TAGS_QUERY)."""
    if name in OWN_TAGS:
        return OWN_TAGS[name]
    from importlib import resources

    try:
        return (resources.files(module_name) / "queries" / "tags.scm").read_text(encoding="utf-8")
    except (ImportError, OSError):
        return ""


def _reference_query(language: Any) -> str:
    """`[(identifier) (type_identifier) ...] @ref` from the grammar's own named node kinds."""
    kinds = set()
    for kind_id in range(language.node_kind_count):
        kind = language.node_kind_for_id(kind_id)
        if not kind or not language.node_kind_is_named(kind_id):
            continue
        if not language.node_kind_is_visible(kind_id):
            continue
        if kind.endswith(_REFERENCE_SUFFIXES) or kind in _REFERENCE_KINDS:
            kinds.add(kind)
    return "[" + " ".join(f"({k})" for k in sorted(kinds)) + "] @ref"


def installed() -> dict[str, str]:
    """{language: '' when it loads, else why not}, for `doctor`."""
    out = {}
    for name in LANGUAGES:
        try:
            grammar(name)
            out[name] = ""
        except Unavailable as exc:
            out[name] = str(exc)
    return out
