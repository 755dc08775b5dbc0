"""`python -m ccstate` runs the CLI."""

from __future__ import annotations

from ccstate.cli import main

if __name__ == "__main__":
    main()
