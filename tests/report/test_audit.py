"""The rebuild audit, the TTL advice and the hook tax on `audit_classes.jsonl`: a synthetic
main thread with one rebuild of each class, a smaller drop, a 1-hour cache that survives a
10-minute gap, and hook runs of ccstate and of another plugin."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.report import advice, audit, builder, hooktax, pricing, usage
from ccstate.report import summary as report
from ccstate.report.usage import EV_PROMPT, EV_TOOL_RESULT, Turn
from helpers import FIXTURES as FIXTURE_ROOT
from helpers import PUBLIC

FIXTURES = FIXTURE_ROOT / "transcripts"
CASE = FIXTURES / "audit_classes.jsonl"
# file line of each rebuild -> its class (the comments in the fixture's generator)
EXPECTED = {
    10: "prefix_mid_turn",
    12: "prefix_new_turn",
    15: "ttl_expiry",
    17: "model_switch",
    22: "compaction",
    25: "new_context",
    26: "unexplained",
}


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def build(path: Path = CASE) -> report.Report:
    return builder.build_report([usage.scan_file(path)], pricing.load_pricing())


def test_each_rebuild_gets_its_class_and_evidence() -> None:
    rebuilds = build().total.cache_audit.rebuilds
    assert {r.line: r.kind for r in rebuilds} == EXPECTED
    by_line = {r.line: r for r in rebuilds}
    assert by_line[12].changed == ("effort medium -> high",)
    assert by_line[15].gap == 14 * 60 + 0 and by_line[15].ttl == "5m"
    assert by_line[17].models == ("claude-opus-4-6", "claude-sonnet-4-5")
    mid = by_line[10]  # expected = 30,000 read + 2,000 written by the call before
    assert (mid.expected, mid.read, mid.rewritten) == (32_000, 20_000, 12_000)


def test_extra_cost_is_the_rewrite_priced_as_writes_minus_as_reads() -> None:
    ttl = next(r for r in build().total.cache_audit.rebuilds if r.kind == "ttl_expiry")
    # opus-4-6: 5-minute writes $6.25, reads $0.50 per MTok; 36,000 tokens written again
    assert ttl.rewritten == 36_000
    assert ttl.extra_usd == pytest.approx(36_000 * (6.25 - 0.50) / 1e6)


def test_classes_add_up_and_small_drops_stay_apart() -> None:
    a = build().total.cache_audit
    assert sum(t.rewritten for t in a.by_class.values()) == a.rewritten == 145_010
    assert sum(t.count for t in a.by_class.values()) == a.count == 7
    assert sum(t.extra_usd for t in a.by_class.values()) == pytest.approx(a.extra_usd)
    assert (a.small_drops, a.small_drop_tokens) == (1, 1_000)
    assert a.compared == 12  # 13 calls, the first has nothing to compare with


def test_claude_codes_miss_rule_sets_the_threshold() -> None:
    """A read under 95 % of the cached prefix and 2,000 tokens short is a rebuild; less is
    a smaller drop; more is a hit (Claude Code 2.1.328's promptCacheLedger)."""

    def turn(mid: str, read: int, write: int, events: int = EV_TOOL_RESULT) -> Turn:
        return Turn(mid, "m", "2026-11-20T10:00:00Z", "main", 0, write, 0, read, 1, events=events)

    first = turn("a", 0, 100_000)
    kinds = [
        [c.kind for c in audit.walk([(first, "f"), (turn("b", read, 5_000), "f")], {"a", "b"})]
        for read in (95_000, 94_999, 98_001, 100_000)
    ]
    assert kinds == [["", "drop"], ["", "prefix_mid_turn"], ["", "drop"], ["", ""]]
    small = turn("a", 0, 30_000)
    assert [
        c.kind for c in audit.walk([(small, "f"), (turn("b", 28_001, 10), "f")], {"a", "b"})
    ] == [
        "",
        "drop",  # 6.7 % short but under 2,000 tokens
    ]
    prompt = turn("b", 0, 5_000, EV_PROMPT)
    assert [c.kind for c in audit.walk([(first, "f"), (prompt, "f")], {"a", "b"})][1] == (
        "prefix_new_turn"
    )


def test_a_call_copied_from_another_file_is_not_audited_twice() -> None:
    """1.0.x resumed sessions copy earlier calls into the new file: those rows belong to the
    earlier file; the first new call after them is a new context."""

    def turn(mid: str, read: int, write: int) -> Turn:
        return Turn(
            mid, "m", "2026-11-20T10:00:00Z", "main", 0, write, 0, read, 1, events=EV_PROMPT
        )

    context = [(turn("old1", 0, 50_000), "f"), (turn("old2", 0, 60_000), "f")]
    context.append((turn("new", 0, 61_000), "f"))
    walked = audit.walk_all([context], {"new"})
    result = audit.audit_session("s", walked, lambda model, day: None)
    assert [(r.kind, r.extra_usd) for r in result.rebuilds] == [("new_context", None)]


def test_ttl_advice_prices_both_ttls() -> None:
    costs = build().total.ttl
    main = costs["main"]
    assert (main.calls, main.avoided, main.added) == (13, 1, 1)
    assert main.gaps == {"under_5m": 10, "5m_to_60m": 2, "over_60m": 0}
    # what changes between the scenarios: every write's price, the 14-minute TTL rebuild
    # (1 hour keeps it: its rewrite is read), the 10-minute read of a 1-hour cache (5 minutes
    # loses it: the read is written)
    rates = pricing.load_pricing()
    opus = rates.card("claude-opus-4-6").rates
    sonnet = rates.card("claude-sonnet-4-5").rates
    scan = usage.scan_file(CASE)
    writes = {"opus": 0, "sonnet": 0}
    for t in scan.turns.values():
        writes["sonnet" if "sonnet" in t.model else "opus"] += t.cache_write_5m + t.cache_write_1h
    premium = writes["opus"] * (opus.cache_write_1h - opus.cache_write_5m)
    premium += writes["sonnet"] * (sonnet.cache_write_1h - sonnet.cache_write_5m)
    avoided = 36_000 * (opus.cache_write_1h - opus.cache_read)
    lost = 28_500 * (sonnet.cache_write_5m - sonnet.cache_read)
    assert main.usd_1h - main.usd_5m == pytest.approx((premium - avoided - lost) / 1e6)
    assert main.current == "5m" and advice.best_ttl(main) == "5m"


def test_the_scenario_of_the_ttl_in_use_is_the_bill() -> None:
    """With short gaps only, pricing every write at the TTL in use gives the actual cost."""
    result = build(FIXTURES / "split_message.jsonl")
    main = result.total.ttl["main"]
    assert main.current == "5m" and main.avoided == main.added == 0
    assert main.usd_5m == pytest.approx(result.total.tokens.cost)


def test_advice_names_the_setting_that_pays() -> None:
    pays = advice.TtlCosts(calls=10, usd_5m=12.0, usd_1h=9.5, writes_5m=100, avoided=3)
    text = advice.advice_text({"main": pays, "subagents": advice.TtlCosts()})
    assert "1-hour writes would have saved $2.50" in text
    assert '"promptCacheTtl": "1h" in ~/.claude/settings.json' in text
    assert "CLAUDE_CODE_PROMPT_CACHE_TTL=1h" in text and "subagents" not in text
    both = advice.advice_text({"main": pays, "subagents": pays})
    assert "subagentPromptCacheTtl" in both and "ENABLE_PROMPT_CACHING_1H=1" in both
    stays = advice.TtlCosts(calls=10, usd_5m=5.0, usd_1h=9.0, writes_1h=100)
    assert '"promptCacheTtl": "5m"' in advice.advice_text({"main": stays, "subagents": stays})


def test_the_ttl_decision_table_per_scope() -> None:
    """#40: a column per scope with calls; the verdict first, the figures behind it below."""
    pays = advice.TtlCosts(calls=10, usd_5m=12.0, usd_1h=9.5, writes_5m=100, avoided=3)
    pays.gaps["5m_to_60m"] = 4
    one = advice.ttl_decision({"main": pays, "subagents": advice.TtlCosts()})
    assert (
        one.verdict == "Cache TTL: switch the main conversation to 1 hour; ccstate changed nothing"
    )
    assert one.header == ("", "main conversation")  # no subagent calls: no column
    assert dict(one.rows) == {
        "setting": "promptCacheTtl",
        "now": "5-minute writes",
        "alternative": "1-hour writes",
        "cost now": "$12.00",
        "cost then": "$9.50",
        "verdict": 'set "1h": $2.50 less',
        "calls": "10",
        "after 5-60 min idle": "4",
        "after over 1 h idle": "0",
        "TTL rebuilds 1 h avoids": "3",
        "TTL rebuilds 5 min adds": "0",
    }
    assert one.rows[one.section][0] == "calls" and one.caveat == advice.TTL_CAVEAT
    both = advice.ttl_decision({"main": pays, "subagents": pays})
    assert both.verdict == (
        "Cache TTL: 1 hour pays for both (ENABLE_PROMPT_CACHING_1H=1 where unset)"
    )
    assert both.rows[0] == ("setting", "promptCacheTtl", "subagentPromptCacheTtl")
    stays = advice.TtlCosts(calls=10, usd_5m=5.0, usd_1h=9.0, writes_1h=100)
    kept = advice.ttl_decision({"main": stays, "subagents": pays})
    assert kept.verdict == (
        "Cache TTL: switch the main conversation to 5 minutes and subagents to 1 hour; "
        "ccstate changed nothing"
    )
    assert kept.rows[1:6] == [
        ("now", "1-hour writes", "5-minute writes"),
        ("alternative", "5-minute writes", "1-hour writes"),
        ("cost now", "$9.00", "$12.00"),
        ("cost then", "$5.00", "$9.50"),
        ("verdict", 'set "5m": $4.00 less', 'set "1h": $2.50 less'),
    ]
    none = advice.ttl_decision({"main": advice.TtlCosts(), "subagents": advice.TtlCosts()})
    assert (none.verdict, none.rows) == ("Cache TTL: no API calls to judge by.", [])


def test_hook_tax_per_command_and_ccstates_share() -> None:
    total = build().total
    rows = {r.command: r for r in hooktax.hook_rows(total.hook_runs)}
    other = rows["node /opt/memory/hook.js"]
    assert (other.runs, other.p50_ms, other.p95_ms, other.max_ms, other.total_ms) == (
        3,
        2_500,
        11_000,
        11_000,
        15_000,
    )
    assert rows["sleep 1"].events == ("Stop",)  # stop_hook_summary: silent runs too
    data = hooktax.hooks_json(total.hook_runs)
    assert data["runs"] == 7 and data["ccstate_seconds"] == 0.37
    assert data["ccstate_share"] == round(370 / 16_370, 4)
    assert [c["ccstate"] for c in data["commands"]].count(True) == 2


def test_ccstates_own_hook_commands_are_recognised() -> None:
    from ccstate.install import wiring

    assert hooktax.is_ccstate(wiring.PLUGIN_COMMAND + "PostToolUse")
    assert hooktax.is_ccstate("/venv/bin/ccstate-hook PreToolUse")
    assert hooktax.is_ccstate("'/usr/bin/python3' -m ccstate.hooks SessionStart")
    assert not hooktax.is_ccstate('python3 "${CLAUDE_PLUGIN_ROOT}/hooks/other.py" Stop')
    assert hooktax.percentile([], 0.5) == 0 and hooktax.percentile([7], 0.95) == 7
    assert hooktax.short_name(wiring.PLUGIN_COMMAND + "Stop") == "[ccstate] plugin Stop"
    assert hooktax.short_name("ccstate-hook Stop") == "[ccstate] ccstate-hook Stop"
    assert hooktax.short_name("node x.js") == "node x.js"


# --------------------------------------------------------------------------- the CLI


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_rebuilds_as_csv_json_and_table() -> None:
    code, out, err = invoke("report", str(CASE), "--rebuilds", "--csv")
    assert (code, err) == (0, "")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == audit.CSV_HEADER and len(rows) == 8
    assert {int(r[3]): r[1] for r in rows[1:]} == EXPECTED
    code, out, _ = invoke("report", str(CASE), "--rebuilds", "--json")
    data = json.loads(out)
    assert data["total"]["count"] == 7 and len(data["rebuilds"]) == 7
    assert {r["session_id"] for r in data["rebuilds"]} == {"audit_classes"}
    code, out, _ = invoke("report", str(CASE), "--rebuilds")
    assert code == 0 and "prefix changed mid-turn" in out and "(smaller drops" in out


def test_advice_tables_and_their_errors() -> None:
    """The tables' text: tests/cli/test_text_output.py (golden at 80 and 140 columns)."""
    code, out, _ = invoke("report", str(CASE), "--advice")
    assert code == 0 and out.startswith("Cache TTL: keep what you have; ccstate changed nothing\n")
    assert "│ calls                   │ 13                │" in out.splitlines()
    code, out, _ = invoke("report", str(CASE), "--advice", "--json")
    assert json.loads(out)["scopes"]["main"]["rebuilds_avoided_with_1h"] == 1
    code, _, err = invoke("report", str(CASE), "--advice", "--csv")
    assert code == 2 and "--advice prints tables (or --json), not CSV" in err
    code, _, err = invoke("report", str(CASE), "--advice", "--rebuilds")
    assert code == 2 and "choose one of --rebuilds and --advice" in err


def test_the_default_report_shows_the_audit_advice_and_hooks() -> None:
    code, out, _ = invoke("report", str(CASE))
    assert code == 0
    assert "Cache rebuilds (7 of 12 calls;" in out and "Costliest" not in out
    assert "Cache TTL: keep what you have; ccstate changed nothing" in out.splitlines()
    assert "Hook tax (16.4 s recorded; ccstate's share 2%)" in out
    code, out, _ = invoke("report", str(CASE), "--csv")
    header, row = out.splitlines()[:2]
    assert header.endswith("rebuilds,rebuild_rewritten_tokens,rebuild_extra_usd,hook_seconds")
    assert row.endswith(",7,145010,0.644027,16.370")


@pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"{PUBLIC} is absent (the shared corpus)")
def test_the_audit_reconciles_on_the_public_corpus() -> None:
    scans = [usage.scan_file(f) for f in sorted(PUBLIC.glob("*.jsonl"))]
    result = builder.build_report(scans, pricing.load_pricing())
    total = result.total.cache_audit
    assert sum(t.rewritten for t in total.by_class.values()) == total.rewritten
    assert sum(s.scope.cache_audit.count for s in result.sessions) == total.count > 0
    assert total.rewritten_as_writes <= result.total.tokens.cache_write
    for r in total.rebuilds:
        assert r.expected > r.read >= 0 and r.rewritten == r.expected - r.read
        assert r.extra_usd is None or r.extra_usd >= 0
        assert r.kind in audit.CLASSES and r.line > 0
    ttl = result.total.ttl
    assert ttl["main"].calls + ttl["subagents"].calls == result.total.tokens.calls
