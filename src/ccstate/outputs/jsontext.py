"""JSON text results (an MCP server's answer, `gh ... --json`): the data, without plumbing.

Most of a GitHub, Linear or Jira object is link plumbing and blanks: `*_url` API links and
URL templates for every user and repository it mentions, `_links` hrefs, `node_id`s, nulls,
empty strings and lists, counters that are all zero, and the same repository or user object
again and again. `compact_json` drops the plumbing and blanks, writes an object that repeats
an earlier one (80 characters or more) as `"[ccstate: same as <path>]"`, and writes the rest
without indentation, keys in their order. Every value that carries data stays. Text that does
not parse as one JSON object or array is not touched (None).
"""

from __future__ import annotations

import json
import re

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
    return value


def _all_zero(item: Any) -> bool:
    """A counter object with nothing counted ({"total_count": 0, "+1": 0, ...})."""
    return (
        isinstance(item, dict)
        and len(item) > 1
        and all(isinstance(v, int) and not isinstance(v, bool) and v == 0 for v in item.values())
    )


def _same_as(value: Any, path: str, seen: dict[str, str]) -> Any:
    """`value` with each object or list that repeats an earlier one (of MIN_REPEAT characters
    or more) written as a pointer to the first."""
    if not isinstance(value, dict | list):
        return value
    if path:
        key = json.dumps(value, ensure_ascii=False, sort_keys=True)
        if len(key) >= MIN_REPEAT:
            if key in seen:
                return f"[ccstate: same as {seen[key]}]"
            seen[key] = path
    if isinstance(value, dict):
        return {k: _same_as(v, f"{path}.{k}" if path else k, seen) for k, v in value.items()}
    return [_same_as(v, f"{path}[{i}]", seen) for i, v in enumerate(value)]


def _dropped(key: str, item: Any) -> bool:
    if key in _DROPPED_KEYS:
        return True
    if not isinstance(item, str) or not _LINK.match(item):
        return False
    if key in _KEPT_LINKS:
        return bool(_API_LINK.search(item))
    return key.endswith("_url")
