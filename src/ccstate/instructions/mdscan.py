"""Markdown the way Claude Code reads instruction files: prose lines, @imports, pointers.

Pure text functions, standard library only (`re`): the PostToolUse edit check and the
SessionStart capsule reach them. Block structure follows CommonMark as far as it decides
what Claude Code 2.1.328 imports (observed against the real CLI, docs/CLAUDE-MD.md): an
`@path` inside fenced or indented code, an inline code span, an HTML block or an HTML
comment is not imported; `(@x.md)`, `@x.md.` and `a@x.md` are not imports either.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|"
    "details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|"
    "h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|"
    "optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|"
    "track|ul"
)
_HTML_RAW = re.compile(r"^ {0,3}<(script|pre|style|textarea)(?=[\s>]|$)", re.IGNORECASE)
_HTML_BLOCK = re.compile(rf"^ {{0,3}}</?(?:{_BLOCK_TAGS})(?=[\s/>]|$)", re.IGNORECASE)
_ATTR = r"""\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?"""
_HTML_TAG_LINE = re.compile(
    rf"^ {{0,3}}(?:<[A-Za-z][A-Za-z0-9-]*(?:{_ATTR})*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>)\s*$"
)
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:\s|$)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
THEMATIC = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_COMMENT_START = re.compile(r"^ {0,3}<!--")

# Claude Code's own pattern (2.1.328): `(?:^|\s)@((?:[^\s\\]|\\ )+)` over each text token.
_IMPORT = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )+)")
_IMPORT_START = re.compile(r"^[a-zA-Z0-9._-]")
_INLINE_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_DELIMITER = re.compile(r"\*+|_+|~~")
_OPENS_AFTER = " \t([{\"'"
_CLOSES_BEFORE = " \t.,;:!?)]}\"'"

LINK = re.compile(r"(!?)\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_PATH = re.compile(r"^(?:\.{1,2}/)*[\w.-]+(?:/[\w.-]+)*/?$")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_DOMAIN = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$", re.IGNORECASE)
_EDGE = "\"'()[]{}<>,;:!?*"
WORD = re.compile(r"[^\W\d_][\w'-]*")
# Words that say nothing about what lives behind a pointer.
_STOPWORDS = (
    "a an and are as at be by details detail doc docs file files for from here in index "
    "info information into is it its link links md more of on or pointer read see section "
    "sections that the these this those to topic topics under via with also "
)
STOPWORDS = frozenset(_STOPWORDS.split())
DESCRIPTION_MIN_WORDS = 3


def split_frontmatter(text: str) -> tuple[str | None, int]:
    """(frontmatter text or None, index of the first body line)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        return None, 0
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r") in ("---", "..."):
            return "\n".join(lines[1:i]), i + 1
    return None, 0


def scoped_globs(frontmatter: str | None) -> list[str]:
    """The `paths:` globs of a rule; [] when unscoped (absent, empty or only `**`)."""
    if not frontmatter:
        return []
    lines = frontmatter.split("\n")
    globs: list[str] = []
    for i, line in enumerate(lines):
        match = re.match(r"^paths\s*:\s*(.*)$", line)
        if not match:
            continue
        inline = match.group(1).strip()
        if inline:
            globs = [g for g in re.split(r",", inline.strip("[]")) if g.strip()]
        else:
            for item in lines[i + 1 :]:
                found = re.match(r"^\s*-\s*(.*)$", item)
                if not found:
                    break
                globs.append(found.group(1))
        break
    cleaned = [g.strip().strip("'\"").strip() for g in globs]
    cleaned = [g for g in cleaned if g]
    # Claude Code drops a trailing "/**" before testing for "match everything".
    bare = [g[:-3] if g.endswith("/**") else g for g in cleaned]
    return [] if all(g in ("**", "") for g in bare) else cleaned


def content_as_loaded(text: str) -> str:
    """The text Claude Code sends for a file: no frontmatter, no block-level HTML comments.

    A comment block goes with the blank lines after it (as its HTML token does); a
    comment inside a paragraph stays, as it does in Claude Code 2.1.328. Link reference
    definitions (`[id]: url`) stay, as Claude Code 2.1.330 and later send them; 2.1.328
    and 2.1.329 drop them from a file that has a comment block (a bug 2.1.330 fixed), so
    there ccstate prices those lines, a few tokens, that the model does not get.
    """
    _front, start = split_frontmatter(text)
    lines = text.split("\n")[start:]
    if not any("<!--" in line for line in lines):
        return "\n".join(lines)
    out: list[str] = []
    fence: tuple[str, int] | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if fence is not None or not _COMMENT_START.match(line):
            if fence is not None and _fence_closes(line, fence):
                fence = None
            elif fence is None:
                fence = _fence_open(line)
            out.append(line)
            i += 1
            continue
        end = i
        while end < len(lines) - 1 and "-->" not in lines[end]:
            end += 1
        rest = _COMMENT.sub("", "\n".join(lines[i : end + 1]))
        i = end + 1
        while i < len(lines) - 1 and not lines[i].strip():
            i += 1
        if rest.strip():
            out.append(rest)
    return "\n".join(out)


def _blank_comments(lines: list[str]) -> list[str]:
    """HTML comments outside fenced code replaced by spaces (line numbers kept)."""
    out: list[str] = []
    fence: tuple[str, int] | None = None
    in_comment = False
    for line in lines:
        if fence is None and not in_comment:
            opened = _fence_open(line)
            if opened:
                fence = opened
                out.append(line)
                continue
        elif fence is not None:
            if _fence_closes(line, fence):
                fence = None
            out.append(line)
            continue
        chars = list(line)
        pos = 0
        while pos < len(line):
            if in_comment:
                end = line.find("-->", pos)
                stop = len(line) if end < 0 else end + 3
                chars[pos:stop] = " " * (stop - pos)
                in_comment = end < 0
                pos = stop
            else:
                begin = line.find("<!--", pos)
                if begin < 0:
                    break
                in_comment = True
                pos = begin
        out.append("".join(chars))
    return out


def _fence_open(line: str) -> tuple[str, int] | None:
    match = _FENCE.match(line)
    if not match or (match.group(1)[0] == "`" and "`" in match.group(2)):
        return None
    return match.group(1)[0], len(match.group(1))


def _fence_closes(line: str, fence: tuple[str, int]) -> bool:
    match = _FENCE.match(line)
    if not match:
        return False
    run = match.group(1)
    return run[0] == fence[0] and len(run) >= fence[1] and not match.group(2).strip()


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(1-based line number, line) for lines outside code, HTML blocks and frontmatter.

    HTML comments are blanked out. Indented code is recognised outside lists and
    paragraphs; a list item's indented continuation stays prose.
    """
    lines = text.split("\n")
    _front, start = split_frontmatter(text)
    lines = _blank_comments(lines)
    out: list[tuple[int, str]] = []
    fence: tuple[str, int] | None = None
    html_end: str | None = None  # "" = ends at a blank line; "</tag" = ends at that tag
    para = in_list = False
    prev_blank = True
    for i in range(start, len(lines)):
        line = lines[i]
        blank = not line.strip()
        if fence is not None:
            if _fence_closes(line, fence):
                fence = None
            continue
        if html_end is not None:
            if html_end == "" and blank:
                html_end, para, prev_blank = None, False, True
            elif html_end and html_end in line.lower():
                html_end = None
            continue
        if blank:
            para, prev_blank = False, True
            continue
        expanded = line.expandtabs(4)
        indent = len(expanded) - len(expanded.lstrip())
        if indent >= 4 and not para and not in_list:
            continue
        opened = _fence_open(line)
        if opened:
            fence, para = opened, False
            continue
        raw = _HTML_RAW.match(line)
        if raw:
            closing = f"</{raw.group(1).lower()}"
            html_end = None if closing in line.lower() else closing
            para = False
            continue
        if _HTML_BLOCK.match(line) or (not para and _HTML_TAG_LINE.match(line)):
            html_end, para = "", False
            continue
        if _LIST_ITEM.match(line):
            in_list = True
        elif prev_blank and indent == 0:
            in_list = False
        out.append((i + 1, line))
        para = not (_HEADING.match(line) or THEMATIC.match(line))
        prev_blank = False
    return out


def code_spans(line: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of each inline code span in `line`."""
    return [(m.start(), m.end(), m.group(2).strip()) for m in _CODE_SPAN.finditer(line)]


def _blank_spans(line: str) -> str:
    for start, end, _content in code_spans(line):
        line = line[:start] + " " * (end - start) + line[end:]
    return line


def _inline_text(line: str) -> str:
    """The line as a run of text tokens: code, tags, link targets and emphasis blanked."""
    text = _blank_spans(line)
    text = _LINK_TARGET.sub(" ", text)
    text = _INLINE_TAG.sub(" ", text)
    return _blank_emphasis(text).replace("[", " ").replace("]", " ").replace("|", " ")


def _blank_emphasis(text: str) -> str:
    """Emphasis delimiters that pair up (`**x**`, `_x_`, `~~x~~`) become spaces; a lone
    `*` inside a word or path stays text, as in CommonMark."""
    chars = list(text)
    stack: list[re.Match[str]] = []
    for run in _DELIMITER.finditer(text):
        before = text[run.start() - 1] if run.start() else " "
        after = text[run.end()] if run.end() < len(text) else " "
        kind = run.group()[0]
        opener = next((m for m in reversed(stack) if m.group()[0] == kind), None)
        if opener is not None and before.strip() and after in _CLOSES_BEFORE:
            stack.remove(opener)
            for m in (opener, run):
                chars[m.start() : m.end()] = " " * (m.end() - m.start())
        elif before in _OPENS_AFTER and after.strip():
            stack.append(run)
    return "".join(chars)


def import_path(raw: str) -> str:
    """The path an import token names: no `#fragment`, `\\ ` unescaped."""
    return raw.split("#", 1)[0].replace("\\ ", " ")


def import_tokens(line: str) -> list[str]:
    """The `@path` imports on one prose line, as written (without the `@`)."""
    found: list[str] = []
    for match in _IMPORT.finditer(_inline_text(line)):
        raw = match.group(1)
        path = import_path(raw)
        if path and _importable(path):
            found.append(raw)
    return found


def _importable(path: str) -> bool:
    if path.startswith(("./", "~/")) or (path.startswith("/") and path != "/"):
        return True
    return (
        not path.startswith("@")
        and not re.match(r"^[#%^&*()]+", path)
        and bool(_IMPORT_START.match(path))
    )


def imports(text: str) -> Iterator[tuple[int, str]]:
    """(line number, raw token) for every @import in a file's text."""
    for number, line in prose_lines(text):
        if "@" in line:
            for raw in import_tokens(line):
                yield number, raw


def is_path_token(token: str, *, bare: bool) -> bool:
    """Does `token` read as a relative file or folder path (a pointer)?

    Bare words need a slash (`docs/x.md`); code spans and link targets may be a
    single markdown file name (`README.md`). Globs, placeholders, URLs and
    absolute paths are not pointers.
    """
    if not token or not _PATH.match(token) or not re.search(r"[A-Za-z]", token):
        return False
    segments = [s for s in token.split("/") if s]
    if len(segments) > 1 and _DOMAIN.match(segments[0]) and not segments[0].startswith("."):
        return False
    if "/" not in token.rstrip("/"):
        return not bare and token.lower().endswith((".md", ".mdx"))
    return token.endswith("/") or bool(_EXTENSION.search(segments[-1]))


def pointer_tokens(line: str) -> list[tuple[str, str, str]]:
    """(kind, target, text) for each plain pointer on a prose line.

    kind is "link" (a markdown link; text = its label) or "path" (a path in a code
    span or in the text; text = ""). Images, URLs and anchors are skipped.
    """
    found: list[tuple[str, str, str]] = []
    rest = line
    for match in LINK.finditer(line):
        rest = rest.replace(match.group(0), " " * len(match.group(0)), 1)
        target = match.group(3).split("#", 1)[0].split("?", 1)[0]
        if match.group(1) or not target or _SCHEME.match(target) or target.startswith("/"):
            continue
        if not target.startswith("~"):
            found.append(("link", target, match.group(2)))
    for _start, _end, content in code_spans(rest):
        if is_path_token(content, bare=False):
            found.append(("path", content, ""))
    for word in _blank_spans(rest).split():
        token = word.strip(_EDGE).rstrip(".")
        if not token.startswith("@") and is_path_token(token, bare=True):
            found.append(("path", token, ""))
    return found


def description_words(line: str) -> int:
    """How many words on a line describe something, pointers and filler words left out."""
    text = LINK.sub(lambda m: " " + m.group(2) + " ", line)
    text = _blank_spans(text)
    kept: list[str] = []
    for word in text.split():
        token = word.strip(_EDGE).rstrip(".")
        if token.startswith("@") or is_path_token(token, bare=False) or "/" in token:
            continue
        kept.append(word)
    words = WORD.findall(" ".join(kept))
    return sum(1 for w in words if len(w) > 1 and w.lower() not in STOPWORDS)


def heading(line: str) -> tuple[int, str] | None:
    """(level, title) when `line` is an ATX heading."""
    match = _HEADING.match(line)
    if not match:
        return None
    return len(match.group(1)), (match.group(2) or "").strip()
