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

CACHE_VERSION = 1
# The settings a lint result depends on (lint.py reads them from here: a cache hit at
# SessionStart then imports no part of the linter). The record itself is built by
# `lint.Report.to_cache`: lint imports this module, never the other way round, not even
# for type annotations (the no-cycles contract of importlinter-typing.toml).
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


def write(state: str, data: dict[str, Any]) -> dict[str, Any]:
    """Keep `data` (a lint report's `to_cache()` record) for the hooks; returns it."""
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
