"""The detached indexer: `python -m ccstate.repo.worker PROJECT STATE SECONDS`.

SessionStart, SessionEnd and a `ccstate find` that ran out of its own time start it and
return at once: it brings the code index up to date within SECONDS (a first index of a
large repository included), embeds the chunks when a model is configured, refreshes the
cached map when the capsule carries one, and exits. One at a time: a second one finds the
index locked and exits. Never a daemon; the next trigger carries on where it stopped.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def run(project: Path, state: Path, seconds: float) -> str:
    """One bounded update; the line saying what it did."""
    from ccstate import config
    from ccstate.repo import status, update

    deadline = time.monotonic() + seconds
    cfg = config.env_overrides(config.load_for_hook(str(project), str(state)))
    if not cfg.get("find.enabled"):
        return "code index: disabled (find.enabled: false)"
    progress = update.refresh(
        project,
        state,
        max_bytes=int(cfg.get("find.max_mb")) << 20,
        deadline=deadline,
        jobs=update.cpus(),
        lock_timeout=0.0,
    )
    if not progress.error:
        status.after_update(project, state, cfg, deadline)
    return progress.line()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    project, state, seconds = Path(args[0]), Path(args[1]), float(args[2])
    try:
        run(project, state, seconds)  # what it did is in the index's meta (`doctor`)
    except Exception as exc:  # detached: nobody to tell but the log
        try:
            from ccstate import hooklog

            line = f"code index failed: {type(exc).__name__}: {exc}"
            hooklog.append_log(str(state), line, max_bytes=262_144, now=time.time())
        except Exception:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
