"""Hook handlers: one module per Claude Code event, dispatched by `__main__`."""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from ccstate.config import Config


class HookEnv:
    """Everything a handler may know about the process, passed in, never looked up.

    Paths come as strings (`project`, `state`, `plugin_root_str`, ...): the hot hooks
    (PreToolUse, PostToolUse) must use those with os.path, because importing pathlib
    costs them a fifth of their time budget. Cold handlers may use the Path properties
    (`project_dir`, `state_dir`, `plugin_root`, `plugin_data`), which import pathlib.
    A plain `__slots__` class, not a dataclass, for the same reason. `begun` is when the hook
    started (time.monotonic()): its budget counts from there (hooks/budget.py).
    """

    __slots__ = (
        "begun",
        "config",
        "environ",
        "now",
        "plugin_data_str",
        "plugin_root_str",
        "project",
        "state",
    )

    def __init__(
        self,
        project: str,
        state: str,
        config: Config,
        now: float,
        plugin_root: str | None = None,
        plugin_data: str | None = None,
        environ: Mapping[str, str] | None = None,
        begun: float | None = None,
    ) -> None:
        self.begun = time.monotonic() if begun is None else begun
        self.project = project
        self.state = state
        self.config = config
        self.now = now
        self.plugin_root_str = plugin_root
        self.plugin_data_str = plugin_data
        self.environ: Mapping[str, str] = environ if environ is not None else {}

    @property
    def project_dir(self) -> Path:
        from pathlib import Path

        return Path(self.project)

    @property
    def state_dir(self) -> Path:
        from pathlib import Path

        return Path(self.state)

    @property
    def plugin_root(self) -> Path | None:
        from pathlib import Path

        return Path(self.plugin_root_str) if self.plugin_root_str else None

    @property
    def plugin_data(self) -> Path | None:
        from pathlib import Path

        return Path(self.plugin_data_str) if self.plugin_data_str else None
