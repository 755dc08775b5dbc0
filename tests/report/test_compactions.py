"""What each compaction cost and saved (#26): measured from Claude Code's running totals where
a transcript has them, else estimated with the cache state; the public corpus's eleven."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.report import compactions, pricing
from ccstate.report.usage import scan_file
from helpers import MODERN, PUBLIC

MODEL = "claude-sonnet-4-5"  # $3 input, $3.75 5m writes, $0.30 reads, $15 output per Mtok


def _call(mid: str, at: str, read: int, write: int, out: int = 100) -> dict[str, Any]:
    usage = {
        "input_tokens": 10,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
        "output_tokens": out,
    }
    message = {"id": mid, "model": MODEL, "usage": usage, "content": [{"type": "text"}]}
    return {"type": "assistant", "timestamp": f"2026-11-20T{at}Z", "message": message}


def _cost_state(calls: list[dict[str, Any]], extra: tuple[int, int, int, int, int]) -> dict:
    sums = [0, 0, 0, 0, 0]
    for call in calls:
        u = call["message"]["usage"]
        for k, v in enumerate((u["input_tokens"], u["cache_creation_input_tokens"], 0)):
            sums[k] += v
        sums[3] += u["cache_read_input_tokens"]
        sums[4] += u["output_tokens"]
    keys = ("inputTokens", "cacheCreationEphemeral5mInputTokens")
    keys += ("cacheCreationEphemeral1hInputTokens", "cacheReadInputTokens", "outputTokens")
    usage = {k: s + e for k, s, e in zip(keys, sums, extra, strict=True)}
    return {"type": "cost-state", "modelUsage": {MODEL: usage}}


def _session(gap: str = "10:02:30", with_totals: bool = True) -> list[dict[str, Any]]:
    before = [_call("m1", "10:00:00", 0, 10_000), _call("m2", "10:01:00", 10_000, 20_000)]
    after = [_call("m3", "10:03:00", 3_000, 5_000), _call("m4", "10:04:00", 8_000, 200)]
    after += [_call("m5", "10:05:00", 8_200, 300)]
    boundary = {
        "type": "system",
        "subtype": "compact_boundary",
        "timestamp": f"2026-11-20T{gap}Z",
        "compactMetadata": {"trigger": "auto", "preTokens": 30_110},
    }
    summary = {
        "type": "user",
        "isCompactSummary": True,
        "timestamp": f"2026-11-20T{gap}Z",
        "message": {"role": "user", "content": "s" * 400},
    }
    records = [*before]
    if with_totals:
        records.append(_cost_state(before, (0, 0, 0, 0, 0)))
    records += [boundary, summary, *after]
    if with_totals:
        records.append(_cost_state(before + after, (1_250, 0, 0, 30_000, 900)))
    return records


def _priced(records: list[dict[str, Any]], tmp_path: Path) -> compactions.CompactionCost:
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    scan = scan_file(path)
    table = pricing.load_pricing(None)
    (cost,) = compactions.price_session([scan], table.card)
    return cost


def test_the_summarising_call_is_measured_from_the_running_totals(tmp_path: Path) -> None:
    cost = _priced(_session(), tmp_path)
    assert cost.summariser_source == "measured"
    assert cost.summariser_tokens == (1_250, 0, 0, 30_000, 900)
    # 1,250 x $3 + 30,000 x $0.30 + 900 x $15 per Mtok
    assert cost.summariser_usd == pytest.approx((3_750 + 9_000 + 13_500) / 1e6)
    # m3 wrote 5,000 (the rebuild): $3.75 - $0.30 more than reading them
    assert cost.rebuild_extra_usd == pytest.approx(5_000 * 3.45 / 1e6)
    assert (cost.following_calls, cost.carried_after) == (3, 8_010)
    # m4 and m5 each carry 30,110 - 8,010 = 22,100 tokens fewer, at $0.30
    assert cost.saved_tokens == 44_200
    assert cost.saved_usd == pytest.approx(44_200 * 0.30 / 1e6)
    assert cost.net_usd == pytest.approx(
        cost.saved_usd - cost.summariser_usd - cost.rebuild_extra_usd
    )


def test_without_totals_it_is_estimated_warm_or_cold_by_the_gap(tmp_path: Path) -> None:
    warm = _priced(_session(with_totals=False), tmp_path)
    assert (warm.summariser_source, warm.cache) == ("estimate", "warm")
    tokens = (compactions.SUMMARY_PROMPT_TOKENS, 0, 0, 30_110, 100)  # 400 chars -> 100
    assert warm.summariser_tokens == tokens
    cold = _priced(
        _session(gap="10:09:00", with_totals=False), tmp_path
    )  # 8 min after m2: 5m expired
    assert cold.cache == "cold"
    assert cold.summariser_tokens == (compactions.SUMMARY_PROMPT_TOKENS, 30_110, 0, 0, 100)
    assert cold.summariser_usd > warm.summariser_usd


def test_implausible_totals_fall_back_to_the_estimate(tmp_path: Path) -> None:
    records = _session()
    records[-1]["modelUsage"][MODEL]["cacheReadInputTokens"] += 5_000_000  # not one call
    assert _priced(records, tmp_path).summariser_source == "estimate"


def _report(folder: Path) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["report", str(folder), "--json", "--no-cache"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


@pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"{PUBLIC} is absent (shared corpus)")
def test_the_public_corpus_compactions_and_the_reconciled_totals() -> None:
    """Every compaction listed with its cost and effect; the totals and the rebuild classes are
    what the report showed before #26 (docs/REPORT.md: $308.86, 143 rebuilds)."""
    data = _report(PUBLIC)
    total = data["total"]
    assert round(total["tokens"]["cost_usd"], 2) == 308.86
    assert total["tokens"]["cache_write"] == 15_302_332 and total["tokens"]["input"] == 65_718
    classes = {k: v["count"] for k, v in total["cache_audit"]["by_class"].items()}
    assert classes == {
        "compaction": 13,
        "model_switch": 11,
        "new_context": 0,
        "prefix_mid_turn": 52,
        "prefix_new_turn": 42,
        "ttl_expiry": 25,
        "unexplained": 0,
    }
    listed = [c for s in data["sessions"] for c in s["compactions"]]
    assert len(listed) == total["compaction_totals"]["count"] == 11
    for c in listed:
        assert c["summariser"]["source"] == "estimate" and c["summariser"]["usd"] > 0
        assert c["following_calls"] > 0 and c["carried_after"] < c["carried_before"]
        assert c["net_usd"] == pytest.approx(
            c["saved_usd"] - c["summariser"]["usd"] - c["rebuild_extra_usd"], abs=1e-5
        )
    assert total["compaction_totals"]["saved_usd"] == pytest.approx(
        sum(c["saved_usd"] for c in listed), abs=1e-4
    )


@pytest.mark.skipif(not MODERN.is_dir(), reason=f"{MODERN} is absent (shared corpus)")
def test_the_modern_corpus_has_no_compaction() -> None:
    assert _report(MODERN)["total"]["compaction_totals"]["count"] == 0
