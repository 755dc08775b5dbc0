"""SessionStart and SessionEnd start the detached code indexer (#41); the capsule carries the
repo map only when capsule.repo_map_tokens > 0, from the cached map, byte-identical."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from code_project import make_code_project
from helpers import make_payload, run_hook


def wait_for_index(project: Path, timeout: float = 20.0) -> int:
    """Files the detached worker indexed, once it has (polling)."""
    path = project / ".ccstate" / "repo" / "index.sqlite"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            try:
                con = sqlite3.connect(path, timeout=5)
                listed = con.execute("SELECT value FROM meta WHERE key = 'listed'").fetchone()
                count = con.execute("SELECT count(*) FROM files WHERE skip = ''").fetchone()[0]
                con.close()
                if listed:
                    return int(count)
            except sqlite3.Error:
                pass
        time.sleep(0.2)
    raise AssertionError("the detached indexer did not finish")


def test_session_start_indexes_in_the_background_and_returns_at_once(tmp_path: Path) -> None:
    project = make_code_project(tmp_path)
    started = time.monotonic()
    code, parsed, _raw, err = run_hook(
        "SessionStart", make_payload("SessionStart", project, source="startup"), cwd=project
    )
    assert (code, err) == (0, "")
    assert time.monotonic() - started < 10
    assert parsed is None or "repo map" not in str(parsed)  # off by default
    assert wait_for_index(project) == 6


def test_the_capsule_carries_the_map_when_asked_and_it_is_byte_identical(tmp_path: Path) -> None:
    project = make_code_project(tmp_path)
    (project / ".ccstate.yaml").write_text("capsule:\n  repo_map_tokens: 256\n")
    payload = make_payload("SessionStart", project, source="startup")
    run_hook("SessionStart", payload, cwd=project)  # the first start builds index and map
    wait_for_index(project)
    cached = project / ".ccstate" / "repo" / "map.txt"
    deadline = time.monotonic() + 20
    while not cached.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    texts = []
    for _ in range(2):
        code, parsed, _raw, err = run_hook("SessionStart", payload, cwd=project)
        assert (code, err) == (0, "")
        texts.append(parsed["hookSpecificOutput"]["additionalContext"])
    assert texts[0] == texts[1]
    assert "[ccstate] repo map" in texts[0] and "src/webhook.py:" in texts[0]
    assert len(texts[0].split("[ccstate] repo map", 1)[1]) <= 256 * 4 + 100


def test_session_end_starts_the_indexer_too(tmp_path: Path) -> None:
    project = make_code_project(tmp_path)
    payload = make_payload("SessionEnd", project, reason="exit")
    code, _parsed, raw, err = run_hook("SessionEnd", payload, cwd=project)
    assert (code, raw, err) == (0, "", "")
    assert wait_for_index(project) == 6
    beat = (project / ".ccstate" / "heartbeat" / "SessionEnd.json").read_text()
    assert '"find":"indexing in the background"' in beat


def test_a_folder_that_is_not_git_is_left_alone(tmp_path: Path) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    (project / ".ccstate").mkdir()
    code, _parsed, _raw, err = run_hook(
        "SessionStart", make_payload("SessionStart", project, source="startup"), cwd=project
    )
    assert (code, err) == (0, "")
    assert not (project / ".ccstate" / "repo").exists()
