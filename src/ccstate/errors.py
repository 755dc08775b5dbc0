"""One exception base; subclasses only where a caller handles them differently."""

from __future__ import annotations


class CcstateError(Exception):
    """An error the user can act on; the CLI prints it as one line and exits 1."""


class ConfigError(CcstateError):
    """`.ccstate.yaml` is unreadable or holds a bad value."""


class StateError(CcstateError):
    """A state file is corrupt, locked too long or cannot be written."""
