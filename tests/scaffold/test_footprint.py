"""What `ccstate doctor` says ccstate adds to every request."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.scaffold import footprint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"


def test_before_any_session_only_what_init_wrote_counts(tmp_path: Path) -> None:
    root = Path(shutil.copytree(FIXTURES / "requests", tmp_path / "requests"))
    state = root / ".ccstate"
    assert footprint.summary(root, state, {}, plugin=False) == (
        "about 0 tokens in every request: capsule: no session yet"
    )
    assert CliRunner().invoke(cli, ["init", "-C", str(root)]).exit_code == 0
    ((rel, count),) = footprint.init_instruction_tokens(root, {})
    # the wrapper plus the lines init wrote; the HTML comment is not sent (e2e checks the sum)
    assert (
        rel == "CLAUDE.md" and footprint.WRAPPER_TOKENS + 20 < count < footprint.WRAPPER_TOKENS + 60
    )
    line = footprint.summary(root, state, {}, plugin=True)
    skill = footprint.tokens(footprint.SKILL_LINE)
    assert line == (
        f"about {count + skill} tokens in every request: capsule: no session yet, "
        f"CLAUDE.md (written by ccstate init) {count}, the plugin's skill line {skill}"
    )


def test_the_capsule_counts_as_the_last_session_start_sent_it(tmp_path: Path) -> None:
    beat = tmp_path / "heartbeat" / "SessionStart.json"
    beat.parent.mkdir()
    beat.write_text(json.dumps({"detail": {"source": "startup", "capsule_chars": 0}}))
    assert footprint.capsule_tokens(tmp_path) == 0
    beat.write_text(json.dumps({"detail": {"source": "startup", "capsule_chars": 400}}))
    assert footprint.capsule_tokens(tmp_path) == 100 + footprint.tokens(footprint.CAPSULE_PREFIX)
    beat.write_text("{not json")
    assert footprint.capsule_tokens(tmp_path) is None


def test_a_users_own_claude_md_is_not_counted(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# Mine\n\nRun `make test`.\n")
    assert footprint.init_instruction_tokens(tmp_path, {}) == []
