"""ccstate as a plugin inside the real Claude Code CLI: what the model actually receives."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from claude_runner import claude_env
from fake_api import system_texts, text, tool_results, tool_use

from helpers import plugin_copy_leftovers

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
CAPSULE_HEAD = "[ccstate] project state for project"


def heartbeat(project: Path, event: str) -> dict:
    return json.loads((project / ".ccstate" / "heartbeat" / f"{event}.json").read_text())


def all_system_text(request: dict) -> str:
    return "\n".join(system_texts(request))


@pytest.mark.parametrize("args", [[], ["--profile", "directory"], ["--strict"]])
def test_plugin_validates(claude_bin: Path, claude_home: Path, args: list[str]) -> None:
    import subprocess

    proc = subprocess.run(
        [str(claude_bin), "plugin", "validate", *args, str(REPO)],
        capture_output=True,
        text=True,
        env=claude_env(claude_home, "http://127.0.0.1:9"),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Validation passed" in proc.stdout


def test_session_start_capsule_reaches_the_model(claude, fake_api, project: Path) -> None:
    (project / "DECISIONS.md").write_text("# Decisions\n\n## D1: Use spaces\n\n- Status: active\n")
    fake_api.set_script([text("ok")])
    _, result = claude("hello", plugin_dir=REPO)
    assert result is not None and result["result"] == "ok"
    first = fake_api.agent_requests()[0]
    assert "SessionStart hook additional context: " + CAPSULE_HEAD in all_system_text(first)
    beat = heartbeat(project, "SessionStart")
    assert beat["outcome"] == "output" and beat["detail"]["source"] == "startup"


def test_post_tool_use_fires_on_read_with_the_shape_handlers_parse(
    claude, fake_api, project: Path
) -> None:
    target = project / "app.py"
    content = target.read_text()
    fake_api.set_script([tool_use("Read", {"file_path": str(target)}), text("read it")])
    _, result = claude("read app.py", plugin_dir=REPO)
    assert result is not None and result["result"] == "read it"
    detail = heartbeat(project, "PostToolUse")["detail"]
    tool_use_id = detail.pop("tool_use_id")
    assert tool_use_id.startswith("toolu_e2e_")
    assert detail.pop("python")
    assert detail == {
        "tool_name": "Read",
        "file_path": str(target),
        "response_type": "text",
        "start_line": 1,
        "num_lines": content.count("\n") + 1,
        "total_lines": content.count("\n") + 1,
        "content_chars": len(content),
        "ledger": "full",  # the read ledger (#3): a first Read is never replaced
        "ledger_reason": "first read of this path in this epoch",
    }
    assert not (project / ".ccstate" / "heartbeat" / "PreToolUse.json").exists()  # #14
    # A first Read is never altered: the model gets the file in full.
    delivered = tool_results(fake_api.agent_requests()[1])[tool_use_id]
    assert delivered.startswith("1\tdef greet(name):\n2\t    return")


def test_session_end_hook_runs(claude, fake_api, project: Path) -> None:
    fake_api.set_script([text("bye")])
    claude("hello", plugin_dir=REPO)
    assert heartbeat(project, "SessionEnd")["outcome"] == "ok"


def test_broken_state_dir_never_breaks_the_session(claude, fake_api, project: Path) -> None:
    (project / ".ccstate").write_text("a file where ccstate expects its state directory")
    target = project / "app.py"
    fake_api.set_script([tool_use("Read", {"file_path": str(target)}), text("still fine")])
    proc, result = claude("read app.py", plugin_dir=REPO)
    assert proc.returncode == 0 and result is not None
    assert result["result"] == "still fine"
    requests = fake_api.agent_requests()
    assert CAPSULE_HEAD not in all_system_text(requests[0])
    assert "1\tdef greet(name):" in "".join(tool_results(requests[1]).values())


def test_a_handler_that_raises_is_logged_and_the_session_goes_on(
    claude, fake_api, project: Path
) -> None:
    # Project hooks whose SessionStart handler raises (a stand-in for any bug in a handler).
    boom = (
        f"import sys; sys.path.insert(0, {str(REPO / 'src')!r}); "
        "import ccstate.hooks.session_start as h; "
        "h.handle = lambda inp, env: 1 / 0; "
        "from ccstate.hooks.__main__ import main; main(['SessionStart'])"
    )
    settings = {
        "hooks": {
            "SessionStart": [
                {
                    "hooks": [
                        {"type": "command", "command": f"{sys.executable} -c {json.dumps(boom)}"}
                    ]
                }
            ]
        }
    }
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    fake_api.set_script([text("survived")])
    proc, result = claude("hello")
    assert proc.returncode == 0 and result is not None and result["result"] == "survived"
    log = (project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert "SessionStart failed: ZeroDivisionError: division by zero" in log
    assert heartbeat(project, "SessionStart")["outcome"] == "error: ZeroDivisionError"
    assert "SessionStart hook" not in all_system_text(fake_api.agent_requests()[0])


def test_project_hooks_from_ccstate_init_work_in_the_cli(claude, fake_api, project: Path) -> None:
    import subprocess

    init = subprocess.run(
        [sys.executable, "-m", "ccstate", "init"], cwd=project, capture_output=True, text=True
    )
    assert init.returncode == 0, init.stderr
    fake_api.set_script([text("ok")])
    claude("hello")
    assert heartbeat(project, "SessionStart")["outcome"] in ("ok", "output")
    ran_on = Path(heartbeat(project, "SessionEnd")["detail"]["python"])
    assert ran_on.resolve() == Path(sys.executable).resolve()


SKILL_LINE = "- ccstate:ccstate: `ccstate recall KEYWORDS` searches past sessions"
# The user's slash commands, and a phrase of what each expands to (commands/*.md).
COMMANDS = {
    "recall": ("webhook retry", "Search this project's past sessions for: webhook retry"),
    "decide": ("Use SQLite", "Record this decision in the project's DECISIONS.md: Use SQLite"),
    "handoff": ("the parser", "Hand this session's work over to the next session"),
    "doctor": ("", "Run `ccstate doctor` in the project directory"),
    "find": ("webhook retry", "Find the code in this project for: webhook retry"),
}


def test_the_model_is_listed_one_ccstate_skill_and_no_command(
    claude, fake_api, project: Path
) -> None:
    """#43: the listing costs one line; the commands are the user's (disable-model-invocation)."""
    fake_api.set_script([text("ok")])
    claude("hello", plugin_dir=REPO)
    first = fake_api.agent_requests()[0]
    listed = [ln for s in _strings(first) for ln in s.splitlines() if ln.startswith("- ccstate:")]
    assert len(listed) == 1 and listed[0].startswith(SKILL_LINE), listed
    assert "`ccstate decide`" in listed[0] and len(listed[0]) <= 200


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    values = node.values() if isinstance(node, dict) else node if isinstance(node, list) else []
    return [s for v in values for s in _strings(v)]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_users_slash_commands_still_work(claude, fake_api, project: Path, name: str) -> None:
    args, expanded = COMMANDS[name]
    fake_api.set_script([text("done")])
    _, result = claude(f"/ccstate:{name} {args}".strip(), plugin_dir=REPO)
    assert result is not None and result["result"] == "done"
    assert expanded in json.dumps(fake_api.agent_requests()[0]["messages"])


def install_plugin(claude_bin: Path, home: Path, cwd: Path) -> dict:
    """`claude plugin marketplace add REPO` + `plugin install`; the `plugin list` entry."""
    import subprocess

    env = claude_env(home, "http://127.0.0.1:9")
    for args in (
        ["plugin", "marketplace", "add", str(REPO)],
        ["plugin", "install", "ccstate@ccstate-marketplace"],
        ["plugin", "list", "--json"],
    ):
        proc = subprocess.run(
            [str(claude_bin), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    (entry,) = (p for p in json.loads(proc.stdout) if p["id"] == "ccstate@ccstate-marketplace")
    return entry


def ignored_files(root: Path) -> set[str]:
    """Files git ignores under `root` (build and test artefacts), relative to it."""
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "--others", "--ignored", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.splitlines())


def tracked_bytes(root: Path) -> int:
    """The size of the files git tracks in `root` (those present)."""
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, text=True, check=True
    ).stdout
    return sum(
        p.stat().st_size for name in out.split("\0") if name and (p := root / name).is_file()
    )


def test_the_installed_plugin_is_the_source_and_nothing_else(
    claude_bin: Path, claude_home: Path, project: Path
) -> None:
    """Claude Code copies the whole working tree (but .git) into its plugin cache; the
    suite builds outside it (scripts/test.sh), so the copy holds no venv, cache or build."""
    entry = install_plugin(claude_bin, claude_home, project)
    cache = Path(entry["installPath"])
    copied = {str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file()}
    size = sum((cache / name).stat().st_size for name in copied)
    print(f"\ninstalled plugin: {len(copied)} files, {size:,} bytes in {cache}")
    artefacts = {".venv", "build", "dist", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
    assert not {name.split("/")[0] for name in copied} & artefacts
    assert not [name for name in copied if ".egg-info" in name]
    # Ignored files that may remain: bytecode a developer's own python run left (test.sh and
    # the plugin's launcher keep theirs outside the tree), `.ccstate/`, the state of ccstate
    # used on this very repository, and the wiring `bash install.sh` writes into the clone
    # (README, #23). Nothing the suite builds.
    assert plugin_copy_leftovers(copied & ignored_files(REPO), REPO) == set()
    # the tracked tree (4.0 MB on 2026-12-03) and a little the run left (bytecode, state);
    # a venv (100+ MB) or the caches would be far over
    assert size < tracked_bytes(REPO) + 1_000_000
    # For a directory marketplace the hooks run from the folder itself, not from the copy.
    assert Path(entry["readFromFolder"]).resolve() == REPO


def test_marketplace_install_and_first_run_venv(
    claude, claude_bin: Path, fake_api, project: Path, claude_home: Path, bare_python: Path
) -> None:
    """`plugin marketplace add` + `plugin install`, then a session: SessionStart runs, and the
    first SessionStart builds the private venv that the cold hooks run in from then on, without
    writing a file into the plugin root (here: this checkout).

    The hooks' `python3` is a bare interpreter (standard library only), as on a machine where
    ccstate was never pip-installed: that is the case the private venv exists for."""
    import os

    path = {"PATH": f"{bare_python.parent}{os.pathsep}{os.environ['PATH']}"}
    before = ignored_files(REPO)
    install_plugin(claude_bin, claude_home, project)
    fake_api.set_script([text("ok")])
    claude("hello", env_extra=path)
    beat = heartbeat(project, "SessionStart")  # a fresh project: no capsule to send (#43)
    assert beat["outcome"] in ("ok", "output") and beat["detail"]["source"] == "startup"
    data = claude_home / ".claude" / "plugins" / "data" / "ccstate-ccstate-marketplace"
    ready, failed = data / "venv.ready.json", data / "venv.failed.json"
    deadline = time.monotonic() + 420
    while not ready.exists() and not failed.exists() and time.monotonic() < deadline:
        time.sleep(2)
    log = data / "venv.build.log"
    assert ready.exists(), log.read_text(errors="replace") if log.exists() else "no build log"
    marker = json.loads(ready.read_text())
    venv = str(Path(marker["python"]).parent.parent)
    assert marker["site"] and all(Path(d).is_dir() for d in marker["site"])
    fake_api.set_script([text("ok again")])
    claude("hello again", env_extra=path)
    # One interpreter (#14): the launcher's, with the venv's packages on its sys.path.
    for event in ("SessionStart", "SessionEnd"):
        detail = heartbeat(project, event)["detail"]
        assert (Path(detail["python"]).parent, detail["venv"]) == (bare_python.parent, venv)
    assert ignored_files(REPO) - before == set()  # no build/, *.egg-info, __pycache__


def test_first_session_handoff_has_git_details_while_the_venv_builds(
    claude, fake_api, project: Path, claude_home: Path, bare_python: Path
) -> None:
    """Before the private venv exists the cold hooks run on the bare python3: the handoff
    still gets commits, diffstat and dirty files (git is run directly, no GitPython)."""
    import os

    from ccstate import store

    data = claude_home / ".claude" / "plugins" / "data" / "ccstate-inline"
    data.mkdir(parents=True)
    target = project / "app.py"
    edit = {"file_path": str(target), "old_string": "hello", "new_string": "hi"}
    fake_api.set_script([tool_use("Edit", edit), text("edited")])
    env = {
        "PATH": f"{bare_python.parent}{os.pathsep}{os.environ['PATH']}",
    }
    with store.file_lock(data / "venv.build", timeout=1):  # a build is under way
        _, result = claude("change the greeting", plugin_dir=REPO, env_extra=env)
    assert result is not None and result["result"] == "edited"
    assert Path(heartbeat(project, "SessionEnd")["detail"]["python"]).parent == bare_python.parent
    (handoff,) = (project / ".ccstate" / "handoff" / "branches" / "main").glob("*.md")
    text_ = handoff.read_text()
    assert "uncommitted: 1 (M app.py)" in text_
    assert "diffstat since session start" in text_ and "app.py +1/-1" in text_
    assert "omitted" not in text_


def test_a_reads_only_session_and_the_next_capsule_agree(claude, fake_api, project: Path) -> None:
    """SessionEnd writes no handoff for a session that only read; the next capsule has no
    handoff line (#42), and `handoff show --list` says when one is written."""
    import subprocess
    import sys

    from ccstate.handoff import index

    fake_api.set_script([tool_use("Read", {"file_path": str(project / "app.py")}), text("read")])
    claude("read app.py", plugin_dir=REPO)
    assert heartbeat(project, "SessionEnd")["detail"]["handoff"] == (
        "skipped: the session only read and talked (nothing to hand off)"
    )
    fake_api.set_script([text("ok")])
    claude("hello", plugin_dir=REPO)
    capsule = all_system_text(fake_api.agent_requests()[-1])
    assert "- handoff" not in capsule  # no handoff, no line (#42)
    listed = subprocess.run(
        [sys.executable, "-m", "ccstate", "handoff", "show", "--list"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert index.WRITTEN_WHEN in listed.stdout


def test_claude_code_gives_plugin_session_end_hooks_one_and_a_half_seconds(
    claude, fake_api, project: Path, tmp_path: Path
) -> None:
    """Claude Code's behaviour, pinned so a version that changes it is noticed: a plugin's
    SessionEnd `timeout` is ignored (1.5 s), a settings hook's is honoured (docs/ARCHITECTURE.md
    "Plugin runtime")."""
    from claude_runner import command_hook, write_plugin

    plugin_done, project_done = tmp_path / "plugin-done", tmp_path / "project-done"
    plugin = write_plugin(
        tmp_path / "slow",
        "slow",
        {"SessionEnd": [command_hook(f"sleep 3; touch {plugin_done}", timeout=30)]},
    )
    fake_api.set_script([text("ok")])
    claude("hello", plugin_dir=plugin)
    time.sleep(3.5)
    assert not plugin_done.exists()
    (project / ".claude").mkdir()
    settings = {
        "hooks": {"SessionEnd": [command_hook(f"sleep 3; touch {project_done}", timeout=30)]}
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    fake_api.set_script([text("ok")])
    claude("hello")
    assert project_done.exists()


def test_plugin_session_end_outlives_claude_codes_budget(
    claude, fake_api, project: Path, tmp_path: Path
) -> None:
    """The launcher hands SessionEnd to a detached copy of itself and exits at once, so a
    handoff that takes longer than the plugin budget (1.5 s, above) is still written, and
    Claude Code reports no cancelled hook. The copy is made slow here by a sitecustomize
    that sleeps 3 s in it alone."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sys, time\nif sys.argv[1:3] == ['SessionEnd', '--detached']: time.sleep(3)\n"
    )
    target = project / "app.py"
    edit = {"file_path": str(target), "old_string": "hello", "new_string": "hi"}
    fake_api.set_script([tool_use("Edit", edit), text("edited")])
    started = time.monotonic()
    proc, result = claude("change it", plugin_dir=REPO, env_extra={"PYTHONPATH": str(site)})
    assert result is not None and result["result"] == "edited"
    assert time.monotonic() - started > 3  # the runner waited for the detached copy
    assert "SessionEnd hook" not in proc.stderr  # neither failed nor cancelled
    (handoff,) = (project / ".ccstate" / "handoff" / "branches" / "main").glob("*.md")
    assert handoff.name == f"{result['session_id']}.md" and "edited `app.py`" in handoff.read_text()
    assert heartbeat(project, "SessionEnd")["outcome"] == "ok"
