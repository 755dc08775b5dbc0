"""The decisions lines of the SessionStart capsule, and the summary cache they come from.

Parsing DECISIONS.md costs time in proportion to its length (~0.05 ms an entry), and SessionStart
runs at every start, resume, /clear and compaction. So the capsule reads a summary of the last
parse from `<state>/cache/decisions.json`: the newest active decisions (ID, title), the counts,
the problems, the next ID and where the next-id marker sits. It is keyed two ways:

- by the file's stamp (inode, size, mtime, ctime; `store.file_stamp`): what SessionStart checks
  with one stat. Any other stamp (a hand edit, a git checkout, `lint --fix`) means a parse,
  and the summary is rewritten for the next start;
- by the sha256 of the text: what `ccstate decide` checks before it appends without a parse
  (decisions/edit.py), and then updates the summary in place.

The config (`decisions.capsule_max`) is applied when the lines are rendered, so it is no part of
the key. Standard library only; the parser (log.py) is imported only when the cache misses.
"""

from __future__ import annotations

import json
import os

from ccstate import paths, store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ccstate.config import Config
    from ccstate.decisions.log import Log

CACHE_VERSION = 1
MAX_LISTED = 200  # the largest `decisions.capsule_max`: the summary lists at most this many
CAPSULE_TITLE_MAX = 90


def cache_path(state: str | os.PathLike[str]) -> str:
    return os.path.join(state, "cache", "decisions.json")


# --------------------------------------------------------------------------- the summary


def summarize(log: Log) -> dict[str, Any]:
    """What the capsule and a parse-free append need from a parsed file."""
    decisions = log.decisions()
    active = sorted((d for d in decisions if d.status == "active"), key=lambda d: -d.number)
    valid = [i for i, value in log.markers if value is not None]
    return {
        "active": [[d.number, stored_title(d.title)] for d in active[:MAX_LISTED]],
        "active_count": len(active),
        "decisions": len(decisions),
        "errors": sum(p.level == "error" for p in log.problems),
        "clashes": len(decisions) - len({d.number for d in decisions}),  # e.g. a union merge
        "next_id": log.next_id,
        # a parse-free append rewrites the marker in place: only when there is exactly one
        "marker": valid[0] if len(log.markers) == 1 and valid else None,
    }


def stored_title(title: str) -> str:
    """A decision's title as the summary stores it and the capsule shows it: redacted (#23:
    every string ccstate stores goes through the redactor). Only on a parse or a `decide`,
    never on a cached start."""
    from ccstate.secrets import redact

    return redact.redact(title)


def capsule_lines(
    summary: dict[str, Any], limit: int, name: str = paths.DECISIONS_NAME
) -> list[str]:
    """One line per active decision (ID + title), newest first, at most `limit` (pure).

    Nothing when no decision is active and the file has no problem: a line saying there is
    none would be paid on every request for nothing (#43)."""
    problems = summary["errors"] + summary["clashes"]
    hint = "; the file has problems: run `ccstate decisions lint`" if problems else ""
    active, count = summary["active"], summary["active_count"]
    if not count:
        return [f"- decisions: {name} has problems: run `ccstate decisions lint`"] if hint else []
    head = (
        f"- decisions ({name}), newest first; cite as `D{active[0][0]} ({name})` instead of "
        f"restating; `ccstate decide` records one{hint}:"
    )
    lines = [head, *(f"  - D{n}: {_short(title)}" for n, title in active[:limit])]
    if count > limit:
        lines.append(f"  - ... {count - limit} older: `ccstate decisions` lists them")
    return lines


def _short(title: str) -> str:
    return title if len(title) <= CAPSULE_TITLE_MAX else title[: CAPSULE_TITLE_MAX - 3] + "..."


# --------------------------------------------------------------------------- the cache


def read_cache(state: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The cached record, or None when absent, unreadable or of another version."""
    try:
        with open(cache_path(state), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("v") != CACHE_VERSION:
        return None
    if not isinstance(data.get("summary"), dict):
        return None
    return data


def write_cache(
    state: str | os.PathLike[str], stamp: list[int], sha: str, summary: dict[str, Any]
) -> None:
    """Keep `summary` for the file with this stamp and text digest (best effort)."""
    data = {"v": CACHE_VERSION, "stamp": stamp, "sha": sha, "summary": summary}
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        store.atomic_write_text(cache_path(state), text, durable=False, private=True)
    except OSError:  # a read-only state dir: parse again next time
        return


def digest(data: bytes) -> str:
    """sha256 of the file's bytes (hashlib: OpenSSL is several times faster on a long log than
    the builtin module the hooks use, and only writers and a cache miss get here)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()


def remember(state: str | os.PathLike[str], path: str, text: str, summary: dict[str, Any]) -> None:
    """After a writer put `text` at `path`: cache its summary under the file's new stamp.

    Skipped when the file on disk is already not that text (someone wrote in between)."""
    stamp = store.file_stamp(path)
    data = text.encode("utf-8")
    if stamp is not None and stamp[1] == len(data):
        write_cache(state, stamp, digest(data), summary)


def active_decisions(
    project: str | os.PathLike[str], state: str | os.PathLike[str]
) -> tuple[list[tuple[int, str]], str]:
    """(the active decisions, newest first, at most MAX_LISTED, as (number, title); a problem
    to log, "" when none): the compaction block's list (#26), from the same summary cache as
    the capsule. A file that cannot be read gives no decisions and says so; one with parse
    problems gives those it could parse."""
    path = os.path.join(project, paths.DECISIONS_NAME)
    summary, problem = _summary(path, state)
    if summary is None:
        return [], problem
    active = [(int(n), str(t)) for n, t in summary["active"]]
    errors = summary["errors"] + summary["clashes"]
    if errors and not problem:
        problem = (
            f"{path} has {errors} problem(s); listed the {len(active)} active decision(s) "
            "that parse (`ccstate decisions lint` names the lines)"
        )
    return active, problem


def _summary(path: str, state: str | os.PathLike[str]) -> tuple[dict[str, Any] | None, str]:
    """The summary of `path` from the cache when its stamp matches, else from a parse (which
    refreshes the cache); (None, reason) when the file is absent or unreadable."""
    stamp = store.file_stamp(path)
    if stamp is None:
        return None, ""
    cached = read_cache(state)
    if cached is not None and cached.get("stamp") == stamp:
        return cached["summary"], ""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path} is unreadable ({exc}); no decisions listed"
    from ccstate.decisions.log import parse_log

    summary = summarize(parse_log(text))
    if store.file_stamp(path) == stamp:  # unchanged while it was read: safe to key by `stamp`
        write_cache(state, stamp, digest(data), summary)
    return summary, ""


def capsule_section(
    project: str | os.PathLike[str], state: str | os.PathLike[str], config: Config
) -> list[str]:
    """Capsule lines indexing the active decisions: from the cache when the file's stamp
    matches, else from a parse (which refreshes the cache)."""
    path = os.path.join(project, paths.DECISIONS_NAME)
    limit = int(config.get("decisions.capsule_max"))
    summary, problem = _summary(path, state)
    if summary is None and problem:
        return [f"- decisions: {paths.DECISIONS_NAME} is unreadable; run `ccstate decisions lint`"]
    if summary is None:
        return []
    return capsule_lines(summary, limit)
