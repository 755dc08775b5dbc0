"""What ccstate adds to every request (#39, #43), measured on the real CLI's first request.

Each request re-sends the whole prompt, so whatever ccstate puts in front of the model (the
skill line, the capsule, a scaffolded CLAUDE.md) is paid on every turn. The figure is the
first agent-loop request's JSON with ccstate minus without it, in chars / 4 (as the issues
measure it), with the project path and Claude Code's git-status block (which lists the files
`ccstate init` creates until they are committed) taken out of both. `pytest -s` prints them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_api import system_texts, text, tool_use

from ccstate.scaffold import footprint

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "scaffold"
BUDGET = 150  # tokens ccstate may add to the first request of a fresh project (#39, #43)
_GIT_STATUS = re.compile(r"# gitStatus\n.*?</system-reminder>", re.S)
_CCSTATE = [sys.executable, "-m", "ccstate"]


def normalized(request: dict, project: Path) -> str:
    body = json.dumps(request)
    body = body.replace(json.dumps(str(project))[1:-1], "/p")
    body = _GIT_STATUS.sub("", json.loads(json.dumps(body)))  # the git-status text, escaped
    metadata = request.get("metadata", {}).get("user_id", "")
    return body.replace(json.dumps(metadata)[1:-1], "")


def added_tokens(with_: dict, without: dict, project: Path) -> int:
    return (len(normalized(with_, project)) - len(normalized(without, project))) // 4


def first_request(claude, fake_api, **kw) -> dict:
    fake_api.set_script([text("ok")])
    before = len(fake_api.agent_requests())
    _, result = claude("hello", **kw)
    assert result is not None and result["result"] == "ok"
    return fake_api.agent_requests()[before]


def ccstate(project: Path, *args: str) -> str:
    proc = subprocess.run([*_CCSTATE, *args], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def commit_all(project: Path) -> None:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin"}
    for args in (["add", "-A"], ["commit", "-q", "-m", "ccstate init"]):
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, env=env)


def as_python_project(project: Path) -> None:
    """psf/requests' own Makefile, pyproject.toml and README (tests/fixtures/scaffold)."""
    for name in ("Makefile", "pyproject.toml", "README.md"):
        shutil.copy(FIXTURES / "requests" / name, project / name)
    commit_all(project)


def test_plugin_on_a_fresh_project(claude, fake_api, project: Path) -> None:
    without = first_request(claude, fake_api)
    with_ = first_request(claude, fake_api, plugin_dir=REPO)
    added = added_tokens(with_, without, project)
    print(f"\nplugin, fresh project: +{added} tokens in the first request")
    assert "SessionStart hook additional context" not in json.dumps(with_)  # nothing to say
    assert "`ccstate recall KEYWORDS`" in json.dumps(with_)
    assert "`ccstate decide`" in json.dumps(with_)
    assert 0 < added <= BUDGET


def test_init_on_a_fresh_project(claude, fake_api, project: Path) -> None:
    without = first_request(claude, fake_api)
    ccstate(project, "init")
    commit_all(project)
    with_ = first_request(claude, fake_api)
    added = added_tokens(with_, without, project)
    print(f"\nccstate init, fresh project: +{added} tokens in the first request")
    assert "Used by the ccstate e2e tests." in json.dumps(with_)  # README's first paragraph
    assert "workflow.md" not in json.dumps(with_)  # nothing to point to
    assert added <= BUDGET


def test_init_on_a_python_project_names_its_test_command(claude, fake_api, project: Path) -> None:
    as_python_project(project)
    without = first_request(claude, fake_api)
    ccstate(project, "init")
    commit_all(project)
    with_ = first_request(claude, fake_api)
    added = added_tokens(with_, without, project)
    print(f"\nccstate init, requests' Makefile + pyproject: +{added} tokens in the first request")
    sent = json.dumps(with_)
    assert "Tests: `make test` (runs `python -m pytest tests`)" in sent
    estimate = sum(n for _rel, n in footprint.init_instruction_tokens(project, {}))
    assert abs(estimate - added) <= 10, (estimate, added)  # what `ccstate doctor` says
    index = (project / "CLAUDE.md").read_text()
    for pointer in re.findall(r"`([^`]+\.md)`", index):  # no pointer to an empty file
        assert "\n- `" in (project / pointer).read_text(), pointer
    assert added <= BUDGET


def test_a_green_pytest_is_named_by_the_next_capsule_and_workflow_md(
    claude, fake_api, project: Path
) -> None:
    """#39.2: the check a session ran green is kept; the next session's first request names it
    and `workflow.md`'s generated part lists it, hand edits outside the markers kept."""
    as_python_project(project)
    (project / "tests").mkdir()
    (project / "tests" / "test_ok.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    ccstate(project, "init")
    topic = project / "docs" / "claude" / "workflow.md"
    topic.write_text(topic.read_text() + "\nRun the slow tests on Fridays.\n")
    commit_all(project)
    command = "python3 -m pytest -q -p no:cacheprovider tests/test_ok.py"
    fake_api.set_script([tool_use("Bash", {"command": command}), text("green")])
    _, result = claude("run the tests")
    assert result is not None and result["result"] == "green"
    first = first_request(claude, fake_api)
    capsule = "\n".join(system_texts(first))
    assert f"- tests: `{command}` passed (session " in capsule
    written = topic.read_text()
    assert f"- `{command}` (test, passed)" in written.split("## Passed in recent sessions")[1]
    assert written.endswith("\nRun the slow tests on Fridays.\n")
