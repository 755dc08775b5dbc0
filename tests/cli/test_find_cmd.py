"""`ccstate find`: text and --json, re-indexing what changed first, errors in one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate.cli import cli
from code_project import make_code_project


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_code_project(tmp_path)


def test_find_answers_with_locations_and_the_footer(project: Path) -> None:
    code, out, err = invoke("find", "retry", "with", "backoff", "-C", str(project))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("find: ") and "(6 files indexed)" in lines[0]
    assert lines[1].startswith("1. src/webhook.py:12-18  function WebhookClient.send_with_retry:")
    assert lines[-1].startswith("Pointers, not the code")


def test_json_and_a_function_added_since_is_found(project: Path) -> None:
    invoke("find", "anything", "-C", str(project))
    with (project / "src" / "dates.py").open("a") as fh:
        fh.write("\n\ndef days_between(start, end):\n    return (end - start).days\n")
    code, out, _err = invoke("find", "days_between", "--json", "-C", str(project))
    assert code == 0
    data = json.loads(out)
    assert data["hits"][0]["location"] == "src/dates.py:13-14"
    assert data["hits"][0]["name"] == "days_between" and data["files_indexed"] == 6


def test_no_update_searches_the_index_as_it_is(project: Path) -> None:
    code, _out, err = invoke("find", "x", "--no-update", "-C", str(project))
    assert code == 1 and err.startswith("Error: No code index in ")
    invoke("find", "x", "-C", str(project))
    (project / "late.py").write_text("def quite_unique_name():\n    pass\n")
    code, out, _err = invoke("find", "quite_unique_name", "--no-update", "-C", str(project))
    assert code == 0 and "late.py" not in out


def test_reindex_says_what_it_read(project: Path) -> None:
    code, _out, err = invoke("find", "--reindex", "-C", str(project))
    assert code == 0 and err.startswith("code index: 6 file(s) read, 0 removed in ")


def test_a_folder_that_is_not_git_is_one_clear_error(tmp_path: Path) -> None:
    code, _out, err = invoke("find", "x", "-C", str(tmp_path))
    assert code == 1
    assert err == "Error: not a git repository: `ccstate find` indexes the files git tracks\n"


def test_disabled_says_which_key(project: Path) -> None:
    (project / ".ccstate.yaml").write_text("find:\n  enabled: false\n")
    code, _out, err = invoke("find", "x", "-C", str(project))
    assert code == 1 and "(find.enabled: false)" in err


def test_no_query_is_a_usage_error(project: Path) -> None:
    code, _out, err = invoke("find", "-C", str(project))
    assert code == 2 and "give a QUERY" in err


def test_a_model_that_cannot_load_leaves_bm25_answering(project: Path) -> None:
    (project / ".ccstate.yaml").write_text(f'recall:\n  embedding_model: "{project / "nope"}"\n')
    code, out, err = invoke("find", "retry", "-C", str(project))
    assert code == 0 and "src/webhook.py" in out
    assert err.startswith("find: semantic ranking is off, BM25 alone answers: ")


def test_semantic_ranking_finds_what_shares_no_word(project: Path) -> None:
    pytest.importorskip("numpy")
    from helpers import make_static_model

    model = make_static_model(project.parent / "model")
    (project / "src" / "ops.py").write_text("def run_job():\n    backoff()\n")
    os.system(f"git -C {project} add -A")
    (project / ".ccstate.yaml").write_text(f'recall:\n  embedding_model: "{model}"\n')
    code, out, _err = invoke("find", "retry", "-C", str(project))
    assert code == 0 and "src/ops.py" in out  # no word shared: the vectors found it


def test_doctor_reports_the_code_index(project: Path) -> None:
    invoke("find", "x", "-C", str(project))
    _code, out, _err = invoke("doctor", "-C", str(project))
    flat = " ".join(out.split())
    assert "code index" in flat and "(find.max_mb)" in flat


def test_while_another_process_indexes_find_answers_from_the_index_as_it_is(project: Path) -> None:
    from ccstate import paths
    from ccstate.repo import index

    invoke("find", "x", "-C", str(project))
    with index.lock(paths.state_dir(project), 1.0):  # the background indexer holds it
        code, out, err = invoke("find", "parse_date", "-C", str(project))
    assert code == 0 and "src/dates.py" in out
    assert err.startswith("code index: another process is indexing")
