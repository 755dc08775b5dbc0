"""What digests would have kept out of recorded sessions, and a safety check (CLI only).

`DigestTally` watches the tool results of a transcript walk (`ledger.replay` drives it, with
contexts, epochs and API calls) and runs the hook's own `core.digest_for` on every result the
hook would digest: Bash (not shell reads: those are the ledger's), Grep in content mode, Glob,
WebFetch and MCP tools, over `outputs.min_chars`, not an error (a failed command reaches the
model untouched: PostToolUseFailure cannot shape it). Per tool and in total it counts
characters and tokens kept out (the original as the model saw it, against the digest with its
closing line) and token-turns (tokens kept out x later API calls of the same context and
epoch), and checks that every failure line of each original (`lines.is_failure_line`) is in
its digest. Tokens: tiktoken cl100k_base (`ccstate.tokens`), chars/4 without it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ccstate import hookio, tokens
from ccstate.outputs import core, jsontext, lines, listing, uniform

HANDLE_DIR = ".ccstate/out"


@dataclass
class ToolTotals:
    results: int = 0  # results the hook would look at (the tool's, over the threshold)
    digests: int = 0
    chars_before: int = 0
    chars_saved: int = 0
    tokens_saved: int = 0
    token_turns_saved: int = 0

    def add(self, other: ToolTotals) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_json(self) -> dict[str, int]:
        return dict(vars(self))


@dataclass
class DigestTotals:
    tools: dict[str, ToolTotals] = field(default_factory=dict)
    failure_lines: int = 0  # failure lines in the digested originals
    lost: list[str] = field(default_factory=list)  # failure lines a digest dropped
    tokens_exact: bool = True

    @property
    def total(self) -> ToolTotals:
        out = ToolTotals()
        for one in self.tools.values():
            out.add(one)
        return out

    def add(self, other: DigestTotals) -> None:
        for name, one in other.tools.items():
            self.tools.setdefault(name, ToolTotals()).add(one)
        self.failure_lines += other.failure_lines
        self.lost += other.lost
        self.tokens_exact = self.tokens_exact and other.tokens_exact

    def as_json(self) -> dict[str, Any]:
        return {
            "tools": {name: t.as_json() for name, t in sorted(self.tools.items())},
            "total": self.total.as_json(),
            "failure_lines": self.failure_lines,
            "lost": list(self.lost),
            "tokens_exact": self.tokens_exact,
        }


def tool_label(tool_name: str) -> str:
    return "MCP" if tool_name.startswith("mcp__") else tool_name


class DigestTally:
    """The observer `ledger.replay` calls: API calls, epochs and tool results, per context."""

    def __init__(self, opts: core.Options) -> None:
        self.opts = opts
        self.totals = DigestTotals()
        self._open: dict[str, list[tuple[str, int]]] = {}  # context -> (tool, tokens saved)

    def fresh(self) -> DigestTally:
        """An empty tally with the same options (one file's walk in a replay worker)."""
        return DigestTally(self.opts)

    def merge(self, other: DigestTally) -> None:
        """Add what `other` found (another file's walk, in file order)."""
        self.totals.add(other.totals)

    def api_call(self, key: str) -> None:
        for label, saved in self._open.get(key, ()):
            self.totals.tools[label].token_turns_saved += saved

    def new_epoch(self, key: str) -> None:
        self._open.pop(key, None)

    def result(
        self, key: str, name: str, tool_input: dict[str, Any], seen: str, extra: Any, cwd: str
    ) -> None:
        """One successful tool result: `seen` is what the model was shown, `extra` the
        record's toolUseResult (what the hook gets), when it belongs to this result alone;
        `cwd` the session's folder (the digest names a file under its state dir)."""
        if not self.opts.wants(name):
            return
        text = _hook_text(name, tool_input, seen, extra)
        if text is None or len(text) < self.opts.min_chars:
            return
        label = tool_label(name)
        one = self.totals.tools.setdefault(label, ToolTotals())
        one.results += 1
        body = core.digest_for(name, text)
        if body is None:
            return
        path = f"{cwd.rstrip('/')}/{HANDLE_DIR}/{_sha(text)[:16]}.txt"
        digest = core.with_handle(body, text, path)
        if not core.worth_it(digest, seen, persisted=False):
            return
        self._check(name, text, body)
        before, exact_a = tokens.count_tokens(seen)
        after, exact_b = tokens.count_tokens(digest)
        self.totals.tokens_exact = self.totals.tokens_exact and exact_a and exact_b
        one.digests += 1
        one.chars_before += len(seen)
        one.chars_saved += len(seen) - len(digest)
        one.tokens_saved += before - after
        self._open.setdefault(key, []).append((label, before - after))

    def _check(self, name: str, text: str, body: core.Body) -> None:
        """Every failure line of the original must be in the digest: as a whole line of a line
        digest; as a line of what a Grep or path-list digest expands back to; as a string of
        a JSON digest's data."""
        failures = _failure_lines(text, body.how)
        self.totals.failure_lines += len(failures)
        kept = _kept_lines(body)
        for line in sorted(failures - kept):
            self.totals.lost.append(f"{tool_label(name)}: {line[:120]}")


def _failure_lines(text: str, how: str) -> set[str]:
    if how == "json":
        return set(lines.failure_lines(_strings(json.loads(text))))
    if how == "jsonl":
        return set(lines.failure_lines(_row_strings(lines.normalize(text))))
    return set(lines.failure_lines(lines.normalize(text)))


def _kept_lines(body: core.Body) -> set[str]:
    if body.how == "json":
        return set(_strings(json.loads(body.text)))
    if body.how == "jsonl":
        return set(_row_strings(body.text.split("\n")))
    if body.how in ("grep", "grep-lines"):
        return set(listing.expand_headings(body.text).split("\n")) | set(body.text.split("\n"))
    if body.how in ("paths", "paths-grouped"):
        head, _, rest = body.text.partition("\n")
        note = core.PATHS_NOTE.split("{")[0]
        if not head.startswith(note):  # grouped paths without a shared folder
            return set(uniform.expand_paths(body.text))
        folder = head[len(note) : -1]
        rows = uniform.expand_paths(rest) if body.how == "paths-grouped" else rest.split("\n")
        return {line if listing.is_raw(line) else folder + line for line in rows}
    return set(lines.normalize(body.text))


def _row_strings(rows: list[str]) -> list[str]:
    """JSON Lines: the strings of each row that parses, split into lines; any other row (a
    header, a marker, a row cut short) as it is."""
    out: list[str] = []
    for row in rows:
        try:
            out += _strings(json.loads(row)) if row.lstrip()[:1] in ("{", "[") else [row]
        except ValueError:
            out.append(row)
    return out


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value, keys aside, split into lines."""
    return [line for text in jsontext.strings(value) for line in text.split("\n")]


def _hook_text(name: str, tool_input: dict[str, Any], seen: str, extra: Any) -> str | None:
    """The text the hook would digest: from the toolUseResult when there is one, else from
    what the model was shown (a Grep in content mode, any Bash, MCP or WebFetch result)."""
    if extra is not None:
        got = hookio.output_text(name, extra)
        if got is not None:
            return got[0]
        if isinstance(extra, dict):
            return None  # a shape the hook leaves alone (an image, Grep's file list...)
    if name == "Grep" and tool_input.get("output_mode") != "content":
        return None
    return seen


def _sha(text: str) -> str:
    from ccstate.store import sha256_hex

    return sha256_hex(text.encode("utf-8", "surrogatepass"))
