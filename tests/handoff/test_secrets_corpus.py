"""The secrets corpus through every writer and injector (issue #12, items 9 and 10).

Each planted secret (tests/secrets_corpus.py) is put where a session would leave it: the user's
prompt, a failing command and its output, a todo, a `handoff note`, and a hook payload that
crashes the hook. Then every place ccstate writes or injects text is searched for it: the
handoff (markdown and JSON), the progress log, the index, the notes, the SessionStart capsule,
`ccstate handoff show` (text and --json) and hooks.log. The look-alike of each kind must come
through `handoff note` / `show` unchanged.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate import config
from ccstate.cli import cli
from ccstate.handoff import index as handoff
from ccstate.handoff import store as handoff_store
from ccstate.hooks import __main__ as guard
from ccstate.secrets import detectors, redact
from secrets_corpus import KINDS, ORDINARY

SID = "5ec12e75-0000-4000-8000-000000000012"
NOW = 1_772_362_800.0


def _record(kind: str, uid: str, **fields: object) -> str:
    base = {"type": kind, "uuid": uid, "sessionId": SID, "cwd": "{cwd}", "gitBranch": "main"}
    base["timestamp"] = "2026-03-01T10:00:00.000Z"
    return json.dumps({**base, **fields})


def _transcript(project: Path, secret_text: str) -> Path:
    """A session whose prompt, failing command, its output and a todo hold the secret."""
    tool = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": secret_text}}
    todo = {"type": "tool_use", "id": "t1", "name": "TodoWrite"}
    todo["input"] = {"todos": [{"content": f"rotate {secret_text}", "status": "pending"}]}
    result = {"type": "tool_result", "tool_use_id": "b1", "is_error": True}
    result["content"] = f"Exit code 1\nerror: {secret_text} was refused"
    lines = [
        _record("user", "u1", message={"role": "user", "content": f"deploy with {secret_text}"}),
        _record("assistant", "a1", message={"role": "assistant", "content": [todo]}),
        _record("assistant", "a2", message={"role": "assistant", "content": [tool]}),
        _record("user", "u2", message={"role": "user", "content": [result]}),
    ]
    path = project.parent / "t.jsonl"
    path.write_text("\n".join(lines).replace("{cwd}", str(project)) + "\n")
    return path


def _everything_written(state: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(state.rglob("*")) if p.is_file())


@pytest.mark.parametrize(("kind", "text", "secret", "lookalike"), KINDS, ids=[k[0] for k in KINDS])
def test_no_planted_secret_reaches_any_writer_or_injector(
    git_project: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    text: str,
    secret: str,
    lookalike: str,
) -> None:
    state = git_project / ".ccstate"
    transcript = _transcript(git_project, text)
    result = handoff_store.write_handoff(
        git_project, state, config.Config(), transcript=transcript, event="SessionEnd", now=NOW
    )
    assert result.written
    capsule = "\n".join(
        handoff.capsule_section(git_project, state, config.Config(), "startup", now=NOW)
    )
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", SID)
    runner = CliRunner()
    for note in (text, lookalike):
        done = runner.invoke(cli, ["handoff", "note", "-C", str(git_project), "--", note])
        assert done.exit_code == 0, done.output
    shown = runner.invoke(cli, ["handoff", "show", "--session", SID, "-C", str(git_project)])
    shown_json = runner.invoke(
        cli, ["handoff", "show", "--session", SID, "--json", "-C", str(git_project)]
    )
    assert shown.exit_code == 0 and shown_json.exit_code == 0, shown.output
    payload = '{"session_id": "' + SID + '", "cwd": "' + str(git_project) + '", oops ' + text
    guard.run(
        "PostToolUse", io.StringIO(payload), io.StringIO(), {"CLAUDE_PROJECT_DIR": str(git_project)}
    )
    written = _everything_written(state)
    assert "failed: JSONDecodeError" in written or "PayloadError" in written  # hooks.log got it
    for where, out in (
        ("files under .ccstate", written),
        ("capsule", capsule),
        ("handoff show", shown.output),
        ("handoff show --json", shown_json.output),
    ):
        assert secret not in out, f"{kind}: planted secret leaked into {where}"
    assert handoff_store.read_notes(state, SID)[-1] == lookalike  # the look-alike stays


def test_ordinary_strings_are_not_mangled() -> None:
    """At most 2 % of ordinary strings changed (docs/RELIABILITY.md reports the figure)."""
    changed = [s for s in ORDINARY if redact.redact(s) != s]
    assert len(ORDINARY) >= 150
    assert len(changed) <= 0.02 * len(ORDINARY), changed


def test_look_alikes_pass_and_secrets_go_with_detect_secrets_absent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bare python3 (a plugin's first session, a broken venv) has no detect-secrets: ccstate's
    own rules must cover every kind by themselves."""
    monkeypatch.setattr(detectors, "maintained_rules", lambda: [])
    monkeypatch.setattr(redact, "_compiled", [])
    for kind, text, secret, lookalike in KINDS:
        assert secret not in redact.redact(text), kind
        assert redact.redact(lookalike) == lookalike, kind
    assert [s for s in ORDINARY if redact.redact(s) != s] == []


def test_the_maintained_rule_set_is_used_when_installed() -> None:
    pytest.importorskip("detect_secrets")
    assert redact.maintained_available()
    kinds = {kind for kind, _pattern in redact._patterns()}
    assert {"cloudant", "ibmcloudiam", "ibmcoshmac", "softlayer"} <= kinds
    assert {"aws-access-token", "stripe-access-token", "private-key"} <= kinds  # gitleaks
