"""The last CLAUDE.md lint result, kept in the state dir for the hooks.

Written by `ccstate lint` (tiktoken counts) and by the PostToolUse edit check (chars/4),
read by the SessionStart capsule (status.py). It is fresh while every file the lint looked at
(instruction files, folders it listed, pointer targets) has the same mtime and size and
the lint settings are unchanged; a stale or missing cache is recomputed with the chars/4
estimate (a few small files, no tokenizer). Standard library and string paths only.
"""

from __future__ import annotations

import json
import os

from ccstate import paths, store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from ccstate.config import Config
    from ccstate.instructions.lint import Report

CACHE_VERSION = 1
# The settings a lint result depends on (lint.py reads them from here: a cache hit at
# SessionStart then imports no part of the linter).
SETTINGS = (
    "lint.root_max_lines",
    "lint.root_max_tokens",
    "lint.import_max_tokens",
    "lint.topic_dir",
)


def stamp(files: Iterable[str]) -> list[list[Any]]:
    """[path, mtime_ns, size] for each path ([path, None, None] when absent), sorted."""
    out: list[list[Any]] = []
    for path in sorted(set(files)):
        try:
            st = os.stat(path)
        except OSError:
            out.append([path, None, None])
        else:
            out.append([path, st.st_mtime_ns, st.st_size])
    return out


def settings_of(config: Config) -> dict[str, Any]:
    return {key: config.get(key) for key in SETTINGS}


def to_cache(report: Report) -> dict[str, Any]:
    """The cache record for a report: its stamp, error summary, root sizes and imports."""
    ctx = report.context
    imports: dict[str, list[list[Any]]] = {}
    for ref in ctx.loaded.imports:
        cost = ctx.costs.get(ref.target, 0) if ref.status == "loaded" else 0
        imports.setdefault(ref.source, []).append([ref.raw, ref.status, cost])
    errors = [f for f in report.findings if f.level == "error"]
    return {
        "v": CACHE_VERSION,
        "stamp": stamp([*ctx.consulted, *(f.path for f, _n in report.files)]),
        "settings": dict(ctx.settings),
        "exact": report.exact,
        "errors": len(errors),
        "error_rules": sorted({f.rule for f in errors}),
        "roots": {
            f.path: [f.lines, len(f.text), tokens] for f, tokens in report.files if f.kind == "root"
        },
        "imports": imports,
    }


def write(state: str, report: Report) -> dict[str, Any]:
    data = to_cache(report)
    try:
        store.atomic_write_json(
            paths.claude_md_cache_path_str(state), data, durable=False, private=True
        )
    except OSError:  # a read-only state dir: recompute next time
        return data
    return data


def read(state: str) -> dict[str, Any] | None:
    try:
        with open(paths.claude_md_cache_path_str(state), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("v") != CACHE_VERSION:
        return None
    return data


def is_fresh(data: Mapping[str, Any], config: Config) -> bool:
    stored = data.get("stamp")
    if not isinstance(stored, list) or data.get("settings") != settings_of(config):
        return False
    try:
        return stamp(row[0] for row in stored) == stored
    except (TypeError, IndexError):
        return False
