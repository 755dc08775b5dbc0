"""A team on one clone: two users (two HOMEs, two installs), committed wiring, the way back.

The installs are real (install.sh, as README's first command runs it) and shared by every
Claude Code version the suite runs on; each test then drives the real CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from claude_runner import read_transcript, transcript_path
from fake_api import system_texts, text, tool_use

from ccstate.install import wiring
from helpers import isolated_env, run_install, venv_unavailable

pytestmark = pytest.mark.e2e

CAPSULE_HEAD = "[ccstate] project state for"
GIT = ["git", "-c", "user.name=Team", "-c", "user.email=team@example.org"]


def clean_path() -> str:
    """PATH without any ccstate: the test venv's bin dir holds ccstate-hook too."""
    dirs = os.environ["PATH"].split(os.pathsep)
    return os.pathsep.join(d for d in dirs if not (Path(d) / wiring.HOOK_SCRIPT).exists())


def git(project: Path, *args: str) -> str:
    done = subprocess.run(
        [*GIT, "-C", str(project), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def status(project: Path) -> str:
    return git(project, "status", "--porcelain", "--untracked-files=all")


@dataclass(frozen=True)
class User:
    name: str
    root: Path
    install: subprocess.CompletedProcess[str]

    @property
    def venv(self) -> Path:
        return self.root / "data" / "ccstate" / "venv"

    @property
    def path(self) -> str:
        """PATH as this user's shell has it once install.sh's bin dir is on it."""
        return f"{self.root / 'bin'}{os.pathsep}{clean_path()}"


@dataclass(frozen=True)
class Team:
    clone: Path
    ann: User
    bob: User
    settings_after_ann: bytes


def install_for(name: str, root: Path, project: Path) -> User:
    home = root / name
    done = run_install(env=isolated_env(home), cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    return User(name, home, done)


@pytest.fixture(scope="session")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    """Ann installs ccstate in the clone and commits the wiring; Bob installs it later."""
    reason = venv_unavailable()
    if reason:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("team").resolve()
    clone = root / "clone"
    clone.mkdir()
    (clone / "app.py").write_text('def greet(name):\n    return f"hello {name}"\n')
    git(clone, "init", "-q", "-b", "main")
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "initial")
    ann = install_for("ann", root, clone)
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "Wire ccstate")
    settings = (clone / ".claude" / "settings.json").read_bytes()
    bob = install_for("bob", root, clone)
    yield Team(clone, ann, bob, settings)


def attachments(home: Path, cwd: Path, result: dict[str, Any]) -> list[dict[str, Any]]:
    records = read_transcript(transcript_path(home, cwd, result["session_id"]))
    return [r["attachment"] for r in records if r.get("type") == "attachment"]


def heartbeat(project: Path, event: str) -> dict[str, Any]:
    return json.loads((project / ".ccstate" / "heartbeat" / f"{event}.json").read_text())


def test_the_committed_wiring_holds_no_machine_path(team: Team) -> None:
    text = team.settings_after_ann.decode()
    for user in (team.ann, team.bob):
        assert str(user.root) not in text
    assert str(team.clone) not in text
    # Bob's install ran `ccstate init` in the same clone: nothing to edit, nothing to commit.
    assert "        skip  .claude/settings.json  (up to date (" in team.bob.install.stdout
    assert status(team.clone) == ""
    assert (team.clone / ".claude" / "settings.json").read_bytes() == team.settings_after_ann


def test_two_users_share_one_clone(
    team: Team, claude, fake_api, claude_home: Path, tmp_path: Path
) -> None:
    """Without ccstate: one message for the user, no failing hook, nothing for the model.
    With it, each user's hooks run from their own install, with no edit to the clone."""
    target = team.clone / "app.py"
    script = [tool_use("Read", {"file_path": str(target)}), text("done")]

    fake_api.set_script(script)
    _, result = claude("read app.py", cwd=team.clone, env_extra={"PATH": clean_path()})
    assert result is not None and result["result"] == "done"
    seen = attachments(claude_home, team.clone, result)
    messages = [a["content"] for a in seen if a.get("type") == "hook_system_message"]
    assert messages == [wiring.NOT_INSTALLED]
    assert [a for a in seen if a.get("type") == "hook_non_blocking_error"] == []
    for request in fake_api.agent_requests():
        assert CAPSULE_HEAD not in "\n".join(system_texts(request))
        sent = json.dumps(request)
        assert "ccstate-hook" not in sent and "not found" not in sent  # the model sees nothing

    for user, home in ((team.bob, claude_home), (team.ann, tmp_path / "ann-claude-home")):
        home.mkdir(exist_ok=True)
        fake_api.set_script(script)
        start = len(fake_api.agent_requests())
        _, result = claude("read app.py", cwd=team.clone, home=home, env_extra={"PATH": user.path})
        assert result is not None and result["result"] == "done"
        first = fake_api.agent_requests()[start]
        # a fresh clone: the capsule has nothing to say yet (#43); the heartbeats show the hooks
        assert CAPSULE_HEAD not in "\n".join(system_texts(first)), user.name
        for event in ("SessionStart", "PostToolUse", "SessionEnd"):
            assert heartbeat(team.clone, event)["detail"]["python"].startswith(str(user.venv))
    assert status(team.clone) == ""


def test_install_then_init_remove_leaves_a_clean_tree(
    team: Team, claude, fake_api, project: Path
) -> None:
    """`ccstate init` (what install.sh runs), a session, then `ccstate init --remove`."""
    env = {**os.environ, "PATH": team.ann.path}
    ccstate = str(team.ann.root / "bin" / "ccstate")
    subprocess.run([ccstate, "init", "-C", str(project)], env=env, check=True, capture_output=True)
    assert status(project) != ""
    fake_api.set_script([text("ok")])
    claude("hello", env_extra={"PATH": team.ann.path})
    beat = project / ".ccstate" / "heartbeat" / "SessionStart.json"
    assert heartbeat(project, "SessionStart")["detail"]["python"].startswith(str(team.ann.venv))
    ran_at = beat.stat().st_mtime_ns
    done = subprocess.run(
        [ccstate, "init", "--remove", "-C", str(project)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert status(project) == ""
    fake_api.set_script([text("ok")])
    _, result = claude("hello", env_extra={"PATH": team.ann.path})
    assert result is not None and result["result"] == "ok"
    assert CAPSULE_HEAD not in "\n".join(system_texts(fake_api.agent_requests()[1]))
    assert beat.stat().st_mtime_ns == ran_at  # unwired: SessionStart no longer runs
