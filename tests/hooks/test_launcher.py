"""hooks/run.py, the plugin launcher, when the plugin's venv is broken (issue #12, item 1).

The venv is marked ready, but its interpreter fails to start. Cold events must still end the
read ledger's epoch (in the launcher's own process, before the venv is tried), fall back to
running in-process, exit 0 and print nothing of their own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ccstate import bootstrap
from helpers import make_payload, plugin_with_venv_python, read_payload, run_hook

BODY = "".join(
    f"def handler_{i}(request):  # enough text to be worth a notice\n" for i in range(30)
)
BROKEN = {
    "exits 1": "#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n",
    "prints junk": "#!/bin/sh\necho 'half a line of output'\nexit 1\n",
    "cannot exec": "not a script at all\n",
}


def _plugin(tmp_path: Path, python_text: str) -> tuple[Path, dict[str, str]]:
    root, env = plugin_with_venv_python(tmp_path, python_text)
    data = Path(env["CLAUDE_PLUGIN_DATA"])
    assert bootstrap.check(root, data).status == "ready"
    return root, env


@pytest.mark.parametrize("broken", sorted(BROKEN))
@pytest.mark.parametrize("event", ["PreCompact", "SessionStart"])
def test_a_broken_venv_still_ends_the_epoch_silently(
    tmp_path: Path, git_project: Path, broken: str, event: str
) -> None:
    root, env = _plugin(tmp_path, BROKEN[broken])

    def launch(name: str, payload: dict) -> tuple:
        argv = [sys.executable, str(root / "hooks" / "run.py"), name]
        return run_hook(name, payload, cwd=git_project, env=env, argv=argv)

    target = git_project / "big.py"
    target.write_text(BODY)
    read = read_payload(git_project, target, BODY)
    other = read_payload(git_project, git_project / "app.py", "print('hello')\n")
    assert launch("PostToolUse", read)[1] is None
    assert launch("PostToolUse", read)[1] is not None  # a notice citing Read #1
    assert launch("PostToolUse", other)[1] is None  # no escape hatch for the next one
    fields = {"trigger": "auto"} if event == "PreCompact" else {"source": "compact"}
    code, parsed, out, err = launch(event, make_payload(event, git_project, **fields))
    assert (code, err) == (0, "")
    if event == "PreCompact":
        assert out == ""
    else:  # the in-process fallback still injects the capsule, as one JSON object
        assert parsed["hookSpecificOutput"]["additionalContext"].startswith("[ccstate]")
    assert launch("PostToolUse", read)[:3] == (0, None, "")  # full: the epoch ended
    log = (git_project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert "plugin venv interpreter " in log and "failed (" in log and "ran in-process" in log


def test_session_end_is_handed_to_a_detached_copy(tmp_path: Path, git_project: Path) -> None:
    """Claude Code cancels a plugin's SessionEnd hook after 1.5 s: the launcher starts a
    detached copy of itself for the work and exits 0 at once, printing nothing. The venv's
    interpreter here waits 5 s before it runs the event, so the heartbeat cannot exist
    when the launcher is back, and must appear later."""
    import time

    root, env = _plugin(tmp_path, f'#!/bin/sh\nsleep 5\nexec "{sys.executable}" "$@"\n')
    argv = [sys.executable, str(root / "hooks" / "run.py"), "SessionEnd"]
    payload = make_payload("SessionEnd", git_project, reason="other")
    beat = git_project / ".ccstate" / "heartbeat" / "SessionEnd.json"
    assert run_hook("SessionEnd", payload, cwd=git_project, env=env, argv=argv) == (
        0,
        None,
        "",
        "",
    )
    assert not beat.exists()
    deadline = time.monotonic() + 60
    while not beat.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert json.loads(beat.read_text())["outcome"] == "ok"
    assert not (git_project / ".ccstate" / "logs" / "hooks.log").exists()  # nothing failed
