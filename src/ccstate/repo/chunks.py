"""One file's text -> chunks at its definitions, the definitions themselves and the names it
uses (pure, apart from the grammar's C code).

A chunk is a definition (function, method, class...) as tree-sitter's tags query finds it,
its lines less those of the definitions nested in it (a class keeps its own lines and the
first line of each method; each method is a chunk of its own, named `Class.method`). Lines
outside every definition (imports, module code) become windows of at most `WINDOW` lines;
so does a whole file no grammar reads. A definition longer than `MAX_LINES` is cut into
parts of that many lines, each with the definition's name. Every line of the file that is
not blank is in a chunk (tests check it), so nothing a query could match is lost.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ccstate.repo import grammars

WINDOW = 40  # lines of a window outside any definition, or of a file no grammar reads
MAX_LINES = 120  # a longer definition is cut into parts of this many lines
MAX_DOC = 600  # characters of a definition's doc comment or docstring kept
MAX_REF_LEN = 64  # longer identifiers are no names a map would show


@dataclass(frozen=True)
class Chunk:
    start: int  # first line, 1-based
    end: int  # last line, inclusive
    kind: str  # function, method, class, interface, module, constant..., or "" (a window)
    name: str  # qualified: `Class.method`; "" for a window
    sig: str  # the definition's first line (a window: its first non-blank line)
    doc: str
    body: str


@dataclass(frozen=True)
class Definition:
    name: str
    kind: str
    line: int
    end: int
    sig: str


@dataclass
class Parsed:
    lang: str
    chunks: list[Chunk] = field(default_factory=list)
    defs: list[Definition] = field(default_factory=list)
    refs: Counter[str] = field(default_factory=Counter)
    note: str = ""  # why the grammar did not chunk it (the file is still indexed, in windows)


def parse_file(path: str, text: str, data: bytes) -> Parsed:
    """Chunks, definitions and references of a file (`text` is `data` decoded)."""
    lines = text.splitlines()
    lang = grammars.language_of(path)
    if lang:
        try:
            return _parse_tree(lang, lines, data)
        except grammars.Unavailable as exc:
            return Parsed(lang="", chunks=windows(lines, 1, len(lines)), note=str(exc))
        except (ValueError, RuntimeError, MemoryError) as exc:  # the grammar failed
            note = f"the {lang} grammar failed ({type(exc).__name__}: {exc}); line windows"
            return Parsed(lang="", chunks=windows(lines, 1, len(lines)), note=note)
    return Parsed(lang="", chunks=windows(lines, 1, len(lines)))


class _Def:
    __slots__ = ("children", "doc", "end", "kind", "name", "name_line", "start")

    def __init__(self, name: str, kind: str, span: tuple[int, int, int], doc: str) -> None:
        self.name, self.kind, self.doc = name, kind, doc
        self.start, self.end, self.name_line = span  # lines; the name's own line: `sig`
        self.children: list[_Def] = []


def _parse_tree(lang: str, lines: list[str], data: bytes) -> Parsed:
    import tree_sitter

    grammar = grammars.grammar(lang)
    tree = grammar.parse(data)
    root = tree.root_node
    found = _definitions(tree_sitter.QueryCursor(grammar.tags).matches(root), data)
    refs: Counter[str] = Counter()
    for nodes in tree_sitter.QueryCursor(grammar.refs).captures(root).values():
        for node in nodes:
            name = _text(node, data)
            if 1 < len(name) <= MAX_REF_LEN:
                refs[name] += 1
    top = _nest(found)
    parsed = Parsed(lang=lang, refs=refs)
    _emit(top, "", lines, parsed)
    covered = [(d.start, d.end) for d in top]
    for start, end in _gaps(covered, len(lines)):
        parsed.chunks.extend(windows(lines, start, end))
    parsed.chunks.sort(key=lambda c: (c.start, c.end))
    return parsed


def _definitions(matches: list[tuple[int, dict[str, list[Any]]]], data: bytes) -> list[_Def]:
    """One _Def per definition node (the first match naming it wins), in source order."""
    seen: dict[tuple[int, int], _Def] = {}
    for _pattern, captures in matches:
        names = captures.get("name") or []
        for key, nodes in captures.items():
            if not key.startswith("definition.") or not nodes or not names:
                continue
            node: Any = nodes[0]
            span = (node.start_byte, node.end_byte)
            if span in seen:
                continue
            name = _text(names[0], data).strip()
            doc_nodes = captures.get("doc") or []
            doc = " ".join(_text(n, data) for n in doc_nodes) or _doc_of(node, data)
            outer = node.parent  # `@decorator` lines belong to what they decorate
            if outer is not None and "decorat" in outer.type:
                node = outer
            start = node.start_point[0] + 1
            end = node.end_point[0] + 1
            kind = key.split(".", 1)[1]
            lines = (start, end, names[0].start_point[0] + 1)
            seen[span] = _Def(name, kind, lines, _clip(doc))
    return sorted(seen.values(), key=lambda d: (d.start, -d.end, d.name))


def _doc_of(node: Any, data: bytes) -> str:
    """The comments just above a definition, or its docstring (a first statement that is a
    string, as in Python): the grammar's node kinds, no language rule."""
    parts: list[str] = []
    prev = node.prev_named_sibling
    while prev is not None and "comment" in prev.type and len(parts) < 8:
        parts.append(_text(prev, data))
        prev = prev.prev_named_sibling
    if parts:
        return " ".join(reversed(parts))
    body = node.child_by_field_name("body")
    first = body.named_children[0] if body is not None and body.named_child_count else None
    if first is not None and first.type == "expression_statement" and first.named_child_count:
        first = first.named_children[0]
    if first is not None and first.type == "string":
        return _text(first, data)
    return ""


def _nest(found: list[_Def]) -> list[_Def]:
    """The top-level definitions, each holding those nested in it."""
    top: list[_Def] = []
    stack: list[_Def] = []
    for item in found:
        while stack and not (item.start >= stack[-1].start and item.end <= stack[-1].end):
            stack.pop()
        if stack and (item.start, item.end) == (stack[-1].start, stack[-1].end):
            continue  # two captures of one span (an export and its function): the outer
        (stack[-1].children if stack else top).append(item)
        stack.append(item)
    return top


def _emit(defs: list[_Def], prefix: str, lines: list[str], parsed: Parsed) -> None:
    for item in defs:
        name = f"{prefix}.{item.name}" if prefix else item.name
        sig = _line(lines, item.name_line)
        parsed.defs.append(Definition(name, item.kind, item.name_line, item.end, sig))
        own = _own_lines(item, lines)
        for start, end, body in _parts(own):
            parsed.chunks.append(Chunk(start, end, item.kind, name, sig, item.doc, body))
        _emit(item.children, name, lines, parsed)


def _own_lines(item: _Def, lines: list[str]) -> list[tuple[int, str]]:
    """(line number, text) of a definition's lines outside its children, each child's first
    line kept as a pointer to it (`def method(...)` in its class)."""
    inner = {n for child in item.children for n in range(child.start + 1, child.end + 1)}
    return [(n, _line(lines, n)) for n in range(item.start, item.end + 1) if n not in inner]


def _parts(own: list[tuple[int, str]]) -> list[tuple[int, int, str]]:
    """Runs of at most MAX_LINES of the lines a definition owns: (first, last, text)."""
    out = []
    for at in range(0, len(own), MAX_LINES):
        piece = own[at : at + MAX_LINES]
        out.append((piece[0][0], piece[-1][0], "\n".join(t for _n, t in piece)))
    return out


def _gaps(covered: list[tuple[int, int]], total: int) -> list[tuple[int, int]]:
    """The line ranges of 1..total outside every (start, end) in `covered` (sorted)."""
    out, at = [], 1
    for start, end in sorted(covered):
        if start > at:
            out.append((at, start - 1))
        at = max(at, end + 1)
    if at <= total:
        out.append((at, total))
    return out


def windows(lines: list[str], start: int, end: int) -> list[Chunk]:
    """Lines start..end cut into windows of at most WINDOW lines; blank-only windows left out."""
    out = []
    for first in range(start, end + 1, WINDOW):
        last = min(end, first + WINDOW - 1)
        body = "\n".join(_line(lines, n) for n in range(first, last + 1))
        if not body.strip():
            continue
        sig = next((s.strip() for s in body.splitlines() if s.strip()), "")
        out.append(Chunk(first, last, "", "", sig, "", body))
    return out


def _line(lines: list[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _text(node: Any, data: bytes) -> str:
    start, end = node.start_byte, node.end_byte
    return data[start:end].decode("utf-8", "replace")


def _clip(text: str) -> str:
    return text if len(text) <= MAX_DOC else text[:MAX_DOC]
