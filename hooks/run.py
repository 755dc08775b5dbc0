#!/usr/bin/env python3
"""ccstate's plugin hook launcher (standard library only).

Claude Code installs no Python packages for a plugin, so this runs ccstate from
the plugin's own `src/`:
- PreToolUse / PostToolUse (every tool call), UserPromptSubmit (every prompt) and
  PreModelSwitch (every `/model`) run here, on the interpreter that started this
  script, with the standard library alone.
- Other events run with the private venv under ${CLAUDE_PLUGIN_DATA} when it is
  ready (SessionStart starts building it on first use), else here as well; their
  optional dependencies degrade gracefully until the venv exists. When the venv
  was built by an interpreter of this one's ABI (venv.ready.json says so), its
  site-packages go on this process's sys.path and the event runs here: one
  interpreter start instead of two (#14). Otherwise the venv's interpreter runs it.
- Before a cold event goes anywhere, the read ledger's epoch change (compaction,
  resume) is made here, in this process: it must not depend on a second
  interpreter (#12). If the venv's interpreter then fails (it does not start,
  exits non-zero), the event runs here instead; its output is used only when it
  succeeded.
- SessionEnd is handed to a detached copy of this script (its own session, stdin
  the payload, no stdout) and this one exits at once: Claude Code gives a plugin's
  SessionEnd hooks 1.5 s whatever hooks.json says and cancels them after, which cut
  handoffs and recall indexing short. The copy runs the event as above, bounded by
  DEFAULT_BUDGET_S, and exits; nothing stays behind (no daemon). If it cannot be
  started, the event runs here.
Bytecode goes to ${CLAUDE_PLUGIN_DATA}/pycache, never into the plugin root (for a
plugin installed from a local clone, that is the clone).
Whatever happens, this script exits 0 and prints nothing of its own.
"""

import os
import sys

HOT_EVENTS = {"PreToolUse", "PostToolUse", "UserPromptSubmit", "PreModelSwitch"}
DETACHED_EVENTS = {"SessionEnd"}
DETACHED = "--detached"  # argv[2] of the copy that does a detached event's work
# Seconds the venv's interpreter may take, inside Claude Code's hook timeouts (hooks.json).
VENV_BUDGET_S = {"SessionStart": 10.0}
DEFAULT_BUDGET_S = 20.0
VENV_START_S = 3.0  # of those, for the venv interpreter's start and exit


def _launch():
    root = os.environ.get("CLAUDE_PLUGIN_ROOT") or os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))
    )
    src = os.path.join(root, "src")
    event = sys.argv[1] if len(sys.argv) > 1 else ""
    data = os.environ.get("CLAUDE_PLUGIN_DATA")
    if data and sys.pycache_prefix is None and not sys.flags.dont_write_bytecode:
        # (with PYTHONDONTWRITEBYTECODE nothing would be written there, and a prefix would
        # hide the standard library's own bytecode: every module compiled on every run)
        sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(data, "pycache")
    sys.path.insert(0, src)
    if event in HOT_EVENTS or not data:
        from ccstate.hooks.__main__ import main

        main([event])
        return
    payload = sys.stdin.read()
    if event in DETACHED_EVENTS and sys.argv[2:3] != [DETACHED] and _detach(event, payload):
        return
    import io

    from ccstate.hooks import __main__ as guard

    guard.begin_epoch(event, payload, os.environ)  # first, in this process; never raises
    venv = _venv_here(root, data)
    if venv is not None:
        environ = {**os.environ, "CCSTATE_PLUGIN_VENV": venv}
        guard.run(event, io.StringIO(payload), sys.stdout, environ)
        return
    out = _in_venv(root, src, data, event, payload, guard)
    if out is None:
        guard.run(event, io.StringIO(payload), sys.stdout, os.environ)
    elif out:
        sys.stdout.write(out)
        sys.stdout.flush()


def _venv_here(root, data):
    """Put the ready venv's site-packages on sys.path (after src/, before this interpreter's
    own) and return the venv's folder, when venv.ready.json says it was built for this
    plugin's pyproject.toml by an interpreter of this one's ABI; else None, changing nothing.
    """
    from ccstate import fastjson

    try:
        with open(os.path.join(data, "venv.ready.json"), encoding="utf-8") as fh:
            marker = fastjson.loads(fh.read())
        with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
            pyproject = fh.read()
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or marker.get("abi") != _ABI:
        return None
    import zlib

    site_dirs = marker.get("site")
    if marker.get("pyproject_crc") != zlib.crc32(pyproject) or not isinstance(site_dirs, list):
        return None
    if not site_dirs or not all(isinstance(d, str) and os.path.isdir(d) for d in site_dirs):
        return None
    import site

    before = list(sys.path)
    for folder in site_dirs:
        site.addsitedir(folder)  # with its .pth files, as the venv's interpreter would
    added = [entry for entry in sys.path if entry not in before]
    sys.path[:] = before[:1] + added + before[1:]
    return os.path.dirname(os.path.dirname(str(marker.get("python", ""))))


# bootstrap.ABI_EXPR, evaluated here (the launcher imports no more of ccstate than it must)
_ABI = sys.implementation.cache_tag + "-" + getattr(sys, "abiflags", "")


def _detach(event, payload):
    """Start a detached copy of this script for `event`, `payload` on its stdin. False when
    it could not be started (the caller runs the event itself)."""
    import subprocess

    try:
        proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), event, DETACHED],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # out of the process group Claude Code cancels
            close_fds=True,
        )
    except OSError:
        return False
    try:
        proc.stdin.write(payload.encode("utf-8", "surrogateescape"))
        proc.stdin.close()
    except OSError:
        pass  # it reads what arrived; a payload it cannot parse is logged by the guard
    return True


def _in_venv(root, src, data, event, payload, guard):
    """The event's stdout from the venv's interpreter; None when there is no ready venv or
    its interpreter failed (then the event runs here)."""
    from pathlib import Path

    from ccstate.install import bootstrap

    state = bootstrap.check(Path(root), Path(data))
    if state.status != "ready" or state.python is None:
        return None
    import subprocess

    env = dict(os.environ)
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    timeout = VENV_BUDGET_S.get(event, DEFAULT_BUDGET_S)
    # the hook's own budget (ccstate/hooks/budget.py) ends before this kills it (#37)
    env["CCSTATE_HOOK_BUDGET_S"] = str(timeout - VENV_START_S)
    python = str(state.python)
    try:
        proc = subprocess.run(
            [python, "-m", "ccstate.hooks", event],
            input=payload,
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        guard.note(event, payload, os.environ, f"plugin venv interpreter {python} timed out")
        return ""  # the epoch is done; no time left to run the event again
    except OSError as exc:
        why = f"could not start ({exc.strerror or exc})"
    else:
        if proc.returncode == 0:
            return proc.stdout
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        why = f"exited {proc.returncode}: {tail[0][:200]}"
    guard.note(event, payload, os.environ, f"plugin venv interpreter {python} failed ({why})")
    return None


def main():
    try:
        _launch()
    except BaseException:  # never break a session, whatever went wrong
        return


if __name__ == "__main__":
    main()
    sys.exit(0)
