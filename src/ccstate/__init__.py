"""ccstate: keep a Claude Code project's working state outside the context window."""

__version__ = "0.1.0"
