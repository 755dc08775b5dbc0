"""The status line's words: named fields from the payload, the cache view and the kept-out
count, laid out as one line that fits a width, with or without colour (pure).

`FIELDS` is what `--format` may name; the default layout and the segment mode (for other
status-line tools' custom-command widgets) are built from the same fields.
"""

from __future__ import annotations

from ccstate.moments import rates as rates_mod
from ccstate.moments.cache import CacheView

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ccstate.moments.kept import Kept

    Piece = tuple[str, str]  # (text, style)

# name -> what it shows (docs/MOMENTS.md lists them with examples)
FIELDS = {
    "model": "the model's display name",
    "ctx": "context used: `ctx 41%`",
    "ctx_pct": "context used, the number: `41`",
    "cache": "`cache warm 3:12`, `cache cold (idle 47m)`, `cache off`; `≈` when inferred",
    "cache_state": "`warm`, `cold`, `off` or `unknown`",
    "cache_left": "time left while warm: `3:12`",
    "idle": "time since the last API response: `47m`",
    "ttl": "the TTL the last request wrote: `5m` or `1h`",
    "approx": "`≈` when the cache state is inferred from the transcript, else empty",
    "rewrite": "when cold: `next turn re-writes ~217k tok ≈ $1.36`",
    "rewrite_tokens": "what the next turn re-writes if the cache is cold by then: `217k`",
    "rewrite_usd": "its price at the model's cache-write rate: `$1.36`",
    "miss": "`last miss: 5m TTL expired`, when Claude Code diagnosed one",
    "miss_cause": "the cause alone",
    "misses": "cache misses this session: `2`",
    "hit": "share of input read from the cache: `hit 92%`",
    "kept": "what ccstate kept out of this session, as the report credits it: `kept out 18.4k "
    "tok`; `≥18.4k` while replacements since the last turn's end are not counted yet",
    "kept_tokens": "the same, the number: `18.4k`",
    "cost": "the session's cost so far: `$2.31`",
}
SEPARATOR = " · "
ELLIPSIS = "…"
# default layouts (field, priority): the lowest priority goes first when the line is too wide
LINE_WARM = (("ctx", 60), ("cache", 100), ("miss", 45), ("kept", 70), ("cost", 40))
LINE_COLD = (("cache", 100), ("rewrite", 90), ("miss", 50), ("ctx", 60), ("kept", 70), ("cost", 40))
SEGMENT = (("cache", 100), ("rewrite", 90), ("kept", 70))
_ANSI = {"good": "32", "warn": "33", "bad": "31", "info": "36", "dim": "2", "strong": "1"}
ESSENTIAL = 90  # fields at this priority or above are shortened or cut, never dropped
WARN_LEFT_S = 60  # the countdown turns from green to yellow in its last minute


class FormatError(ValueError):
    """A `--format` naming a field that does not exist, or with an unclosed brace."""


class Values:
    """Every field's (text, style); "" when there is nothing to say. `short` holds the
    narrower wording of some, used when the line would not fit otherwise."""

    __slots__ = ("pieces", "short")

    def __init__(self, pieces: Mapping[str, Piece], short: Mapping[str, Piece] = {}) -> None:
        self.pieces = dict(pieces)
        self.short = dict(short)

    def get(self, name: str, *, short: bool = False) -> Piece:
        if short and name in self.short:
            return self.short[name]
        return self.pieces.get(name, ("", ""))


def values(
    payload: Mapping[str, Any],
    cache: CacheView,
    kept: Kept | None,
    card: rates_mod.Card | None,
) -> Values:
    out: dict[str, Piece] = {}
    model = _dict(payload.get("model")).get("display_name")
    if isinstance(model, str):
        out["model"] = (model, "")
    pct = _used_percentage(_dict(payload.get("context_window")))
    if pct is not None:
        style = "bad" if pct >= 90 else "warn" if pct >= 80 else ""
        out["ctx"], out["ctx_pct"] = (f"ctx {pct}%", style), (str(pct), style)
    short: dict[str, Piece] = {}
    out.update(_cache_pieces(cache, card, short))
    if kept is not None and kept.tokens:  # at least this much when the transcript is ahead
        figure = ("≥" if kept.behind else "") + tokens(kept.tokens)
        out["kept"] = (f"kept out {figure} tok", "info")
        out["kept_tokens"] = (figure, "info")
        short["kept"] = (f"kept {figure}", "info")
    cost = _num(_dict(payload.get("cost")).get("total_cost_usd"))
    if cost is not None:
        out["cost"] = (money(cost), "")
    return Values(out, short)


def _cache_pieces(
    cache: CacheView, card: rates_mod.Card | None, short: dict[str, Piece]
) -> dict[str, Piece]:
    out: dict[str, Piece] = {"cache_state": (cache.state, "")}
    approx = "≈" if cache.approx else ""
    if cache.approx:
        out["approx"] = (approx, "")
    if cache.state != "unknown":
        out["ttl"] = (cache.ttl, "")
    if cache.idle_s is not None:
        out["idle"] = (duration(cache.idle_s), "")
    if cache.state == "warm" and cache.left_s is not None:
        left = countdown(cache.left_s)
        style = "warn" if cache.left_s < WARN_LEFT_S else "good"
        out["cache"] = (f"cache {approx}warm {left}", style)
        out["cache_left"] = (left, style)
        short["cache"] = (f"{approx}warm {left}", style)
    elif cache.state == "cold":
        idle = f" (idle {duration(cache.idle_s)})" if cache.idle_s is not None else ""
        out["cache"] = (f"cache {approx}cold{idle}", "bad")
        short["cache"] = (f"{approx}cold", "bad")
    elif cache.state == "off":
        out["cache"] = ("cache off", "dim")
    if cache.rewrite_tokens:
        out["rewrite_tokens"] = (tokens(cache.rewrite_tokens), "")
        price = ""
        if card is not None:
            rate = card.for_prompt(cache.rewrite_tokens).write(cache.ttl)
            cost = rates_mod.usd(cache.rewrite_tokens, rate)
            out["rewrite_usd"] = (money(cost), "strong")
            price = f" ≈ {money(cost)}"
        if cache.state == "cold":
            amount = tokens(cache.rewrite_tokens)
            out["rewrite"] = (f"next turn re-writes ~{amount} tok{price}", "warn")
            short["rewrite"] = (f"re-write ~{amount}{price}", "warn")
    if cache.miss_cause:
        out["miss_cause"] = (cache.miss_cause, "")
        out["miss"] = (f"last miss: {cache.miss_cause}", "dim")
    if cache.misses:
        out["misses"] = (str(cache.misses), "")
    if cache.hit_ratio is not None and cache.state != "off":
        out["hit"] = (f"hit {round(cache.hit_ratio * 100)}%", "")
    return out


# --------------------------------------------------------------------------- layout


def default_layout(cache: CacheView, *, segment: bool = False) -> Sequence[tuple[str, int]]:
    if segment:
        return SEGMENT
    return LINE_COLD if cache.state == "cold" else LINE_WARM


def fit_segments(vals: Values, layout: Sequence[tuple[str, int]], width: int) -> list[Piece]:
    """The layout's non-empty fields joined by SEPARATOR within `width` columns: the lowest
    priorities go first (never an essential one), then the essential ones take their
    narrower wording, lowest priority first, and what is still too wide is cut."""
    chosen = [(name, prio) for name, prio in layout if vals.get(name)[0]]
    shortened: set[str] = set()
    narrower = [n for n, prio in sorted(chosen, key=lambda c: c[1]) if n in vals.short]
    while _joined_width(vals, chosen, shortened) > width:
        optional = [i for i, (_n, prio) in enumerate(chosen) if prio < ESSENTIAL]
        if optional:
            del chosen[min(optional, key=lambda i: chosen[i][1])]
        elif narrower:
            shortened.add(narrower.pop(0))
        else:
            break
    pieces: list[Piece] = []
    for name, _prio in chosen:
        if pieces:
            pieces.append((SEPARATOR, "dim"))
        pieces.append(vals.get(name, short=name in shortened))
    return cut(pieces, width)


def _joined_width(vals: Values, chosen: Sequence[tuple[str, int]], shortened: set[str]) -> int:
    texts = [vals.get(n, short=n in shortened)[0] for n, _p in chosen]
    return sum(len(t) for t in texts) + len(SEPARATOR) * max(0, len(texts) - 1)


def parse_format(text: str) -> list[tuple[str, bool]]:
    """`{name}` fields and literal text, as (text, is_field); `{{` and `}}` are braces.
    FormatError names an unknown field or an unclosed brace."""
    parts: list[tuple[str, bool]] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in "{}" and text[i + 1 : i + 2] == char:
            literal.append(char)
            i += 2
            continue
        if char == "}":
            raise FormatError("a '}' without its '{' (write '}}' for a brace)")
        if char != "{":
            literal.append(char)
            i += 1
            continue
        end = text.find("}", i)
        if end < 0:
            raise FormatError("a '{' without its '}' (write '{{' for a brace)")
        name = text[i + 1 : end].strip()
        if name not in FIELDS:
            raise FormatError(f"unknown field {{{name}}}; fields: {', '.join(FIELDS)}")
        if literal:
            parts.append(("".join(literal), False))
            literal = []
        parts.append((name, True))
        i = end + 1
    if literal:
        parts.append(("".join(literal), False))
    return parts


def fit_format(vals: Values, parts: Sequence[tuple[str, bool]], width: int) -> list[Piece]:
    pieces = [vals.get(text) if is_field else (text, "") for text, is_field in parts]
    line = [(t.replace("\n", " "), s) for t, s in pieces if t]
    return cut(_strip_ends(line), width)


def _strip_ends(pieces: list[Piece]) -> list[Piece]:
    if pieces:
        pieces[0] = (pieces[0][0].lstrip(), pieces[0][1])
        pieces[-1] = (pieces[-1][0].rstrip(), pieces[-1][1])
    return [p for p in pieces if p[0]]


def cut(pieces: Sequence[Piece], width: int) -> list[Piece]:
    """`pieces` within `width` columns: the overflow replaced by one ellipsis."""
    if sum(len(t) for t, _s in pieces) <= width:
        return list(pieces)
    out: list[Piece] = []
    room = max(0, width - 1)
    for text, style in pieces:
        if len(text) <= room:
            out.append((text, style))
            room -= len(text)
            continue
        if room:
            out.append((text[:room], style))
        break
    out.append((ELLIPSIS, "dim"))
    return out if width > 0 else []


def paint(pieces: Sequence[Piece], colour: bool) -> str:
    if not colour:
        return "".join(t for t, _s in pieces)
    return "".join(f"\x1b[{_ANSI[s]}m{t}\x1b[0m" if s in _ANSI else t for t, s in pieces)


# --------------------------------------------------------------------------- numbers


def tokens(count: int) -> str:
    """217 / 1.2k / 18.4k / 217k / 1.2M."""
    if count < 1000:
        return str(count)
    if count < 100_000:
        return f"{count / 1000:.1f}k"
    if count < 999_500:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M"


def money(usd: float) -> str:
    if usd >= 0.01 or usd == 0:
        return f"${usd:,.2f}"
    return f"${usd:.3f}" if usd >= 0.001 else "<$0.001"


def countdown(seconds: float) -> str:
    """m:ss, rounded down (a countdown never shows more time than there is)."""
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def duration(seconds: float | None) -> str:
    """42s / 47m / 3h12m / 2d3h."""
    if seconds is None:
        return "?"
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m"
    if whole < 86400:
        hours, minutes = divmod(whole // 60, 60)
        return f"{hours}h{minutes:02d}m" if minutes else f"{hours}h"
    days, hours = divmod(whole // 3600, 24)
    return f"{days}d{hours}h" if hours else f"{days}d"


def _used_percentage(window: Mapping[str, Any]) -> int | None:
    if "used_percentage" in window:  # null until the first response: nothing to show yet
        pct = _num(window.get("used_percentage"))
        return None if pct is None else max(0, min(100, round(pct)))
    used, size = _num(window.get("total_input_tokens")), _num(window.get("context_window_size"))
    if used is None or not size:
        return None
    return max(0, min(100, round(100 * used / size)))


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
