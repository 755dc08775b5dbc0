"""Hook handlers: one module per Claude Code event, dispatched by `__main__`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ccstate.config import Config


@dataclass(frozen=True)
class HookEnv:
    """Everything a handler may know about the process, passed in, never looked up."""

    project_dir: Path
    state_dir: Path
    config: Config
    now: float
    plugin_root: Path | None = None
    plugin_data: Path | None = None
    environ: Mapping[str, str] = field(default_factory=dict)
