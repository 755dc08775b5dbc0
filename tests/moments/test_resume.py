"""moments/resume.py: the resume warning's facts and words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ccstate.moments import rates, resume

NOW = 1_796_177_700.0
OPUS = rates.card("claude-opus-5-5", today="2026-12-02")
SONNET = rates.card("claude-sonnet-5-5", today="2026-12-02")


def transcript(path: Path, *records: tuple[float, dict, str]) -> str:
    import datetime as dt

    lines = []
    for when, usage, model in records:
        stamp = dt.datetime.fromtimestamp(when, dt.timezone.utc).isoformat().replace("+00:00", "Z")
        message = {"model": model, "usage": usage}
        lines.append(json.dumps({"type": "assistant", "timestamp": stamp, "message": message}))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


FIRST = {"input_tokens": 4, "cache_creation_input_tokens": 15_000, "cache_read_input_tokens": 0}
LAST = {
    "input_tokens": 4,
    "cache_creation_input_tokens": 2_000,
    "cache_read_input_tokens": 215_000,
    "output_tokens": 300,
    "cache_creation": {"ephemeral_5m_input_tokens": 2_000},
}


def test_claude_codes_fields_come_first(tmp_path: Path) -> None:
    path = transcript(
        tmp_path / "t.jsonl",
        (NOW - 4000, FIRST, "claude-opus-5-5"),
        (NOW - 3000, LAST, "claude-opus-5-5"),
    )
    raw = {
        "seconds_since_last_response": 2820,
        "context_tokens": 217_000,
        "prompt_cache_likely_expired": True,
    }
    found = resume.facts(raw, path, NOW, {})
    assert found is not None
    assert (found.idle_s, found.context_tokens, found.model, found.ttl, found.approx) == (
        2820,
        217_000,
        "claude-opus-5-5",
        "5m",
        False,
    )
    assert found.prefix_tokens == 15_004
    assert resume.facts({**raw, "prompt_cache_likely_expired": False}, path, NOW, {}) is None


def test_without_the_fields_the_transcript_decides(tmp_path: Path) -> None:
    path = transcript(tmp_path / "t.jsonl", (NOW - 2820, LAST, "claude-sonnet-5-5"))
    found = resume.facts({}, path, NOW, {})
    assert found is not None and found.approx and found.context_tokens == 217_304
    assert resume.facts({}, path, NOW - 2820 + 200, {}) is None  # within the 5 minutes
    assert resume.facts({}, str(tmp_path / "none.jsonl"), NOW, {}) is None


def make(tokens: int = 217_000, prefix: int | None = 15_000, approx: bool = False) -> resume.Resume:
    return resume.Resume(2820, tokens, "claude-opus-5-5", "5m", prefix, approx)


def test_the_warning_prices_both_ways() -> None:
    text = resume.warning(make(), OPUS, min_usd=0.05, compact_min_usd=0.05)
    assert text == (
        "ccstate: resumed after 47m idle, past the 5m prompt-cache TTL: your next message "
        "re-writes ~217k tokens ≈ $1.08. /compact first: ≈ $1.30 now (the summary request "
        "still re-writes the ~217k once, the next turn ~19.0k), then ≈ $0.04 less every turn: "
        "cheaper from the 7th turn on."
    )


def test_the_arithmetic_behind_it() -> None:
    assert OPUS is not None
    c, p = 217_000, 15_000 + resume.SUMMARY_TOKENS
    resume_usd = c * 5 / 1e6
    compact_now = c * 5 / 1e6 + resume.SUMMARY_OUTPUT_TOKENS * 20 / 1e6 + p * 5 / 1e6
    per_turn = (c - p) * 0.2 / 1e6
    turns = int((compact_now - resume_usd) // per_turn) + 2
    text = resume.warning(make(), OPUS, min_usd=0.05, compact_min_usd=0.05) or ""
    assert f"≈ ${resume_usd:.2f}." in text and f"≈ ${compact_now:.2f} now" in text
    assert f"≈ ${per_turn:.2f} less every turn" in text and f"the {turns}th turn" in text


def test_silent_when_cheap_and_quiet_about_compact_when_it_hardly_matters() -> None:
    assert resume.warning(make(tokens=5_000), OPUS, min_usd=0.05, compact_min_usd=0.05) is None
    assert resume.warning(make(), None, min_usd=0.05, compact_min_usd=0.05) is None
    small = resume.warning(make(tokens=30_000), SONNET, min_usd=0.05, compact_min_usd=0.05)
    assert small is not None and "/compact" not in small
    assert "/compact" not in (
        resume.warning(make(prefix=None), OPUS, min_usd=0, compact_min_usd=0) or ""
    )
    big_threshold = resume.warning(make(), OPUS, min_usd=0.05, compact_min_usd=100)
    assert big_threshold is not None and "/compact" not in big_threshold


def test_inferred_idle_is_marked() -> None:
    assert "after ≈47m idle" in (
        resume.warning(make(approx=True), OPUS, min_usd=0, compact_min_usd=0) or ""
    )


def test_compact_is_named_only_when_it_pays_within_ten_turns() -> None:
    # 40k context, 34k after compacting: $0.22 more now, $0.0012 less a turn: never named
    text = resume.warning(make(tokens=40_000, prefix=30_000), OPUS, min_usd=0, compact_min_usd=0.01)
    assert text is not None and "/compact" not in text
    # a huge context: $0.22 more now, $0.18 less a turn: ahead from the third turn
    huge = resume.warning(make(tokens=900_000), OPUS, min_usd=0, compact_min_usd=0.01) or ""
    assert "cheaper from the 3rd turn on" in huge


@pytest.mark.parametrize(
    ("n", "word"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (22, "22nd")]
)
def test_ordinals(n: int, word: str) -> None:
    assert resume._ordinal(n) == word
