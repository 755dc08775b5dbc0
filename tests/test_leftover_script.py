"""bench/leftover.py (#24): each tool result followed through replay's walk, and why what is
left of it stays."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ccstate.ledger import core as ledger
from ccstate.ledger import replay
from ccstate.outputs import core as outputs
from ccstate.outputs import replay as outputs_replay
from helpers import FIXTURES, PUBLIC, REPO


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


leftover = _load("leftover")
SESSION = FIXTURES / "replay" / "session.jsonl"


def _replayed(path: Path) -> tuple[replay.Totals, int]:
    opts = outputs.Options()
    opts.enabled = True
    tally = outputs_replay.DigestTally(opts)
    totals = replay.replay_file(path, ledger.Options(), tally).totals
    return totals, tally.totals.total.token_turns_saved


def _sums(path: Path) -> tuple[int, int, replay.Totals, int]:
    results, totals, digests = leftover.walk([path])
    grand = sum(one.tokens * one.turns for one in results)
    kept = sum(one.saved * one.turns for one in results)
    return grand, kept, totals, digests


def test_each_result_adds_up_to_the_replays_totals() -> None:
    grand, kept, totals, digests = _sums(SESSION)
    expected, expected_digests = _replayed(SESSION)
    assert totals.token_turns_saved > 0  # the fixture has ledger replacements
    assert grand == totals.result_token_turns == expected.result_token_turns > 0
    assert digests == expected_digests
    assert kept == totals.token_turns_saved + totals.shell_token_turns_saved + digests


def _result(tool: str, key: tuple[str, int], **kw: object) -> object:
    base = dict(label="", failed=False, chars=5000, tokens=100, body="", held_key=key, turns=3)
    base.update(kw)
    return leftover.Result(tool, **base)  # type: ignore[arg-type]


def test_why_a_result_stays() -> None:
    a, b = ("s1/main", 1), ("s2/main", 1)
    rows = [
        _result("Read", a, body="x = 1"),
        _result("Read", b, body="x = 1"),  # the same text, but in another session
        _result("Read", b, body="y = 2"),
        _result("Bash", a, failed=True),
        _result("Bash", a, chars=1999),
        _result("Bash", a, saved=40),
        _result("mcp__github__get_issue", a),
        _result("Edit", a),
    ]
    whys = [why for _one, why in leftover.reasons(rows, 2000)]  # type: ignore[arg-type]
    assert whys == [
        "read: new to the context",
        "read: held elsewhere",
        "read: new to the context",
        "failed",
        "under min_chars",
        "digest keeps",
        "not digested",
        "not shaped",
    ]


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="the shared public corpus is absent")
def test_the_public_corpus_adds_up_too() -> None:
    one = sorted(PUBLIC.glob("*.jsonl"))[0]
    grand, kept, totals, digests = _sums(one)
    assert grand == totals.result_token_turns
    assert kept == totals.token_turns_saved + totals.shell_token_turns_saved + digests
