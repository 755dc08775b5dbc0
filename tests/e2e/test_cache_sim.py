"""The prompt-cache simulator on literal requests (no CLI needed)."""

from __future__ import annotations

from cache_sim import CacheSim, output_tokens, request_blocks
from fake_api import Reply, ToolCall

BIG = "word " * 1500  # ~1,500 tokens: above the minimum cacheable prefix


def body(*messages: dict, system: list | None = None) -> dict:
    return {"model": "m", "system": system or [], "tools": [], "messages": list(messages)}


def user(text: str, cached: bool = False, ttl: str | None = None) -> dict:
    block: dict = {"type": "text", "text": text}
    if cached:
        block["cache_control"] = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
    return {"role": "user", "content": [block]}


def test_a_growing_conversation_reads_its_previous_prefix() -> None:
    sim = CacheSim()
    first = sim.prompt_usage(body(user(BIG, cached=True)))
    assert first["cache_read_input_tokens"] == 0
    assert first["cache_creation_input_tokens"] > 1500 and first["input_tokens"] == 0
    turn = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    second = sim.prompt_usage(body(user(BIG), turn, user("more " * 300, cached=True)))
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    assert 300 < second["cache_creation_input_tokens"] < 400


def test_cache_control_and_string_content_do_not_change_the_prefix() -> None:
    sim = CacheSim()
    written = sim.prompt_usage(body(user(BIG, cached=True)))["cache_creation_input_tokens"]
    as_string = {"role": "user", "content": BIG}
    again = sim.prompt_usage(body(as_string, user("x", cached=True)))
    assert again["cache_read_input_tokens"] == written


def test_short_prefixes_are_not_cached_and_1h_writes_are_split_out() -> None:
    sim = CacheSim()
    short = sim.prompt_usage(body(user("hello", cached=True)))
    assert short["cache_creation_input_tokens"] == 0 and short["input_tokens"] > 0
    long = sim.prompt_usage(body(user(BIG + "x", cached=True, ttl="1h")))
    assert (
        long["cache_creation"]["ephemeral_1h_input_tokens"] == long["cache_creation_input_tokens"]
    )


def test_a_different_model_or_a_changed_early_block_misses() -> None:
    sim = CacheSim()
    sim.prompt_usage(body(user(BIG, cached=True)))
    other = dict(body(user(BIG, cached=True)), model="other")
    assert sim.prompt_usage(other)["cache_read_input_tokens"] == 0
    edited = sim.prompt_usage(body(user(BIG.replace("word", "WORD", 1), cached=True)))
    assert edited["cache_read_input_tokens"] == 0


def test_blocks_and_output_tokens() -> None:
    blocks = request_blocks(body(user("a"), system=[{"type": "text", "text": "sys"}]))
    assert [b[0].split(":")[0] for b in blocks] == ["system", "user"]
    reply = Reply(("done", ToolCall("Read", {"file_path": "/x"}, "t1")))
    assert output_tokens(reply) >= 3


def test_with_a_clock_a_prefix_expires_after_its_ttl_and_a_hit_renews_it() -> None:
    now = [1000.0]
    sim = CacheSim(clock=lambda: now[0])
    written = sim.prompt_usage(body(user(BIG, cached=True)))["cache_creation_input_tokens"]
    now[0] += 299
    assert sim.prompt_usage(body(user(BIG, cached=True)))["cache_read_input_tokens"] == written
    now[0] += 299  # 598 s after the write, 299 after the hit that renewed it
    assert sim.prompt_usage(body(user(BIG, cached=True)))["cache_read_input_tokens"] == written
    now[0] += 301
    expired = sim.prompt_usage(body(user(BIG, cached=True)))
    assert expired["cache_read_input_tokens"] == 0
    assert expired["cache_creation_input_tokens"] == written
    hour = sim.prompt_usage(body(user(BIG + "y", cached=True, ttl="1h")))
    now[0] += 3000
    again = sim.prompt_usage(body(user(BIG + "y", cached=True, ttl="1h")))
    assert again["cache_read_input_tokens"] == hour["cache_creation_input_tokens"]
