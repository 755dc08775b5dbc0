"""JSON text results (an MCP server's answer, `gh ... --json`): the data, without plumbing.

Most of a GitHub, Linear or Jira object is link plumbing and blanks: `*_url` API links and
URL templates for every user and repository it mentions, `_links` hrefs, `node_id`s, nulls,
empty strings and lists, counters that are all zero, and the same repository or user object
again and again. `compact_json` drops the plumbing and blanks, writes an object that repeats
an earlier one (80 characters or more) as `"[ccstate: same as <path>]"`, cuts long base64 and
hex runs inside strings (`encoded`: an image as a data URL), and writes the rest without
indentation, keys in their order. Every other value that carries data stays. Text that does
not parse as one JSON object or array is not touched (None).
"""

from __future__ import annotations

import json
import re

from ccstate.outputs import encoded
from ccstate.outputs.lines import is_failure_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# An API link or a URL template ("https://api.github.com/...", ".../{/other_user}").
_API_LINK = re.compile(r"\Ahttps?://api\.|\{[/?&]?[\w,]+\}")
_LINK = re.compile(r"\A(?:[a-z+]+://|git@)")
_DROPPED_KEYS = frozenset({"node_id", "gravatar_id"})
_KEPT_LINKS = frozenset({"html_url", "url", "href", "web_url", "permalink"})
MIN_REPEAT = 80  # characters of JSON; a smaller repeated object stays as it is


def compact_json(text: str) -> str | None:
    """`text` with API links, node ids and empty values dropped, or None (not JSON, or
    nothing to drop)."""
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    cleaned = _same_as(_clean(data), "", {})
    out = json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))
    return out if len(out) < len(text) else None


def compact_lines(rows: list[str], long_line: int) -> tuple[list[str], list[int]] | None:
    """JSON Lines (a session log, `gh ... --json` a line at a time): each row that is a JSON
    object or array compacted as `compact_json` does, an object that repeats one of an
    earlier row's written as a pointer to it ("[ccstate: same as line 3.payload]", never to
    a row longer than `long_line`, which a digest cuts). Between the JSON rows only blank
    rows and `head`'s `==> file <==` headers may stand; the last row may be cut short (kept
    as it is). Returns the rows and the indexes of those whose strings hold a failure line
    (`lines.is_failure_line`: a digest keeps them whole), or None when `rows` are not JSON
    Lines or nothing was dropped."""
    parsed: list[Any] = []
    last = max((i for i, row in enumerate(rows) if row.strip()), default=-1)
    for i, row in enumerate(rows):
        item = _json_row(row)
        if item is _NOT_JSON and row.strip() and not _HEADER.match(row) and i != last:
            return None
        parsed.append(item)
    if sum(1 for item in parsed if item is not _NOT_JSON) < 2:
        return None
    out: list[str] = []
    failing: list[int] = []
    seen: dict[str, str] = {}
    for i, (row, item) in enumerate(zip(rows, parsed, strict=True)):
        if item is _NOT_JSON:
            out.append(row)
            continue
        if any(is_failure_line(s) for text in strings(item) for s in text.split("\n")):
            failing.append(i)
        cleaned = _clean(item)
        whole = len(_dump(cleaned)) <= long_line  # objects of a row that stays whole
        compact = _dump(_same_as(cleaned, f"line {i + 1}", seen, register=whole))
        out.append(compact if len(compact) < len(row) else row)
    return (out, failing) if out != rows else None


_NOT_JSON = object()
_HEADER = re.compile(r"==> .* <==\Z")


def _json_row(row: str) -> Any:
    text = row.strip()
    if not text or text[0] not in "{[" or text[-1] not in "}]":
        return _NOT_JSON
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def strings(value: Any) -> list[str]:
    """Every string value in a JSON value (keys aside)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if _dropped(key, item):
                continue
            item = _clean(item)
            if item is None or item == "" or item == [] or item == {} or _all_zero(item):
                continue
            out[key] = item
        return out
    if isinstance(value, list):
        return [_clean(item) for item in value]
    if isinstance(value, str) and len(value) >= encoded.MIN_RUN:
        return encoded.elide(value)  # an image as a data URL, a key in base64, a hex dump
    return value


def _all_zero(item: Any) -> bool:
    """A counter object with nothing counted ({"total_count": 0, "+1": 0, ...})."""
    return (
        isinstance(item, dict)
        and len(item) > 1
        and all(isinstance(v, int) and not isinstance(v, bool) and v == 0 for v in item.values())
    )


def _same_as(value: Any, path: str, seen: dict[str, str], *, register: bool = True) -> Any:
    """`value` with each object or list that repeats an earlier one (of MIN_REPEAT characters
    or more) written as a pointer to the first; with `register` false, the objects of this
    value are not pointed to later."""
    if not isinstance(value, dict | list):
        return value
    if path:
        key = json.dumps(value, ensure_ascii=False, sort_keys=True)
        if len(key) >= MIN_REPEAT:
            if key in seen:
                return f"[ccstate: same as {seen[key]}]"
            if register:
                seen[key] = path
    if isinstance(value, dict):
        return {
            k: _same_as(v, f"{path}.{k}" if path else k, seen, register=register)
            for k, v in value.items()
        }
    return [_same_as(v, f"{path}[{i}]", seen, register=register) for i, v in enumerate(value)]


def _dropped(key: str, item: Any) -> bool:
    if key in _DROPPED_KEYS:
        return True
    if not isinstance(item, str) or not _LINK.match(item):
        return False
    if key in _KEPT_LINKS:
        return bool(_API_LINK.search(item))
    return key.endswith("_url")
