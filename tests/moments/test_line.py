"""moments/line.py: the fields, the layouts within a width, formats and colour."""

from __future__ import annotations

import pytest

from ccstate.moments import line, rates
from ccstate.moments.cache import CacheView
from ccstate.moments.kept import Kept

CARD = rates.card("claude-opus-5-5", today="2026-12-02")
PAYLOAD = {
    "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
    "cost": {"total_cost_usd": 2.314},
    "context_window": {"used_percentage": 41.4, "total_input_tokens": 410_000},
}
WARM = CacheView("warm", left_s=192.9, idle_s=107, rewrite_tokens=217_000, hit_ratio=0.92)
COLD = CacheView("cold", idle_s=47 * 60 + 5, rewrite_tokens=217_000, miss_cause="5m TTL expired")


def render(
    cache: CacheView,
    width: int = 200,
    kept: int | None = 18_400,
    behind: bool = False,
    **kw: object,
) -> str:
    vals = line.values(PAYLOAD, cache, None if kept is None else Kept(kept, behind), CARD)
    return line.paint(line.fit_segments(vals, line.default_layout(cache, **kw), width), False)


def test_the_issues_two_lines() -> None:
    assert render(WARM) == "ctx 41% · cache warm 3:12 · kept out 18.4k tok · $2.31"
    assert render(COLD, kept=None) == (
        "cache cold (idle 47m) · next turn re-writes ~217k tok ≈ $1.08 · "
        "last miss: 5m TTL expired · ctx 41% · $2.31"
    )


@pytest.mark.parametrize("width", [200, 80, 70, 60, 50, 40, 30, 20, 12, 10])
@pytest.mark.parametrize("cache", [WARM, COLD], ids=["warm", "cold"])
def test_always_one_line_within_the_width(cache: CacheView, width: int) -> None:
    text = render(cache, width)
    assert "\n" not in text and 0 < len(text) <= width


def test_narrowing_keeps_the_cache_and_the_rewrite_longest() -> None:
    assert render(COLD, 60) == "cache cold (idle 47m) · re-write ~217k ≈ $1.08"
    assert render(COLD, 40) == "cold · re-write ~217k ≈ $1.08"
    assert render(WARM, 30) == "cache warm 3:12"


def test_segment_mode_leaves_out_what_the_host_shows() -> None:
    assert render(WARM, segment=True) == "cache warm 3:12 · kept out 18.4k tok"
    assert render(COLD, segment=True, kept=None) == (
        "cache cold (idle 47m) · next turn re-writes ~217k tok ≈ $1.08"
    )


def test_a_counter_behind_the_transcript_is_a_floor() -> None:
    """Replacements written since the last Stop are not counted yet: the figure is at least
    what the counter says (it never shrinks as the transcript grows), and says so."""
    assert render(WARM, behind=True) == "ctx 41% · cache warm 3:12 · kept out ≥18.4k tok · $2.31"
    assert render(WARM, kept=0) == "ctx 41% · cache warm 3:12 · $2.31"
    assert render(WARM, kept=0, behind=True) == "ctx 41% · cache warm 3:12 · $2.31"


def test_inferred_states_say_so() -> None:
    approx = CacheView("warm", left_s=30, idle_s=270, rewrite_tokens=5000, approx=True)
    vals = line.values(PAYLOAD, approx, None, CARD)
    assert vals.get("cache") == ("cache ≈warm 0:30", "warn")  # its last minute: yellow
    assert vals.get("approx")[0] == "≈"


def test_unpriced_model_gives_tokens_without_a_price() -> None:
    vals = line.values(PAYLOAD, COLD, None, None)
    assert vals.get("rewrite")[0] == "next turn re-writes ~217k tok"
    assert vals.get("rewrite_usd")[0] == ""


def test_nothing_known_gives_nothing() -> None:
    vals = line.values({}, CacheView(), None, None)
    assert line.fit_segments(vals, line.default_layout(CacheView()), 80) == []


def test_formats() -> None:
    vals = line.values(PAYLOAD, WARM, Kept(1234, False), CARD)
    parts = line.parse_format("{{x}} {cache} | {kept_tokens} {hit}")
    assert (
        line.paint(line.fit_format(vals, parts, 200), False) == "{x} cache warm 3:12 | 1.2k hit 92%"
    )
    # a field with nothing to say is empty; the ends are trimmed
    empty_first = line.parse_format("{rewrite}  {cost}")
    assert line.paint(line.fit_format(vals, empty_first, 200), False) == "$2.31"
    assert len(line.paint(line.fit_format(vals, parts, 12), False)) == 12


@pytest.mark.parametrize(
    ("fmt", "message"),
    [("{nope}", "unknown field {nope}"), ("{cache", "without its '}'"), ("a}b", "without its '{'")],
)
def test_bad_formats_name_the_problem(fmt: str, message: str) -> None:
    with pytest.raises(line.FormatError, match=message.replace("{", r"\{").replace("}", r"\}")):
        line.parse_format(fmt)


def test_colour_codes_only_when_asked() -> None:
    pieces = line.fit_segments(line.values(PAYLOAD, COLD, None, CARD), line.LINE_COLD, 200)
    assert "\x1b[" not in line.paint(pieces, False)
    painted = line.paint(pieces, True)
    assert "\x1b[31mcache cold (idle 47m)\x1b[0m" in painted


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0"),
        (999, "999"),
        (1000, "1.0k"),
        (18_400, "18.4k"),
        (99_949, "99.9k"),
        (217_000, "217k"),
        (999_499, "999k"),
        (999_500, "1.0M"),
        (1_234_567, "1.2M"),
    ],
)
def test_tokens(count: int, text: str) -> None:
    assert line.tokens(count) == text


@pytest.mark.parametrize(
    ("usd", "text"),
    [
        (0, "$0.00"),
        (0.0004, "<$0.001"),
        (0.0016, "$0.002"),
        (1.355, "$1.35"),
        (1234.5, "$1,234.50"),
    ],
)
def test_money(usd: float, text: str) -> None:
    assert line.money(usd) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (-3, "0s"),
        (42.9, "42s"),
        (60, "1m"),
        (2820, "47m"),
        (3600, "1h"),
        (11_520, "3h12m"),
        (97_200, "1d3h"),
    ],
)
def test_duration(seconds: float, text: str) -> None:
    assert line.duration(seconds) == text


def test_countdown_never_rounds_up() -> None:
    assert (line.countdown(192.99), line.countdown(0.4), line.countdown(-1)) == (
        "3:12",
        "0:00",
        "0:00",
    )
