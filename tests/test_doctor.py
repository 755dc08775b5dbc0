"""`ccstate doctor`'s checks: the tested Claude Code range, the hooks' command on PATH."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ccstate import doctor, wiring

OLDEST, NEWEST = wiring.TESTED_CLAUDE[0], wiring.TESTED_CLAUDE[-1]


@pytest.mark.parametrize(
    ("version", "level", "message"),
    [
        (f"{OLDEST} (Claude Code)", "ok", f"{OLDEST} (tested: {OLDEST} to {NEWEST})"),
        (f"{NEWEST} (Claude Code)", "ok", f"{NEWEST} (tested: {OLDEST} to {NEWEST})"),
        ("2.1.400 (Claude Code)", "ok", f"2.1.400 (newer than the tested {OLDEST} to {NEWEST})"),
        (
            "2.1.200 (Claude Code)",
            "warn",
            f"2.1.200 is older than the tested {OLDEST} to {NEWEST}; update Claude Code",
        ),
        ("2.1.100 (Claude Code)", "warn", "2.1.100: read dedupe needs 2.1.121 or newer"),
        (None, "info", f"claude not on PATH; ccstate is tested on {OLDEST} to {NEWEST}"),
    ],
)
def test_claude_version_is_placed_against_the_tested_range(
    version: str | None, level: str, message: str
) -> None:
    assert doctor.check_claude(version) == doctor.Check("claude", level, message)  # type: ignore[arg-type]


def test_the_tested_range_is_what_scripts_test_sh_installs() -> None:
    """One constant: scripts/test.sh reads it, tests/e2e runs on each, doctor names it."""
    script = (Path(__file__).resolve().parents[1] / "scripts" / "test.sh").read_text()
    assert "from ccstate.wiring import TESTED_CLAUDE" in script
    assert OLDEST == "2.1.328" and NEWEST == "2.1.332"


def test_hook_command_must_be_on_path(tmp_path: Path) -> None:
    beside = Path(sys.executable).parent
    missing = doctor.check_hook_path({"PATH": str(tmp_path)})
    assert (missing.level, missing.message) == (
        "fail",
        f"ccstate-hook is not on PATH: the hooks stay off and say so once per session; "
        f"add {beside} to PATH",
    )
    found = doctor.check_hook_path({"PATH": str(beside)})
    assert (found.level, found.message) == ("ok", str(beside / "ccstate-hook"))
    other = tmp_path / "ccstate-hook"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    elsewhere = doctor.check_hook_path({"PATH": str(tmp_path)})
    assert (elsewhere.level, elsewhere.message) == (
        "warn",
        f"{other} runs the hooks, not {beside / 'ccstate-hook'}",
    )


def test_hooks_with_a_machine_path_are_flagged(git_project: Path) -> None:
    settings = git_project / ".claude" / "settings.json"
    settings.parent.mkdir()
    old = wiring.merge_settings({})
    old["hooks"]["SessionEnd"][0]["hooks"][0]["command"] = (
        "/home/ann/.local/share/ccstate/venv/bin/ccstate-hook SessionEnd"
    )
    settings.write_text(json.dumps(old))
    (check,) = doctor.check_wiring(git_project, {"HOME": str(git_project)})
    assert (check.level, check.message) == (
        "warn",
        f"{settings}: commands from an older ccstate (a machine path in them?); run "
        "'ccstate init' to update them",
    )
