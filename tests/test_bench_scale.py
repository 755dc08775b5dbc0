"""The scaling bench's fixtures (bench/scale_fixtures.py, #14), run small.

The corpus copies must count as distinct sessions: fresh session, message and request ids and
uuids, and `ccstate report` totals exactly N times one copy's. The CI share is 2 copies (a few
seconds); CCSTATE_SCALE_10X=1 adds the 10x corpus the issue names (20-60 s).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from helpers import PUBLIC, REPO

needs_corpus = pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"{PUBLIC} is absent (shared corpus)")
TEN_X = pytest.mark.skipif(
    os.environ.get("CCSTATE_SCALE_10X") != "1",
    reason="the 10x corpus takes 20-60 s: set CCSTATE_SCALE_10X=1",
)


def _load(name: str) -> ModuleType:
    bench = str(REPO / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fx = _load("scale_fixtures")


# --------------------------------------------------------------------------- ids


def test_fresh_ids_replace_every_id_and_nothing_else() -> None:
    record = {
        "parentUuid": "380eb9f3-b0be-444c-9c58-8d5f262644bd",
        "uuid": "11111111-b0be-444c-9c58-8d5f262644bd",
        "sessionId": "278d9b1e-2e26-487f-942b-cc030bf4ffb9",
        "requestId": "req_011CQxyz",
        "message": {
            "id": "msg_01ABC",
            "content": [{"type": "tool_use", "id": "toolu_01X", "input": {"n": 1}}],
        },
        "cwd": "/work/app",
    }
    text = json.dumps(record, separators=(",", ":"))
    copy = json.loads(fx.fresh_ids(text, 3))
    assert copy["parentUuid"] == "380eb9f0-b0be-444c-9c58-8d5f262644bd"
    assert copy["uuid"] == "11111112-b0be-444c-9c58-8d5f262644bd"
    assert copy["sessionId"] == "278d9b1d-2e26-487f-942b-cc030bf4ffb9"
    assert (copy["requestId"], copy["message"]["id"]) == ("req_011CQxyz-c3", "msg_01ABC-c3")
    assert copy["message"]["content"][0]["id"] == "toolu_01X"  # not what makes a call distinct
    assert copy["cwd"] == "/work/app"
    assert fx.fresh_ids(text, 0) == text  # copy 0 is the original
    assert fx.fresh_id("coverage-test-fix-transcript", 2) == "coverage-test-fix-transcript-c2"


@needs_corpus
def test_copies_of_the_corpus_share_no_id(tmp_path: Path) -> None:
    corpus = PUBLIC.resolve()
    homes = [
        fx.copy_corpus(corpus, tmp_path / "first", 1),  # copy 0: the original ids
        fx.copy_corpus(corpus, tmp_path / "second", 2, first=1),  # copy 1 alone
    ]
    ids: list[set[str]] = []
    sizes: list[int] = []
    for projects in homes:
        files = sorted(projects.rglob("*.jsonl"))
        assert len(files) == len(list(corpus.glob("*.jsonl")))
        ids.append(set().union(*(fx.ids_of(p.read_text(errors="replace")) for p in files)))
        sizes.append(sum(p.stat().st_size for p in files))
    sessions = [{p.stem for p in projects.rglob("*.jsonl")} for projects in homes]
    assert sessions[0] and not sessions[0] & sessions[1]
    assert ids[0] and len(ids[0]) == len(ids[1]) and not ids[0] & ids[1]
    assert abs(sizes[1] - sizes[0]) < sizes[0] / 100  # only the ids changed


# --------------------------------------------------------------------------- report totals


def report(home: Path, tmp_path: Path) -> dict[str, Any]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    cmd = [sys.executable, "-m", "ccstate", "report", str(home / ".claude" / "projects")]
    done = subprocess.run(
        [*cmd, "--json", "--no-cache"], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@needs_corpus
@pytest.mark.parametrize("copies", [2, pytest.param(10, marks=TEN_X)])
def test_report_totals_scale_exactly_with_the_copies(tmp_path: Path, copies: int) -> None:
    one = report(fx.copy_corpus(PUBLIC.resolve(), tmp_path / "one", 1).parents[1], tmp_path)
    many_home = fx.copy_corpus(PUBLIC.resolve(), tmp_path / "many", copies).parents[1]
    many = report(many_home, tmp_path)
    assert len(many["sessions"]) == copies * len(one["sessions"])
    assert many["records"] == copies * one["records"]
    assert many["cross_file_duplicates"] == copies * one["cross_file_duplicates"]
    tokens, base = many["total"]["tokens"], one["total"]["tokens"]
    for key in ("input", "output", "cache_read", "cache_write", "api_calls", "total"):
        assert tokens[key] == copies * base[key] > 0, key
    assert tokens["cost_usd"] == pytest.approx(copies * base["cost_usd"], rel=1e-9)


# --------------------------------------------------------------------------- project history


def test_a_read_session_grows_through_the_hook(git_project: Path) -> None:
    grown = fx.grow_read_session(git_project, 50, files=12, lines=300, sample_every=5)
    assert grown["reads"] == 50 and grown["blob_peak_bytes"] > 0
    ledgers = list((git_project / ".ccstate" / "ledger").glob("*/main.json"))
    assert len(ledgers) == 1
    assert json.loads(ledgers[0].read_text())["stats"]["reads"] == 50
    assert not (git_project / ".ccstate" / "logs" / "hooks.log").exists()


def test_history_fixtures_have_the_sizes_asked_for(git_project: Path, tmp_path: Path) -> None:
    from ccstate.decisions import log
    from ccstate.handoff import index

    on_disk = fx.write_blobs(git_project, 30)
    blobs = git_project / ".ccstate" / "ledger" / "blobs"
    assert len(list(blobs.iterdir())) == 30 and on_disk >= 30 * 512
    parsed = log.parse_log(fx.write_decisions(git_project, 40).read_text())
    assert len(parsed.decisions()) == 40 and not parsed.problems and parsed.next_id == 41
    (git_project / ".ccstate.yaml").write_text("handoff:\n  keep_sessions: 1000\n")
    fx.write_handoffs(git_project, 12)
    assert len(index.read_index(git_project / ".ccstate")["sessions"]) == 12
    other = tmp_path / "other"
    other.mkdir()
    fx.copy_handoffs(git_project, other)
    assert len(index.read_index(other / ".ccstate")["sessions"]) == 12


def test_the_plugin_data_folder_is_ready(tmp_path: Path) -> None:
    from ccstate.install import bootstrap

    data = fx.make_plugin_data(tmp_path / "data", sys.executable)
    state = bootstrap.check(REPO, data)
    assert state.status == "ready" and state.python is not None
    probe = [str(state.python), "-c", "import click, yaml; print('ok')"]
    assert subprocess.run(probe, capture_output=True, text=True).stdout == "ok\n"
