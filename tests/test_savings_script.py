"""bench/savings.py (#24.5): the shares README leads with (replay's walk, report's bill)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ccstate.ledger import core as ledger
from ccstate.ledger import replay
from ccstate.report import builder, pricing, usage
from helpers import FIXTURES, MODERN, PUBLIC, REPO


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


savings = _load("savings")


def priced_session(tmp_path: Path) -> Path:
    """The replay fixture with a model and usage on every assistant record (a bill to share)."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    out = []
    for n, line in enumerate((FIXTURES / "replay" / "session.jsonl").read_text().splitlines()):
        record = json.loads(line)
        if record.get("type") == "assistant":
            record["message"]["model"] = "claude-sonnet-4-5"
            record["message"].setdefault("id", f"msg_{n}")
            record["message"]["usage"] = {"input_tokens": 2000 + n, "output_tokens": 50}
        out.append(json.dumps(record))
    path = folder / "s1.jsonl"
    path.write_text("\n".join(out) + "\n")
    return folder


def test_the_shares_are_the_replay_over_every_result_and_the_kept_out_price_over_the_bill(
    tmp_path: Path,
) -> None:
    folder = priced_session(tmp_path)
    row = savings.measure(folder)
    (file,) = replay.transcript_files([folder])
    totals = replay.replay_file(file, ledger.Options()).totals
    assert row["result_token_turns"] == totals.result_token_turns > 0
    assert row["ledger_token_turns"] == totals.token_turns_saved > 0
    assert row["token_turn_share"] == round(
        row["kept_out_token_turns"] / totals.result_token_turns, 6
    )
    built = builder.build_report([usage.scan_file(file)], pricing.load_pricing())
    scope = built.sessions[0].scope
    tokens = totals.tokens_saved + totals.shell_tokens_saved
    turns = totals.token_turns_saved + totals.shell_token_turns_saved
    assert row["kept_out_usd"] == round(tokens * scope.write_rate + turns * scope.read_rate, 2)
    assert row["bill_usd"] == round(built.total.tokens.cost, 2) > 0
    assert row["unsafe"] == 0 and row["files_without_a_session"] == 0


def test_a_missing_corpus_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no such corpus"):
        savings.main(["--corpus", str(tmp_path / "nope")])


@pytest.mark.skipif(
    not (PUBLIC.is_dir() and MODERN.is_dir()), reason="the shared corpora are absent"
)
def test_the_shared_corpora_have_no_unsafe_replacement() -> None:
    for corpus in (PUBLIC, MODERN):
        row = savings.measure(corpus)
        assert row["unsafe"] == 0 and row["files_without_a_session"] == 0
        assert 0 < row["bill_share"] < row["token_turn_share"] < 1
