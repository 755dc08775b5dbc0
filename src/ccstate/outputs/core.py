"""Which tool results get a digest, and the digest with its closing line (pure).

`digest_for` picks the treatment by tool: Grep content is regrouped under one heading per file,
Glob's list under the folder its paths share, JSON text loses its link plumbing
(`jsontext`), and any other text gets the line digest (`digest`). `with_handle` adds the line
that names the complete original. Design and wording: docs/OUTPUTS.md.

Standard library only: the PostToolUse hook imports this module.
"""

from __future__ import annotations

from ccstate.outputs import digest as line_digest
from ccstate.outputs import encoded
from ccstate.outputs import lines as output_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

HANDLE_TAG = "[ccstate: digest of "
# Claude Code persists (and previews 2 KB of) a replacement longer than its own cut-off:
# 30,000 characters for Bash, 20,000 for Grep, 25,000 tokens for an MCP tool. Digests stay
# below them.
MAX_DIGEST_CHARS = {"Bash": 25_000, "Grep": 18_000, "mcp": 80_000}
DEFAULT_MAX_DIGEST_CHARS = 25_000
MIN_SAVED_RATIO = 0.1  # a digest must keep at least this share of the original out
MIN_SAVED_CHARS = 500
WHAT = {  # what the digest did, in the closing line
    "lines": "errors and summaries kept, repeats collapsed",
    "grep": "one heading per file",
    "grep-lines": "one heading per file; errors kept, the rest collapsed",
    "paths": "shared folder written once",
    "grep-uniform": "matches alike but for a path, a number or a word said once",
    "paths-grouped": "paths in a row under one folder as folder/{a,b}, numbered ones as {1..9}",
    "json": "links, ids and empty values dropped",
    "jsonl": "JSON lines: links, ids and empty values dropped, long lines cut",
    "lint": "errors kept, warnings grouped by rule",
    "terminal": "terminal codes removed, redrawn lines at their last state",
    "encoded": "long base64 and hex runs cut",
}
PATHS_NOTE = "[ccstate: the paths below are in {folder}]"
TOOL_KEYS = {"Bash": "bash", "Grep": "grep", "Glob": "glob", "WebFetch": "webfetch"}


def tool_key(tool_name: str) -> str | None:
    """The `outputs.<key>` switch for a tool; None for a tool ccstate never digests."""
    if tool_name.startswith("mcp__"):
        return "mcp"
    return TOOL_KEYS.get(tool_name)


class Options:
    """`outputs.*` from the config: the switch, per-tool switches, the size threshold."""

    __slots__ = ("enabled", "min_chars", "tools")

    def __init__(
        self, enabled: bool = True, tools: frozenset[str] | None = None, min_chars: int = 2000
    ) -> None:
        self.enabled = enabled
        self.tools = tools if tools is not None else frozenset(TOOL_KEYS.values()) | {"mcp"}
        self.min_chars = min_chars

    @classmethod
    def from_config(cls, config: Any) -> Options:
        keys = (*TOOL_KEYS.values(), "mcp")
        return cls(
            enabled=bool(config.get("outputs.enabled")),
            tools=frozenset(k for k in keys if config.get(f"outputs.{k}")),
            min_chars=int(config.get("outputs.min_chars")),
        )

    def wants(self, tool_name: str) -> bool:
        key = tool_key(tool_name)
        return self.enabled and key is not None and key in self.tools


class Body:
    """A digest before its closing line: the text, what was done (a `WHAT` key) and how many
    encoded runs it cut (`encoded`)."""

    __slots__ = ("elided", "how", "text")

    def __init__(self, text: str, how: str, elided: int = 0) -> None:
        self.text = text
        self.how = how
        self.elided = elided


def digest_for(
    tool_name: str, text: str, *, exists: Callable[[str], bool] | None = None
) -> Body | None:
    """The digest body for this tool's output text, or None to leave it alone."""
    key = "mcp" if tool_name.startswith("mcp__") else tool_name
    limit = MAX_DIGEST_CHARS.get(key, DEFAULT_MAX_DIGEST_CHARS)
    if "\x00" in text:
        return None  # binary
    if tool_name == "Grep":
        from ccstate.outputs import listing, uniform

        headed = listing.grep_headings(text, exists)
        collapsed = uniform.grep_runs(text, exists)
        if collapsed is not None and _beats(collapsed, headed or text, text, limit):
            return Body(collapsed, "grep-uniform")  # matches of one shape, said once
        if headed is None:
            return None
        if len(headed) <= limit:  # long lines cut (a match in a minified file or a log)
            return Body("\n".join(line_digest.cut_long_lines(headed.split("\n"))[0]), "grep")
        # Claude Code would persist it and show a 2 KB preview: digest it, headings kept
        rows, numbers, headings = listing.heading_numbers(headed)
        found = line_digest.digest_lines(rows, max_chars=limit, numbers=numbers, keep=headings)
        return Body(found.text, "grep-lines") if found is not None else None
    if tool_name == "Glob":
        return _path_list(text, limit)
    if text.lstrip()[:1] in ("{", "[") or text.startswith("==> "):
        json_text, body = _json(text, limit)
        if json_text:
            return body
    short = encoded.elide(text)  # long base64 or hex runs cut (not those of failure lines)
    body = _text(tool_name, short, limit)
    if short is text:
        return body
    if body is None:
        body = Body(short, "encoded") if len(short) <= limit else None
    if body is not None:
        body.elided = encoded.elided(text, body.text)
    return body


def _text(tool_name: str, text: str, limit: int) -> Body | None:
    """The digest of a text output: a linter report grouped, a path list, the line digest;
    else, when terminal codes or redraws made up a good part of it, the lines a terminal
    would show."""
    from ccstate.outputs import lint

    rows = output_lines.normalize(text)
    grouped = lint.group_warnings(rows)
    if grouped is None:
        found = line_digest.digest_lines(rows, max_chars=limit)
        body = Body(found.text, "lines") if found is not None else None
        if tool_name == "Bash" and _is_path_list(rows):  # `find`: the shorter of the two
            paths = _path_list(text, limit)
            body = paths if body is None or (paths and len(paths.text) < len(body.text)) else body
        if body is None and ("\r" in text or "\x1b" in text):
            shown = "\n".join(line_digest.cut_long_lines(rows)[0])
            body = Body(shown, "terminal") if len(shown) <= limit else None
        return body
    rows, numbers = grouped  # a linter report: warnings grouped, then the rest digested
    found = line_digest.digest_lines(rows, max_chars=limit, numbers=numbers)
    text = found.text if found is not None else "\n".join(rows)
    return Body(text, "lint") if len(text) <= limit else None


def _json(text: str, limit: int) -> tuple[bool, Body | None]:
    """(whether the text is JSON, its digest): one JSON value without its plumbing; JSON
    Lines (or `head` of several such files) compacted row by row, then the line digest, which
    cuts long rows (not those whose strings hold a failure line) and collapses runs; in both,
    long base64 or hex runs of a string cut (`encoded`). JSON that does not parse (cut
    short?) is left whole but for such runs."""
    from ccstate.outputs import jsontext

    compact = jsontext.compact_json(text) if text.lstrip()[:1] in ("{", "[") else None
    if compact is not None:
        return True, _elided(Body(compact, "json"), text) if len(compact) <= limit else None
    rows = output_lines.normalize(text)
    json_lines = jsontext.compact_lines(rows, line_digest.LONG_LINE)
    if json_lines is not None:
        rows, failing = json_lines
        found = line_digest.digest_lines(rows, max_chars=limit, keep=failing)
        body = found.text if found is not None else "\n".join(rows)
        return True, _elided(Body(body, "jsonl"), text) if len(body) <= limit else None
    if not _looks_like_json(text):
        return False, None
    short = encoded.elide(text)
    if short is text or len(short) > limit:
        return True, None
    return True, _elided(Body(short, "encoded"), text)


def _elided(body: Body, original: str) -> Body:
    body.elided = encoded.elided(original, body.text)
    return body


def _paths(text: str, limit: int) -> Body | None:
    from ccstate.outputs import listing

    shared = listing.common_folder(text.split("\n"))
    if shared is None:
        return None
    folder, rest = shared
    body = PATHS_NOTE.format(folder=folder) + "\n" + "\n".join(rest)
    return Body(body, "paths") if len(body) <= limit else None


def _path_list(text: str, limit: int) -> Body | None:
    """A path list's digest, lossless: the shared folder written once, then (or else) the paths
    in a row under one folder, and numbered names in a row, grouped with braces; the shortest."""
    from ccstate.outputs import uniform

    shared = _paths(text, limit)
    if shared is not None:
        head, _, rest = shared.text.partition("\n")
        inner = uniform.path_runs(rest)
        grouped = head + "\n" + inner if inner is not None else None
    else:
        grouped = uniform.path_runs(text)
    shorter = grouped is not None and (shared is None or len(grouped) < len(shared.text))
    if grouped is not None and shorter and len(grouped) <= limit:
        return Body(grouped, "paths-grouped")
    return shared


def _beats(lossy: str, lossless: str, original: str, limit: int) -> bool:
    """A digest that leaves rows out wins over one that keeps them all only when it is shorter
    by MIN_SAVED_RATIO of the original (and fits)."""
    return len(lossy) <= limit and len(lossy) + MIN_SAVED_RATIO * len(original) <= len(lossless)


def _is_path_list(rows: list[str]) -> bool:
    """Every line a path (`find`, `ls -d`, `git ls-files`): one word with a slash in it (a
    blank line or an older Claude Code's cut marker aside)."""
    if any(" " in row for row in rows):
        return False
    from ccstate.outputs import listing

    paths = [row for row in rows if not listing.is_raw(row)]
    return len(paths) > 1 and all(" " not in row and "/" in row for row in paths)


def _looks_like_json(text: str) -> bool:
    head = text.lstrip()[:200]
    return head.startswith(('{"', "[{", '["', "[]", "{}", "[\n", "{\n"))


def with_handle(body: Body, original: str, path: str) -> str:
    """The digest the model reads: the body, then the line that names the original."""
    lines = original.count("\n") + 1
    what = WHAT[body.how]
    if body.elided and body.how != "encoded":
        runs = "run" if body.elided == 1 else "runs"
        what += f"; {body.elided} base64 or hex {runs} cut"
    return (
        f"{body.text}\n{HANDLE_TAG}{lines:,} lines, {len(original):,} chars ({what}). "
        f"Complete output: {path} - Read it for anything left out.]"
    )


def worth_it(digest: str, original: str, *, persisted: bool) -> bool:
    """A digest must keep a fair share out; for an output Claude Code persisted (the model
    would get a 2 KB preview) any digest shorter than the original beats the preview."""
    saved = len(original) - len(digest)
    if persisted:
        return saved > 0
    return saved >= max(MIN_SAVED_CHARS, MIN_SAVED_RATIO * len(original))
