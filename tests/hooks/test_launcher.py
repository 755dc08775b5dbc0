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

from ccstate.install import bootstrap
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


def test_a_venv_of_this_abi_runs_cold_events_in_the_launchers_process(
    tmp_path: Path, git_project: Path
) -> None:
    """With `abi`, `site` and `pyproject_crc` in venv.ready.json (as `bootstrap` writes them)
    the launcher puts the venv's site-packages on its own sys.path and runs the event there:
    the venv's interpreter (here one that would fail loudly) is never started. The output is
    what the project hook prints for the same state. A marker from another ABI, or for another
    pyproject.toml, falls back to the venv's interpreter."""
    root, env = _plugin(tmp_path, BROKEN["exits 1"])
    data = Path(env["CLAUDE_PLUGIN_DATA"])
    site = tmp_path / "site-packages"
    (site / "marker_pkg").mkdir(parents=True)
    (site / "marker_pkg" / "__init__.py").write_text("")
    ready = data / "venv.ready.json"
    marker = bootstrap.ready_marker(root, Path(sys.executable))
    assert marker["abi"] and marker["site"] and isinstance(marker["pyproject_crc"], int)
    marker |= {"python": str(data / "venv" / "bin" / "python"), "site": [str(site)]}
    ready.write_text(json.dumps(marker))
    argv = [sys.executable, str(root / "hooks" / "run.py"), "SessionStart"]
    payload = make_payload("SessionStart", git_project, source="startup")
    beat = git_project / ".ccstate" / "heartbeat" / "SessionStart.json"

    code, _, out, err = run_hook("SessionStart", payload, cwd=git_project, env=env, argv=argv)
    assert (code, err) == (0, "")
    detail = json.loads(beat.read_text())["detail"]
    assert detail["venv"] == str(data / "venv") and detail["python"] == sys.executable
    project_hook = run_hook("SessionStart", payload, cwd=git_project)
    assert out == project_hook[2]  # the same capsule, byte for byte
    assert not (git_project / ".ccstate" / "logs" / "hooks.log").exists()

    for changed in ({"abi": "cpython-27-"}, {"pyproject_crc": marker["pyproject_crc"] + 1}):
        ready.write_text(json.dumps({**marker, **changed}))
        code, _, out, err = run_hook("SessionStart", payload, cwd=git_project, env=env, argv=argv)
        assert (code, err) == (0, "") and out == project_hook[2]
        assert "venv" not in json.loads(beat.read_text())["detail"]
        log = (git_project / ".ccstate" / "logs" / "hooks.log").read_text()
        assert "plugin venv interpreter " in log  # it tried the venv's interpreter: broken
        (git_project / ".ccstate" / "logs" / "hooks.log").unlink()


@pytest.mark.parametrize(("event", "budget"), [("PreCompact", "17.0"), ("SessionStart", "7.0")])
def test_the_venvs_interpreter_is_told_the_budget_it_is_killed_after(
    tmp_path: Path, git_project: Path, event: str, budget: str
) -> None:
    """#37: the launcher kills its venv's interpreter after 20 s (SessionStart: 10 s), before
    Claude Code's 30 s: the hook's own budget (hooks/budget.py) must end before that."""
    seen = tmp_path / "budget.txt"
    root, env = _plugin(tmp_path, f'#!/bin/sh\necho "$CCSTATE_HOOK_BUDGET_S" > {seen}\nexit 1\n')
    fields = {"trigger": "auto"} if event == "PreCompact" else {"source": "compact"}
    argv = [sys.executable, str(root / "hooks" / "run.py"), event]
    payload = make_payload(event, git_project, **fields)
    assert run_hook(event, payload, cwd=git_project, env=env, argv=argv)[0] == 0
    assert seen.read_text().strip() == budget
