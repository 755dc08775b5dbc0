"""The main conversation's prompt cache right now: warm for how long, or cold since when, and
what the next request re-writes (pure but for reading a transcript's tail; standard library).

Claude Code 2.1.328 and 2.1.332 hand the status line a `prompt_cache` object after the first
API response of the process (docs/MOMENTS.md lists its fields as verified). Before that (a
resumed session, an older CLI) the state is inferred from the transcript's last main-thread
response and the TTL in force, and marked `approx` (shown as "≈").
"""

from __future__ import annotations

from ccstate import fastjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, BinaryIO

TTL_SECONDS = {"5m": 300, "1h": 3600}
# Claude Code's miss causes (`prompt_cache.last_miss_cause.causes`, a closed set in 2.1.328),
# as the status line names them.
CAUSES = {
    "system_prompt_changed": "system prompt changed",
    "tools_changed": "tools changed",
    "model_changed": "model switch",
    "messages_rewritten": "history rewritten",
    "ttl_expired_5m": "5m TTL expired",
    "ttl_expired_1h": "1h TTL expired",
    "likely_server_side": "server side",
    "unknown": "cause unknown",
}
TAIL_START = 64 << 10  # bytes of a transcript's end read first; quadrupled while needed
TAIL_MAX = 4 << 20
_USAGE = b'"usage"'  # every line a response can be in holds it


class CacheView:
    """What the status line says about the cache. `state`: "warm", "cold", "off" (no cache
    tokens reported: caching off, or a provider that does not say) or "unknown"."""

    __slots__ = (
        "approx",
        "hit_ratio",
        "idle_s",
        "left_s",
        "miss_cause",
        "misses",
        "rewrite_tokens",
        "state",
        "ttl",
    )

    def __init__(
        self,
        state: str = "unknown",
        *,
        ttl: str = "5m",
        left_s: float | None = None,
        idle_s: float | None = None,
        rewrite_tokens: int | None = None,
        approx: bool = False,
        hit_ratio: float | None = None,
        misses: int = 0,
        miss_cause: str = "",
    ) -> None:
        self.state = state
        self.ttl = ttl
        self.left_s = left_s
        self.idle_s = idle_s
        self.rewrite_tokens = rewrite_tokens
        self.approx = approx
        self.hit_ratio = hit_ratio
        self.misses = misses
        self.miss_cause = miss_cause

    def __repr__(self) -> str:
        return "CacheView(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


def view(payload: Mapping[str, Any], now: float, environ: Mapping[str, str]) -> CacheView:
    """The cache as the status-line payload shows it, else as the transcript implies it."""
    cache = payload.get("prompt_cache")
    if isinstance(cache, dict):
        return from_prompt_cache(cache, payload, now)
    path = payload.get("transcript_path")
    return from_transcript(path if isinstance(path, str) else "", now, environ)


def from_prompt_cache(
    cache: Mapping[str, Any], payload: Mapping[str, Any], now: float
) -> CacheView:
    ttl = str(cache.get("ttl")) if cache.get("ttl") in TTL_SECONDS else "5m"
    causes = _dict(cache.get("last_miss_cause")).get("causes")
    cause = causes[0] if isinstance(causes, list) and causes and isinstance(causes[0], str) else ""
    out = CacheView(
        "cold",
        ttl=ttl,
        rewrite_tokens=_int(cache.get("recache_tokens_if_cold")) or _context_tokens(payload),
        hit_ratio=_num(cache.get("hit_ratio")),
        misses=_int(cache.get("misses")) or 0,
        miss_cause=CAUSES.get(cause, cause),
    )
    expires = _num(cache.get("expires_at"))
    if cache.get("caching_observed") is False:
        out.state = "off"
    elif expires is not None:  # None: the last response reported no cache tokens (cold)
        left = expires - now
        out.idle_s = max(0.0, now - (expires - TTL_SECONDS[ttl]))
        if cache.get("warm") is True and left > 0:
            out.state, out.left_s = "warm", left
    return out


def from_transcript(path: str, now: float, environ: Mapping[str, str]) -> CacheView:
    """≈: the last main-thread response's time plus the TTL it wrote (or the one in force)."""
    found = last_response(path) if path else None
    if found is None:
        return CacheView()
    when, usage, _model = found
    cached = _int(usage.get("cache_read_input_tokens")) or 0
    written = _int(usage.get("cache_creation_input_tokens")) or 0
    tokens = cached + written + (_int(usage.get("input_tokens")) or 0)
    tokens += _int(usage.get("output_tokens")) or 0
    ttl = ttl_written(usage) or ttl_in_force(environ)
    if cached + written == 0:
        return CacheView("off", ttl=ttl, rewrite_tokens=tokens, approx=True)
    idle = max(0.0, now - when)
    left = TTL_SECONDS[ttl] - idle
    state = "warm" if left > 0 else "cold"
    return CacheView(
        state,
        ttl=ttl,
        left_s=left if left > 0 else None,
        idle_s=idle,
        rewrite_tokens=tokens,
        approx=True,
    )


def ttl_in_force(environ: Mapping[str, str]) -> str:
    """The main conversation's TTL as the environment sets it (report/advice.py names the
    precedence): FORCE_PROMPT_CACHING_5M, CLAUDE_CODE_PROMPT_CACHE_TTL, ENABLE_PROMPT_CACHING_1H.
    A `promptCacheTtl` in settings.json is not read here: the status line only guesses when
    the last response did not say."""
    if _on(environ.get("FORCE_PROMPT_CACHING_5M", "")):
        return "5m"
    chosen = environ.get("CLAUDE_CODE_PROMPT_CACHE_TTL", "").strip()
    if chosen in TTL_SECONDS:
        return chosen
    return "1h" if _on(environ.get("ENABLE_PROMPT_CACHING_1H", "")) else "5m"


def ttl_written(usage: Mapping[str, Any]) -> str:
    parts = _dict(usage.get("cache_creation"))
    if (_int(parts.get("ephemeral_1h_input_tokens")) or 0) > 0:
        return "1h"
    if (_int(parts.get("ephemeral_5m_input_tokens")) or 0) > 0:
        return "5m"
    return ""


def last_response(path: str) -> tuple[float, dict[str, Any], str] | None:
    """(time, usage, model) of the last main-thread API response in a transcript, read from
    its end (at most TAIL_MAX bytes); None when there is none or the file cannot be read."""
    try:
        with _open(path) as fh:
            size = fh.seek(0, 2)
            window = TAIL_START
            while True:
                start = max(0, size - window)
                fh.seek(start)
                found = _last_in(fh.read(size - start), partial_first=start > 0)
                if found is not None or start == 0 or window >= TAIL_MAX:
                    return found
                window *= 4
    except OSError:
        return None


def _last_in(data: bytes, *, partial_first: bool) -> tuple[float, dict[str, Any], str] | None:
    """The last response among the lines of `data` (the first one left out when it may be
    cut); only the lines holding `"usage"` are looked at, from the end (#37: a tail of junk
    lines costs one search, not a look at each)."""
    first = data.find(b"\n") + 1 if partial_first else 0
    if partial_first and first == 0:
        return None
    end = len(data)
    while (at := data.rfind(_USAGE, first, end)) >= 0:
        start = data.rfind(b"\n", first, at) + 1 or first
        stop = data.find(b"\n", at, end)
        found = _response(data[start : end if stop < 0 else stop])
        if found is not None:
            return found
        end = start
    return None


def first_prompt_tokens(path: str, limit: int = TAIL_MAX) -> int | None:
    """Prompt tokens (input + cache read + cache write) of the transcript's first main-thread
    response: what the conversation's fixed part (system prompt, tools, instructions, the first
    prompt) weighs; None when the first `limit` bytes hold none. Reads at most `limit` bytes
    (a longer line is never held whole, #37), a regular file only."""
    try:
        with _open(path) as fh:
            found = _first_response(fh, limit)
    except OSError:
        return None
    if found is None:
        return None
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    return sum(_int(found[1].get(k)) or 0 for k in keys)


def _first_response(fh: BinaryIO, limit: int) -> tuple[float, dict[str, Any], str] | None:
    """The first main-thread response among the lines of `fh`'s first `limit` bytes; only the
    lines holding `"usage"` are looked at."""
    data, pos = bytearray(), 0
    while len(data) < limit:
        chunk = fh.read(min(TAIL_START, limit - len(data)))
        if not chunk:  # the end: its last line too, newline or not
            return _response(bytes(data[pos:])) if pos < len(data) else None
        data += chunk
        while (at := data.find(_USAGE, pos)) >= 0 and (nl := data.find(b"\n", at)) >= 0:
            found = _response(bytes(data[data.rfind(b"\n", pos, at) + 1 or pos : nl + 1]))
            if found is not None:
                return found
            pos = nl + 1
        pos = max(pos, data.rfind(b"\n", pos) + 1)  # lines without it: passed
    return None


def _open(path: str) -> BinaryIO:
    """`path` opened to read when it is a regular file; OSError otherwise (a FIFO never blocks,
    #37). `store` is loaded already where this runs (the status line's config, SessionStart)."""
    import os

    from ccstate import store

    return os.fdopen(store.open_regular(path), "rb")


def _response(line: bytes) -> tuple[float, dict[str, Any], str] | None:
    """(time, usage, model) of one transcript line when it is a main-thread API response."""
    if b'"usage"' not in line or b'"assistant"' not in line:
        return None
    try:
        record = fastjson.loads(line.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("type") != "assistant":
        return None
    if record.get("isSidechain") or record.get("isApiErrorMessage"):
        return None
    message = _dict(record.get("message"))
    usage, model = message.get("usage"), message.get("model")
    when = parse_time(record.get("timestamp"))
    if not isinstance(usage, dict) or when is None or model == "<synthetic>":
        return None
    return when, usage, model if isinstance(model, str) else ""


def parse_time(value: Any) -> float | None:
    """Seconds since the epoch of a transcript timestamp (`2026-12-02T02:14:46.384Z`, UTC);
    None when it is not one. No datetime import: this runs after every assistant message."""
    if not isinstance(value, str) or len(value) < 19 or value[10] not in "Tt ":
        return None
    try:
        year, month, day = int(value[0:4]), int(value[5:7]), int(value[8:10])
        hour, minute, second = int(value[11:13]), int(value[14:16]), int(value[17:19])
    except ValueError:
        return None
    rest = value[19:]
    fraction = 0.0
    if rest.startswith("."):
        end = 1
        while end < len(rest) and "0" <= rest[end] <= "9":
            end += 1
        fraction = int(rest[1:end]) / 10 ** (end - 1) if end > 1 else 0.0
        rest = rest[end:]
    offset = 0
    if len(rest) == 6 and rest[0] in "+-" and rest[3] == ":" and (rest[1:3] + rest[4:]).isdigit():
        offset = (int(rest[1:3]) * 3600 + int(rest[4:]) * 60) * (1 if rest[0] == "+" else -1)
    elif rest not in ("", "Z", "z"):
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    days = _days(year, month, day)
    return days * 86400 + hour * 3600 + minute * 60 + second + fraction - offset


def _days(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil)."""
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _context_tokens(payload: Mapping[str, Any]) -> int | None:
    window = _dict(payload.get("context_window"))
    used = _int(window.get("total_input_tokens"))
    if used is None:
        return None
    return used + (_int(window.get("total_output_tokens")) or 0)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if value >= 0 else None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _on(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}
