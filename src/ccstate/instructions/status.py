"""The CLAUDE.md lint as the SessionStart capsule sees it: cached, or recomputed cheaply.

The cache (cache.py) holds the last lint result; when it is stale or missing the lint runs
again with the chars/4 estimate (a few small files, never tiktoken) and refreshes it.
Standard library and string paths only: this runs at every SessionStart.
"""

from __future__ import annotations

import os

from ccstate.instructions import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ccstate.config import Config
    from ccstate.store import StrPath


def summary(project: str, state: str, config: Config, environ: Mapping[str, str]) -> dict[str, Any]:
    """The cached lint result, recomputed with chars/4 when stale (never tiktoken)."""
    data = cache.read(state)
    if data is not None and cache.is_fresh(data, config):
        return data
    from ccstate.instructions import lint as claude_md  # only when the cache is stale

    report = claude_md.lint(project, config, environ, claude_md.estimate, full=False)
    return cache.write(state, report.to_cache())


def capsule_section(project: StrPath, state: StrPath, config: Config) -> list[str]:
    """At most one capsule line about lint errors."""
    found = summary(os.fspath(project), os.fspath(state), config, os.environ)
    if not found["errors"]:
        return []
    rules = ", ".join(found["error_rules"])
    return [f"- CLAUDE.md lint: {found['errors']} error(s) ({rules}); `ccstate lint` shows them"]
