"""The resume warning: SessionStart `resume`/`fork` on a cache that has likely expired tells
the user (a `systemMessage`, never the model) how long the session sat idle, what the next
turn re-writes and its price, and whether `/compact` first is the cheaper way on (pure).

Prices, as Claude Code 2.1.328 and 2.1.332 send the requests (docs/MOMENTS.md):
- continue: the next request writes the whole context C to the cache, at the write rate;
- `/compact` first: the summary request carries cache breakpoints over the conversation, so
  it writes C as well, plus the summary the model writes (output), and the next request writes
  the compacted context P' (the conversation's fixed part, from the transcript's first
  response, plus the summary). That costs more now; every later turn then reads P' instead of
  C from the cache, which pays the difference back after a number of turns.
The message names both prices and from which turn on compacting is cheaper; it leaves
`/compact` out when compacting has not saved `moments.resume.compact_min_usd` by the tenth
turn (a small context: just go on).
"""

from __future__ import annotations

from ccstate.moments import cache as cache_mod
from ccstate.moments import line
from ccstate.moments import rates as rates_mod

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

SOURCES = ("resume", "fork")
# What a compaction adds, estimated: the summary Claude Code keeps (the public corpus' eight
# compactions: 12-18k characters, about 4k tokens) and what the model writes for it (an
# analysis section comes before the summary and is dropped).
SUMMARY_TOKENS = 4_000
SUMMARY_OUTPUT_TOKENS = 6_000
HORIZON_TURNS = 10  # /compact is named when it has paid compact_min_usd by this turn


class Resume:
    """What the warning is computed from (the payload's fields, else the transcript's)."""

    __slots__ = ("approx", "context_tokens", "idle_s", "model", "prefix_tokens", "ttl")

    def __init__(
        self,
        idle_s: float,
        context_tokens: int,
        model: str,
        ttl: str,
        prefix_tokens: int | None,
        approx: bool,
    ) -> None:
        self.idle_s = idle_s
        self.context_tokens = context_tokens
        self.model = model
        self.ttl = ttl
        self.prefix_tokens = prefix_tokens
        self.approx = approx


def facts(
    raw: Mapping[str, Any], transcript: str, now: float, environ: Mapping[str, str]
) -> Resume | None:
    """The resume's idle time and context when its cache has likely expired; None when it is
    warm (or nothing says). Claude Code's own fields first (`prompt_cache_likely_expired`,
    `seconds_since_last_response`, `context_tokens`), else the transcript's last response."""
    expired = raw.get("prompt_cache_likely_expired")
    idle = _number(raw.get("seconds_since_last_response"))
    tokens = _number(raw.get("context_tokens"))
    told = isinstance(expired, bool) and idle is not None and tokens is not None
    if told and not expired:
        return None  # warm: nothing to read
    last = cache_mod.last_response(transcript) if transcript else None
    model = last[2] if last else ""
    if not model and isinstance(raw.get("model"), str):
        model = raw["model"]
    written = cache_mod.ttl_written(last[1]) if last else ""
    ttl = written or cache_mod.ttl_in_force(environ)
    prefix = cache_mod.first_prompt_tokens(transcript) if transcript else None
    if told and idle is not None and tokens is not None:
        return Resume(idle, int(tokens), model, ttl, prefix, approx=False)
    if last is None:
        return None
    idle = max(0.0, now - last[0])
    if idle <= cache_mod.TTL_SECONDS[ttl]:
        return None
    usage = last[1]
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    total = sum(int(_number(usage.get(k)) or 0) for k in (*keys, "output_tokens"))
    return Resume(idle, total, model, ttl, prefix, approx=True)


def warning(
    found: Resume, card: rates_mod.Card | None, *, min_usd: float, compact_min_usd: float
) -> str | None:
    """The one message for the user, or None when the re-write costs less than `min_usd`
    (or the model is not priced: no figure is better than a guessed one)."""
    if card is None or found.context_tokens <= 0:
        return None
    c = found.context_tokens
    rates = card.for_prompt(c)
    write = rates.write(found.ttl)
    resume_usd = rates_mod.usd(c, write)
    if resume_usd < min_usd:
        return None
    approx = "≈" if found.approx else ""
    head = (
        f"ccstate: resumed after {approx}{line.duration(found.idle_s)} idle, past the "
        f"{found.ttl} prompt-cache TTL: your next message re-writes ~{line.tokens(c)} tokens "
        f"≈ {line.money(resume_usd)}."
    )
    tail = _compact_sentence(found, card, resume_usd, compact_min_usd)
    return f"{head} {tail}" if tail else head


def _compact_sentence(
    found: Resume, card: rates_mod.Card, resume_usd: float, compact_min_usd: float
) -> str:
    c = found.context_tokens
    compacted = (found.prefix_tokens or 0) + SUMMARY_TOKENS
    if found.prefix_tokens is None or compacted >= c:
        return ""
    rates = card.for_prompt(c)
    small = card.for_prompt(compacted)
    write = rates.write(found.ttl)
    now_usd = rates_mod.usd(c, write) + rates_mod.usd(SUMMARY_OUTPUT_TOKENS, rates.output)
    now_usd += rates_mod.usd(compacted, small.write(found.ttl))
    extra = now_usd - resume_usd
    per_turn = rates_mod.usd(c, rates.cache_read) - rates_mod.usd(compacted, small.cache_read)
    # what compacting has saved by the HORIZON_TURNS-th turn (the turn after the resume is
    # the first; the later ones read P' instead of C)
    if per_turn <= 0 or per_turn * (HORIZON_TURNS - 1) - extra < compact_min_usd:
        return ""
    turns = max(1, int(extra // per_turn) + 2)
    when = f"cheaper from the {_ordinal(turns)} turn on"
    return (
        f"/compact first: ≈ {line.money(now_usd)} now (the summary request still re-writes "
        f"the ~{line.tokens(c)} once, the next turn ~{line.tokens(compacted)}), then "
        f"≈ {line.money(per_turn)} less every turn: {when}."
    )


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)
