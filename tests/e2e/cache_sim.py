"""Prompt-caching simulator for the fake API: realistic usage numbers, so transcripts are too.

Opt-in: ``FakeAnthropic(usage=CacheSim().usage)``. The default fake usage is unchanged.

Model of Anthropic's prompt cache (https://platform.claude.com/docs/en/build-with-claude/
prompt-caching), simplified:

- A request is a sequence of blocks in cache order: tools, system blocks, then every content
  block of every message. Each block boundary has a prefix hash (all blocks so far).
- A block carrying ``cache_control`` is a breakpoint. After the request, the prefix up to each
  breakpoint is in the cache (``ttl: "1h"`` writes count as 1-hour writes).
- A request reads the longest cached prefix found at a block boundary at most
  ``LOOKBACK`` blocks before one of its breakpoints (the API checks ~20 blocks back).
- usage: ``cache_read_input_tokens`` = tokens of that prefix; ``cache_creation_input_tokens``
  = tokens from there to the last breakpoint; ``input_tokens`` = the rest after it.
  Prefixes shorter than ``MIN_CACHEABLE`` tokens are never cached.
- Tokens are counted with tiktoken (``ccstate.tokens``; chars/4 without it) on each block's
  text, plus a few tokens of framing per block; output tokens on the reply's blocks.

- Expiry, opt-in (``clock=``, a function giving the time): a prefix written with ``ttl`` "5m"
  (the default) or "1h" is gone that many seconds after its last write or read, as the API
  refreshes an entry's life on every hit. Without a clock nothing expires: a bench session
  lasts seconds. tests/e2e/test_moments.py passes the clock a faked Claude Code shares.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

LOOKBACK = 20
MIN_CACHEABLE = 1024
BLOCK_OVERHEAD = 3  # role / block framing the API adds around each block
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


@lru_cache(maxsize=65536)
def count(text: str) -> int:
    from ccstate.tokens import count_tokens

    return count_tokens(text)[0]


def _canonical(block: Any) -> str:
    """A block's identity for caching: its JSON without ``cache_control``."""
    if isinstance(block, dict):
        block = {k: v for k, v in block.items() if k != "cache_control"}
    return json.dumps(block, sort_keys=True, ensure_ascii=False)


def _text_of(block: Any) -> str:
    """What the tokenizer sees for a block (text, tool input, tool result, tool schema...)."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return json.dumps(block)
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        return str(block.get("name", "")) + json.dumps(block.get("input", {}), ensure_ascii=False)
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            return "\n".join(_text_of(b) for b in content)
        return str(content or "")
    if kind in ("thinking", "redacted_thinking"):
        return str(block.get("thinking") or block.get("data") or "")
    return _canonical(block)


def request_blocks(body: dict[str, Any]) -> list[tuple[str, int, str | None]]:
    """(canonical json, tokens, ttl of its cache_control or None) for each block, cache order."""
    out: list[tuple[str, int, str | None]] = []

    def add(block: Any, prefix: str = "") -> None:
        ttl = None
        if isinstance(block, dict) and isinstance(block.get("cache_control"), dict):
            ttl = str(block["cache_control"].get("ttl") or "5m")
        out.append((prefix + _canonical(block), count(_text_of(block)) + BLOCK_OVERHEAD, ttl))

    for tool in body.get("tools") or []:
        add(tool, "tool:")
    for block in _as_blocks(body.get("system")):
        add(block, "system:")
    for message in body.get("messages") or []:
        role = str(message.get("role"))
        for block in _as_blocks(message.get("content")):
            add(block, role + ":")
    return out


def _as_blocks(content: Any) -> list[Any]:
    """A string content is one text block to the API (and to its cache)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


class CacheSim:
    """Shared cache state for one fake API server (thread-safe)."""

    def __init__(
        self,
        min_cacheable: int = MIN_CACHEABLE,
        lookback: int = LOOKBACK,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.min_cacheable = min_cacheable
        self.lookback = lookback
        self.clock = clock
        self.cached: dict[str, tuple[float, float]] = {}  # prefix hash -> (expires at, TTL)
        self._lock = threading.Lock()

    def usage(self, body: dict[str, Any], reply: Any) -> dict[str, Any]:
        """The ``usage=`` hook of FakeAnthropic: (request body, reply) -> usage dict."""
        prompt = self.prompt_usage(body)
        prompt["output_tokens"] = output_tokens(reply)
        return prompt

    def prompt_usage(self, body: dict[str, Any]) -> dict[str, Any]:
        blocks = request_blocks(body)
        hashes, cumulative = [], []
        digest = hashlib.sha256(str(body.get("model", "")).encode())
        total = 0
        for canonical, tokens, _ttl in blocks:
            digest.update(canonical.encode())
            hashes.append(digest.copy().hexdigest())
            total += tokens
            cumulative.append(total)
        breakpoints = [i for i, (_c, _t, ttl) in enumerate(blocks) if ttl is not None]
        with self._lock:
            now = self.clock() if self.clock is not None else 0.0
            self._expire(now)
            hit = self._longest_hit(hashes, breakpoints)
            if hit >= 0:
                self._refresh(hashes, hit, now)
            read = cumulative[hit] if hit >= 0 else 0
            last_bp = breakpoints[-1] if breakpoints else -1
            written_5m = written_1h = 0
            cached_upto = max(hit, last_bp)
            if last_bp > hit and cumulative[last_bp] >= self.min_cacheable:
                previous = read
                for bp in breakpoints:
                    if bp <= hit or cumulative[bp] < self.min_cacheable:
                        continue
                    part = cumulative[bp] - previous
                    if blocks[bp][2] == "1h":
                        written_1h += part
                    else:
                        written_5m += part
                    previous = cumulative[bp]
                    ttl = TTL_SECONDS.get(blocks[bp][2] or "5m", TTL_SECONDS["5m"])
                    self.cached[hashes[bp]] = (now + ttl, ttl)
            elif last_bp > hit:
                cached_upto = hit  # too short to cache: all of it is plain input
        rest = total - (cumulative[cached_upto] if cached_upto >= 0 else 0)
        return {
            "input_tokens": rest,
            "cache_creation_input_tokens": written_5m + written_1h,
            "cache_read_input_tokens": read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": written_5m,
                "ephemeral_1h_input_tokens": written_1h,
            },
        }

    def _expire(self, now: float) -> None:
        if self.clock is None:
            return
        for key in [k for k, (expires, _ttl) in self.cached.items() if expires <= now]:
            del self.cached[key]

    def _refresh(self, hashes: list[str], hit: int, now: float) -> None:
        """A hit keeps every cached prefix it read alive for another TTL."""
        if self.clock is None:
            return
        for key in hashes[: hit + 1]:
            entry = self.cached.get(key)
            if entry is not None:
                self.cached[key] = (now + entry[1], entry[1])

    def _longest_hit(self, hashes: list[str], breakpoints: list[int]) -> int:
        """Index of the last block of the longest cached prefix reachable from a breakpoint."""
        best = -1
        for bp in breakpoints:
            for i in range(bp, max(-1, bp - self.lookback), -1):
                if i > best and hashes[i] in self.cached:
                    best = i
                    break
        return best


def output_tokens(reply: Any) -> int:
    """Tokens of a fake Reply's blocks (text, or tool name + JSON input)."""
    total = 0
    for block in getattr(reply, "blocks", ()):
        if isinstance(block, str):
            total += count(block)
        elif hasattr(block, "signature"):  # a fake_api.Thinking block
            total += count(block.text)
        else:
            total += count(block.name + json.dumps(block.input, ensure_ascii=False))
    return max(1, total)
