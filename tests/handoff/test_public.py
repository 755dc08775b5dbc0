"""`ccstate handoff write --transcript F` on the 33 public transcripts in ../shared.

Each one is copied to a temp dir with secrets planted in a prompt, a tool output and a
commit message (the originals hold none); the handoff must fit its token budget, the
capsule must fit its budget, and no planted secret may reach any file ccstate writes.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate import capsule, config, tokens
from ccstate.cli import cli
from ccstate.handoff import index as handoff
from helpers import PUBLIC

FILES = sorted(PUBLIC.glob("*.jsonl")) if PUBLIC.is_dir() else []
pytestmark = pytest.mark.skipif(
    not FILES, reason=f"public transcripts not available at {PUBLIC} (../shared is absent)"
)
SECRETS = {
    "anthropic": "sk-ant-api03-" + "PLANTEDpublicPLANTEDpublic42",
    "github": "ghp_" + "PLANTEDpublic00000000000000000000000",
    "aws": "AKIA" + "PLANTEDPUBLIC777",
    "password": "hunter2-" + "public-planted",
}
RAW = re.compile(r"sk-ant-api03-[A-Za-z0-9]|ghp_[A-Za-z0-9]{30}|AKIA[0-9A-Z]{16}|public-planted")


def planted_copy(source: Path, target: Path) -> Path:
    rows = source.read_text(encoding="utf-8").splitlines()
    sid = next((json.loads(r).get("sessionId") for r in rows if '"sessionId"' in r), "s")
    extra = [
        {
            "type": "user",
            "sessionId": sid,
            "message": {"content": f"deploy with {SECRETS['anthropic']}"},
        },
        {
            "type": "assistant",
            "sessionId": sid,
            "message": {
                "content": [
                    {
                        "type": "tool_use",
                        "id": "plant1",
                        "name": "Bash",
                        "input": {"command": "git commit -am wip && make test"},
                    }
                ]
            },
        },
        {
            "type": "user",
            "sessionId": sid,
            "message": {
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "plant1",
                        "is_error": True,
                        "content": f"[main abc1234] wip {SECRETS['github']}\nError: "
                        f"password={SECRETS['password']} rejected for {SECRETS['aws']}",
                    }
                ]
            },
        },
    ]
    target.write_text("\n".join(rows + [json.dumps(r) for r in extra]) + "\n", encoding="utf-8")
    return target


@pytest.mark.parametrize("source", FILES, ids=[f.stem[:50] for f in FILES])
def test_public_transcript_handoff(source: Path, git_project: Path, tmp_path: Path) -> None:
    transcript = planted_copy(source, tmp_path / source.name)
    started = time.monotonic()
    result = CliRunner().invoke(
        cli, ["handoff", "write", "--transcript", str(transcript), "-C", str(git_project)]
    )
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 15
    written = git_project / result.stdout.split()[1]
    text = written.read_text()
    budget = int(config.Config().get("handoff.max_tokens"))
    assert tokens.count_tokens(text)[0] <= budget
    state = git_project / ".ccstate"
    lines = handoff.capsule_section(git_project, state, config.Config(), "startup", now=time.time())
    whole = capsule.render_capsule("project", [lines], 500)
    assert whole.count("\n") == len(lines)  # nothing was trimmed: the section fits alone
    assert tokens.count_tokens(whole)[0] <= 500
    everything = "\n".join(p.read_text(errors="replace") for p in state.rglob("*") if p.is_file())
    assert not RAW.search(everything + whole), RAW.search(everything + whole)
    assert "[REDACTED:" in text  # the planted secrets were found, not just dropped
