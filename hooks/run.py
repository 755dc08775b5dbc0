#!/usr/bin/env python3
"""ccstate's plugin hook launcher (standard library only).

Claude Code installs no Python packages for a plugin, so this runs ccstate from
the plugin's own `src/`:
- PreToolUse / PostToolUse (every tool call) run here, on the interpreter that
  started this script, with the standard library alone.
- Other events run in the private venv under ${CLAUDE_PLUGIN_DATA} when it is
  ready (SessionStart starts building it on first use), else here as well; their
  optional dependencies degrade gracefully until the venv exists.
Bytecode goes to ${CLAUDE_PLUGIN_DATA}/pycache, never into the plugin root (for a
plugin installed from a local clone, that is the clone).
Whatever happens, this script exits 0 and prints nothing of its own.
"""

import os
import sys

HOT_EVENTS = {"PreToolUse", "PostToolUse"}


def _launch():
    root = os.environ.get("CLAUDE_PLUGIN_ROOT") or os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))
    )
    src = os.path.join(root, "src")
    event = sys.argv[1] if len(sys.argv) > 1 else ""
    data = os.environ.get("CLAUDE_PLUGIN_DATA")
    if data and sys.pycache_prefix is None:
        sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(data, "pycache")
    sys.path.insert(0, src)
    if event not in HOT_EVENTS and data:
        from pathlib import Path

        from ccstate import bootstrap

        state = bootstrap.check(Path(root), Path(data))
        if state.status == "ready" and state.python is not None:
            env = dict(os.environ)
            env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
            python = str(state.python)
            os.execve(python, [python, "-m", "ccstate.hooks", event], env)
    from ccstate.hooks.__main__ import main

    main([event])


def main():
    try:
        _launch()
    except BaseException:  # never break a session, whatever went wrong
        return


if __name__ == "__main__":
    main()
    sys.exit(0)
