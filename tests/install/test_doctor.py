"""`ccstate doctor`'s checks: the tested Claude Code range, the hooks' command on PATH, the
recall index (#17)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ccstate import paths
from ccstate.install import doctor, wiring
from ccstate.recall import index, sources, writer
from ccstate.secrets import redact
from helpers import REPO, prompt_record, tool_result_record, tool_use_record, write_jsonl

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
    script = (REPO / "scripts" / "test.sh").read_text()
    assert "from ccstate.install.wiring import TESTED_CLAUDE" in script
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


# --------------------------------------------------------------------------- recall


def build(project: Path) -> Path:
    state = paths.state_dir(project, {})
    records = [
        prompt_record("fix the build"),
        tool_use_record("t1", "Bash", {"command": "make"}),
        tool_result_record("t1", "Exit code 2\nerror: missing header", True),
    ]
    con = index.connect(state)
    writer.update(
        con,
        [sources.transcript_source(write_jsonl(project / "t" / "s1.jsonl", records))],
        redactor=redact.Redactor(),
        max_bytes=1 << 30,
    )
    index.write_summary(state, index.stats(con))
    con.close()
    return state


def test_no_index_yet(git_project: Path) -> None:
    check = doctor.check_recall(git_project, paths.state_dir(git_project, {}))
    assert (check.level, check.message) == (
        "info",
        "no index yet: the first PreCompact or SessionEnd builds it, or run "
        "'ccstate recall --reindex'",
    )


def test_the_index_size_against_its_bound(git_project: Path) -> None:
    state = build(git_project)
    check = doctor.check_recall(git_project, state)
    assert check.level == "ok"
    assert check.message.startswith("1 sessions, 2 moments; ")
    assert "of 512 MB (recall.max_mb) in " in check.message
    (git_project / ".ccstate.yaml").write_text("recall:\n  max_mb: 1\n")
    big = index.index_path(state)
    with big.open("ab") as fh:
        fh.write(b"\0" * (2 << 20))  # as if the bound had been lowered below the index
    over = doctor.check_recall(git_project, state)
    assert over.level == "warn" and over.message.endswith(
        "the next update drops the oldest sessions"
    )


def test_disabled(git_project: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("recall:\n  enabled: false\n")
    check = doctor.check_recall(git_project, paths.state_dir(git_project, {}))
    assert (check.level, check.message) == ("info", "disabled (recall.enabled: false)")


def test_the_semantic_ranking_a_configured_model_gives(git_project: Path) -> None:
    pytest.importorskip("numpy")
    from ccstate.recall import embed
    from helpers import make_static_model

    state = build(git_project)
    config = git_project / ".ccstate.yaml"
    config.write_text("recall:\n  embedding_model: gone\n")
    assert "semantic ranking" not in doctor.check_recall(git_project, state).message  # unasked
    check = doctor.check_recall(git_project, state, embed.semantic_status)
    assert check.level == "warn" and "; semantic ranking off (BM25 alone): " in check.message
    assert "gone/model.safetensors not found" in check.message
    folder = make_static_model(git_project / "model")
    config.write_text("recall:\n  embedding_model: model\n")
    check = doctor.check_recall(git_project, state, embed.semantic_status)
    assert check.message.endswith(
        "; semantic ranking off until `ccstate recall` embeds the moments"
    )
    con = index.connect(state)
    embed.update_vectors(con, embed.load_model(str(folder)))
    moments = con.execute("SELECT count(*) FROM docs").fetchone()[0]
    assert moments > 1
    con.execute("DELETE FROM vecs WHERE id = (SELECT max(id) FROM vecs)")  # a hook ran short
    con.commit()
    check = doctor.check_recall(git_project, state, embed.semantic_status)
    assert check.level == "ok" and check.message.endswith(
        f"; semantic ranking on ({folder}) for {moments - 1:,} of {moments:,} moments so far "
        "(`ccstate recall` embeds the rest)"
    )
    embed.update_vectors(con, embed.load_model(str(folder)))
    con.close()
    check = doctor.check_recall(git_project, state, embed.semantic_status)
    assert check.level == "ok" and check.message.endswith(f"; semantic ranking on ({folder})")


def test_settings_only_pyyaml_reads_are_flagged(git_project: Path) -> None:
    config = git_project / ".ccstate.yaml"
    config.write_text("recall:\n  max_mb: 64   # plain\n")
    assert doctor.check_config(git_project).level == "ok"
    config.write_text("recall: {max_mb: 64}\n")
    check = doctor.check_config(git_project)
    assert (
        check.level == "warn"
        and "uses YAML beyond plain nested `key: value` lines" in check.message
    )
