"""moments/cache.py: the cache state from the status-line payload, else from the transcript."""

from __future__ import annotations

import datetime as dt
import json
import os
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccstate.moments import cache
from helpers import MODERN, PUBLIC, corpus_absent

NOW = 1_796_177_700.0


def payload(**prompt_cache: object) -> dict:
    base = {
        "warm": True,
        "caching_observed": True,
        "ttl": "5m",
        "expires_at": NOW + 192,
        "requests": 3,
        "misses": 0,
        "hit_ratio": 0.9,
        "recache_tokens_if_cold": 217_000,
        "last_miss_cause": None,
    }
    base.update(prompt_cache)
    window = {"total_input_tokens": 1000, "total_output_tokens": 5}
    return {"prompt_cache": base, "context_window": window}


def test_warm_counts_down_from_expires_at() -> None:
    view = cache.view(payload(), NOW, {})
    assert (view.state, view.approx, view.ttl) == ("warm", False, "5m")
    assert view.left_s == pytest.approx(192)
    assert view.idle_s == pytest.approx(300 - 192)
    assert view.rewrite_tokens == 217_000


def test_cold_after_expiry_whatever_warm_said() -> None:
    view = cache.view(payload(expires_at=NOW - 2520 + 300, warm=True), NOW, {})
    assert view.state == "cold" and view.left_s is None
    assert view.idle_s == pytest.approx(2520)


def test_cold_with_cause_and_one_hour_ttl() -> None:
    cause = {"causes": ["ttl_expired_1h", "unknown"]}
    view = cache.view(
        payload(warm=False, ttl="1h", expires_at=NOW - 10, last_miss_cause=cause, misses=2),
        NOW,
        {},
    )
    assert (view.state, view.ttl, view.misses, view.miss_cause) == (
        "cold",
        "1h",
        2,
        "1h TTL expired",
    )
    assert view.idle_s == pytest.approx(3610)


def test_no_cache_tokens_and_caching_off() -> None:
    assert cache.view(payload(warm=False, expires_at=None), NOW, {}).state == "cold"
    assert cache.view(payload(caching_observed=False), NOW, {}).state == "off"


def test_after_a_compaction_the_rewrite_falls_back_to_the_context() -> None:
    view = cache.view(payload(recache_tokens_if_cold=None), NOW, {})
    assert view.rewrite_tokens == 1005


def test_junk_fields_do_not_raise() -> None:
    junk = payload(ttl=7, expires_at="soon", warm="yes", hit_ratio=True, last_miss_cause=[1])
    view = cache.view(junk, NOW, {})
    assert view.state == "cold" and view.ttl == "5m" and view.hit_ratio is None


def _assistant(ts: str, usage: dict, **extra: object) -> str:
    record = {
        "type": "assistant",
        "timestamp": ts,
        "message": {"model": "claude-opus-5-5", "usage": usage, "content": []},
        **extra,
    }
    return json.dumps(record)


USAGE_5M = {
    "input_tokens": 10,
    "cache_read_input_tokens": 12_000,
    "cache_creation_input_tokens": 900,
    "output_tokens": 90,
    "cache_creation": {"ephemeral_5m_input_tokens": 900, "ephemeral_1h_input_tokens": 0},
}


def _iso(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat().replace("+00:00", "Z")


def test_inferred_from_the_transcripts_last_main_response(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    lines = [
        _assistant(_iso(NOW - 100), USAGE_5M),
        _assistant(_iso(NOW - 10), {**USAGE_5M, "cache_read_input_tokens": 1}, isSidechain=True),
        _assistant(_iso(NOW - 5), USAGE_5M, isApiErrorMessage=True),
        json.dumps({"type": "user", "timestamp": _iso(NOW - 1), "message": {"content": "hi"}}),
        '{"type":"assistant","usage": broken',
    ]
    path.write_text("\n".join(lines) + "\n")
    view = cache.view({"transcript_path": str(path)}, NOW, {})
    assert (view.state, view.approx, view.ttl) == ("warm", True, "5m")
    assert view.left_s == pytest.approx(200, abs=0.01)
    assert view.rewrite_tokens == 13_000
    later = cache.view({"transcript_path": str(path)}, NOW + 3600, {})
    assert later.state == "cold" and later.idle_s == pytest.approx(3700, abs=0.01)


def test_inferred_ttl_from_the_write_else_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    one_hour = {**USAGE_5M, "cache_creation": {"ephemeral_1h_input_tokens": 900}}
    path.write_text(_assistant(_iso(NOW - 600), one_hour) + "\n")
    assert cache.view({"transcript_path": str(path)}, NOW, {}).state == "warm"
    read_only = {**USAGE_5M, "cache_creation_input_tokens": 0, "cache_creation": {}}
    path.write_text(_assistant(_iso(NOW - 600), read_only) + "\n")
    assert cache.view({"transcript_path": str(path)}, NOW, {}).state == "cold"
    env = {"CLAUDE_CODE_PROMPT_CACHE_TTL": "1h"}
    assert cache.view({"transcript_path": str(path)}, NOW, env).state == "warm"
    assert (
        cache.view({"transcript_path": str(path)}, NOW, {"ENABLE_PROMPT_CACHING_1H": "1"}).ttl
        == "1h"
    )
    forced = {"ENABLE_PROMPT_CACHING_1H": "1", "FORCE_PROMPT_CACHING_5M": "1"}
    assert cache.view({"transcript_path": str(path)}, NOW, forced).ttl == "5m"


def test_no_cache_tokens_in_the_transcript_is_off(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_assistant(_iso(NOW), {"input_tokens": 50, "output_tokens": 5}) + "\n")
    assert cache.view({"transcript_path": str(path)}, NOW, {}).state == "off"


def test_a_last_record_longer_than_the_first_window_is_found(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    big = _assistant(_iso(NOW - 30), {**USAGE_5M, "pad": "x" * (3 * cache.TAIL_START)})
    path.write_text("\n".join(["{}"] * 10 + [big, '{"type":"user"}']) + "\n")
    found = cache.last_response(str(path))
    assert found is not None and found[0] == pytest.approx(NOW - 30)


def test_missing_or_empty_transcript_is_unknown(tmp_path: Path) -> None:
    assert cache.view({"transcript_path": str(tmp_path / "nope.jsonl")}, NOW, {}).state == "unknown"
    (tmp_path / "e.jsonl").write_text("")
    assert cache.view({"transcript_path": str(tmp_path / "e.jsonl")}, NOW, {}).state == "unknown"
    assert cache.view({}, NOW, {}).state == "unknown"


def test_first_prompt_tokens(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    first = {**USAGE_5M, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 14_000}
    path.write_text(
        _assistant(_iso(NOW - 50), first) + "\n" + _assistant(_iso(NOW), USAGE_5M) + "\n"
    )
    assert cache.first_prompt_tokens(str(path)) == 14_010
    assert cache.first_prompt_tokens(str(tmp_path / "nope")) is None


def test_a_fifo_named_as_the_transcript_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)  # opened to read, it would wait for a writer (#37)
    assert cache.last_response(str(fifo)) is None
    assert cache.first_prompt_tokens(str(fifo)) is None
    assert cache.view({"transcript_path": str(fifo)}, NOW, {}).state == "unknown"


def test_a_first_line_longer_than_the_limit_is_never_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with path.open("w") as fh:  # a 48 MB line, then the first response
        fh.write('{"type":"user","message":{"content":"' + "x" * (48 << 20) + '"}}\n')
        fh.write(_assistant(_iso(NOW), USAGE_5M) + "\n")
    tracemalloc.start()
    try:
        assert cache.first_prompt_tokens(str(path)) is None  # past the first 4 MB
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * cache.TAIL_MAX


def _every_line_first(path: Path, limit: int) -> int | None:
    """first_prompt_tokens as it read before #37: each line (whole), up to `limit` bytes."""
    with path.open("rb") as fh:
        for line in fh:
            if fh.tell() > limit:
                return None
            found = cache._response(line)
            if found is not None:
                keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
                return sum(found[1].get(k) or 0 for k in keys)
    return None


def _every_line_last(data: bytes, partial_first: bool) -> tuple | None:
    lines = data.split(b"\n")[1 if partial_first else 0 :]
    return next((f for f in map(cache._response, reversed(lines)) if f is not None), None)


@pytest.mark.parametrize("corpus", [PUBLIC, MODERN])
def test_only_lines_holding_usage_are_read_and_nothing_else_changes(corpus: Path) -> None:
    """The readers look only at lines holding `"usage"` (#37: junk costs a search, not a look
    at each line); on every transcript of the corpora, cut anywhere, they find what a look at
    every line finds."""
    files = sorted(corpus.glob("*.jsonl"))
    if not files:
        pytest.skip(corpus_absent(corpus))
    for path in files:
        data = path.read_bytes()
        for cut in range(0, len(data), max(1, len(data) // 13)):
            for first in (False, True):
                piece = data[cut : cut + 300_000]
                assert cache._last_in(piece, partial_first=first) == _every_line_last(piece, first)
        for limit in (1000, 60_000, 300_000, cache.TAIL_MAX):
            assert cache.first_prompt_tokens(str(path), limit) == _every_line_first(path, limit)


@given(st.datetimes(min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2200, 1, 1)))
def test_parse_time_agrees_with_datetime(when: dt.datetime) -> None:
    stamp = when.replace(tzinfo=dt.timezone.utc)
    text = stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert cache.parse_time(text) == pytest.approx(stamp.timestamp(), abs=1e-3)


@pytest.mark.parametrize(
    "bad", ["", "yesterday", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00 PST", 5]
)
def test_parse_time_refuses_what_it_cannot_read(bad: object) -> None:
    assert cache.parse_time(bad) is None
