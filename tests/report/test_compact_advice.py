"""The compaction advice's replay (#26), pinned on a small hand-checked transcript.

tests/fixtures/transcripts/compaction_replay.jsonl: six main-conversation calls of
claude-sonnet-4-5 ($3 input, $3.75 5-minute writes, $0.30 reads, $15 output per Mtok), a
minute apart, prompts 20k, 50k, 80k, 110k, 120k, 130k tokens, each reading the previous
prompt from the cache and writing the rest, 1,000 output tokens each; no compaction, so the
calibration's defaults apply: summary 3,630, remainder 21,715, re-reads 3,675; the fixed
prefix is the smallest cache read, 20,000: a compaction leaves 49,020 tokens.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ccstate.report import builder, compact_advice, pricing, usage
from ccstate.report import summary as report
from helpers import FIXTURES, PUBLIC, REPO

CASE = FIXTURES / "transcripts" / "compaction_replay.jsonl"
BASE = 20_000 + 3_630 + 21_715 + 3_675
OUTPUT = 1_000 * 15  # each call's output, in millionths of a dollar


def _advice(thresholds: tuple[int, ...]) -> compact_advice.Advice:
    result = builder.build_report([usage.scan_file(CASE)], pricing.load_pricing())
    return report.compaction_advice(result, thresholds)


def _read_write(read: int, write: int) -> int:
    return round(read * 0.30 + write * 3.75)


def _summariser(context: int) -> int:
    return round(context * 0.30 + 1_293 * 3 + 3_630 * 15)


def test_the_session_as_it_was_is_the_bill() -> None:
    advice = _advice(())
    prompts = (20_000, 50_000, 80_000, 110_000, 120_000, 130_000)
    expected = sum(
        _read_write(prev, prompt - prev) + OUTPUT
        for prev, prompt in zip((0, *prompts), prompts, strict=False)
    )
    assert expected == 691_500
    assert advice.observed.usd == pytest.approx(expected / 1e6)
    assert advice.billed == pytest.approx(expected / 1e6) and advice.model_error < 1e-9
    assert (advice.observed.carried, advice.observed.compactions) == (510_000, 0)
    assert advice.history == compact_advice.History(3_630, 21_715, 3_675, 0)


def test_compacting_at_100k_once_and_at_60k_after_every_call_from_the_fourth() -> None:
    advice = _advice((100_000, 60_000))
    at_100k, at_60k = advice.replays
    # 100k: the context after call 5 (110,000 + 1,000 output) passes it: one summarising call,
    # then call 5 carries 49,020 + its 10,000 growth, reading the 20,000 prefix; call 6 reads it
    first = 90_000 + 133_500 + 142_500 + 151_500  # calls 1-4 as they were (test above)
    call5 = _read_write(20_000, BASE + 10_000 - 20_000) + OUTPUT
    call6 = _read_write(BASE + 10_000, 10_000) + OUTPUT
    assert at_100k.usd == pytest.approx((first + _summariser(111_000) + call5 + call6) / 1e6)
    assert (at_100k.added, at_100k.dropped, at_100k.rereads) == (1, 0, 3_675)
    assert at_100k.carried == 20_000 + 50_000 + 80_000 + 110_000 + BASE + 10_000 + BASE + 20_000
    # 60k: after call 3 (81,000), after call 4 (79,020 + 1,000), after call 5 (59,020 + 1,000)
    call4 = _read_write(20_000, BASE + 30_000 - 20_000) + OUTPUT
    again = _read_write(20_000, BASE + 10_000 - 20_000) + OUTPUT
    summarisers = _summariser(81_000) + _summariser(80_020) + _summariser(60_020)
    expected = 90_000 + 133_500 + 142_500 + call4 + 2 * again + summarisers
    assert at_60k.usd == pytest.approx(expected / 1e6)
    assert (at_60k.added, at_60k.rereads) == (3, 3 * 3_675)
    assert advice.best() is None  # both cost more than the session as it was
    assert "keep Claude Code's threshold" in compact_advice.advice_text(advice)
    assert "This is a model, not a measurement" in compact_advice.advice_text(advice)


def test_a_manual_compaction_is_kept_and_an_automatic_one_dropped() -> None:
    rates = pricing.load_pricing().card("claude-sonnet-4-5").rates  # type: ignore[union-attr]
    steps = [
        compact_advice.Step(50_000, 100, False, False, rates, "", 0, 0),
        compact_advice.Step(30_000, 100, False, False, rates, "auto", 90_000, 2_000),
        compact_advice.Step(35_000, 100, False, False, rates, "manual", 40_000, 1_000),
    ]
    seq = compact_advice.Conversation(steps, 20_000)
    hist = compact_advice.History(3_000, 10_000, 0, 1)
    kept = compact_advice.replay(seq, None, hist)
    assert (kept.compactions, kept.carried) == (2, 115_000)
    replayed = compact_advice.replay(seq, 200_000, hist)  # never reached
    assert (replayed.compactions, replayed.dropped) == (1, 1)  # the manual one
    assert replayed.carried == 50_000 + 50_000 + 35_000  # no reset at the automatic one


def test_the_decision_table_names_the_setting_when_a_threshold_pays() -> None:
    """#40: the verdict first, a row per threshold, the model's error and inputs below."""
    observed = compact_advice.Outcome(None, usd=10.0, calls=5, compactions=1, carried=1_000)
    cheaper = compact_advice.Outcome(60_000, usd=8.0, added=2, dropped=1, carried=600, rereads=99)
    dearer = compact_advice.Outcome(80_000, usd=10.5, added=1, carried=900, rereads=50)
    hist = compact_advice.History(3_000, 20_000, 99, 2)
    advice = compact_advice.Advice(hist, 10.4, observed, [cheaper, dearer])
    decision = compact_advice.decision(advice)
    assert decision.verdict == (
        "Compaction: set CLAUDE_CODE_AUTO_COMPACT_WINDOW=93000; $2.00 (20%) less"
    )
    assert decision.rows == [
        ("billed\n5 calls", "$10.40", "", "", "", ""),
        ("now (model)", "$10.00", "", "1", "", ""),
        ("60,000", "$8.00", "-$2.00", "+2 -1", "400", "99"),
        ("80,000", "$10.50", "+$0.50", "+1 -0", "100", "50"),
    ]
    assert decision.caveat == (
        "Model error 3.8%; median of your 2: 3,000 summary, 20,000 kept, 99 re-read"
    )
    advice.replays = [dearer]
    assert compact_advice.decision(advice).verdict == (
        "Compaction: keep Claude Code's threshold; none saves over 5%"
    )
    advice.observed = compact_advice.Outcome(None)
    assert compact_advice.decision(advice).rows == []


def test_the_setting_is_the_window_that_compacts_at_the_threshold() -> None:
    assert compact_advice.setting(100_000) == "CLAUDE_CODE_AUTO_COMPACT_WINDOW=133000"


@pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"{PUBLIC} is absent (shared corpus)")
def test_the_defaults_are_the_calibration_medians() -> None:
    """compact_advice.py's defaults are what bench/compaction_calibration.py prints."""
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "compaction_calibration.py"),
            "--corpus",
            str(PUBLIC),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "update them" not in result.stdout
    assert (
        f"summary {compact_advice.DEFAULT_SUMMARY:,}, remainder "
        f"{compact_advice.DEFAULT_REMAINDER:,}, re-read {compact_advice.DEFAULT_REREAD:,}"
    ) in result.stdout
