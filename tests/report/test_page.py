"""`ccstate report --html`: the page's charts (pure), then the page in a real headless
Chromium (selenium): it loads without console errors, the charts render with the series and
points of the fixture, sorting works, and a screenshot is kept as a test artifact."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.report import builder, page, pricing, timeline, usage
from ccstate.report import summary as report
from helpers import FIXTURES as FIXTURE_ROOT

FIXTURES = FIXTURE_ROOT / "transcripts"
CASE = FIXTURES / "audit_classes.jsonl"
CALLS = 13  # main-thread calls of the fixture
SOURCES = ["system", "conversation", "tool:Bash", "tool:?"]  # "?": a result of no tool_use
REBUILDS = 7
ARTIFACTS = Path(
    os.environ.get("CCSTATE_TEST_ARTIFACTS")
    or Path(tempfile.gettempdir()) / "ccstate-test-artifacts"
)
REQUIRED = os.environ.get("CCSTATE_E2E_REQUIRED") == "1"  # CI: a missing browser fails
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def build() -> report.Report:
    return builder.build_report([usage.scan_file(CASE)], pricing.load_pricing())


def test_series_put_the_rest_of_the_prompt_under_system() -> None:
    points = timeline.series(
        [
            (1_000, [("conversation", 400)], 0),  # 100 tokens said, 900 the rest
            (1_300, [("tool:Read", 800)], 50),  # + a 200-token result, + 50 tokens replied
            (100, [("tool:Read", 0), ("conversation", 0)], 0),  # compacted: all back to 0
            (10, [("tool:Read", 400)], 0),  # 100 estimated > a 10-token prompt: scaled down
        ]
    )
    assert [p.tokens for p in points] == [
        {"conversation": 100, "system": 900},
        {"conversation": 150, "tool:Read": 200, "system": 950},
        {"system": 100},
        {"tool:Read": 10, "system": 0},
    ]
    assert all(sum(p.tokens.values()) == p.prompt for p in points)
    assert timeline.chart_sources(points) == ["system", "conversation", "tool:Read"]


def test_tools_past_the_shown_ones_are_summed_as_other() -> None:
    deltas = [(f"tool:T{i}", 40 * (i + 1)) for i in range(7)]
    points = timeline.series([(10_000, deltas, 0)])
    sources = timeline.chart_sources(points, tools_shown=5)
    assert sources[-1] == "tool:other" and "tool:T0" not in sources and "tool:T6" in sources
    rows = timeline.stacked(points, sources)
    assert rows[-1] == [10 + 20]  # T0 and T1: 40 and 80 chars
    assert sum(r[0] for r in rows) == 10_000


def test_the_page_is_self_contained_and_charts_the_fixture() -> None:
    html = page.render_page(build())
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", html)  # nothing fetched
    assert "<script src" not in html and "<link" not in html
    charts = re.findall(r'<svg class="chart" [^>]*data-series="(\d+)" data-points="(\d+)"', html)
    assert charts == [(str(len(SOURCES)), str(CALLS))]
    areas = re.findall(r'<polygon class="area" data-source="([^"]+)" data-points="(\d+)"', html)
    assert areas == [(s, str(CALLS)) for s in SOURCES]
    markers = re.findall(r'<circle class="marker" data-class="([a-z_]+)"', html)
    assert sorted(markers) == sorted(
        [
            "compaction",
            "model_switch",
            "new_context",
            "prefix_mid_turn",
            "prefix_new_turn",
            "ttl_expiry",
            "unexplained",
        ]
    )
    assert html.count('<line class="compaction"') == 1
    assert 'data-kind="model" data-bars="2"' in html and 'data-kind="class" data-bars="7"' in html


def test_html_option_writes_the_page(tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", str(CASE), "--html", str(target)])
    assert (result.exit_code, result.stdout) == (0, f"wrote {target}\n")
    assert target.read_text().startswith("<!doctype html>")
    result = CliRunner().invoke(cli, ["report", str(CASE), "--html", str(target), "--json"])
    assert result.exit_code == 2 and "--html writes a page" in result.stderr
    (tmp_path / "a-file").write_text("")
    bad = tmp_path / "a-file" / "x.html"
    result = CliRunner().invoke(cli, ["report", str(CASE), "--html", str(bad)])
    assert result.exit_code == 1 and "cannot write the HTML report" in result.stderr


# --------------------------------------------------------------------------- the browser


def _browser(tmp_path: Path):  # type: ignore[no-untyped-def]
    missing = [n for n, v in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)) if not v]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium (pip install -e '.[test]')")
    if missing:
        reason = f"no {', '.join(missing)}: apt-get install -y chromium chromium-driver"
        if REQUIRED:
            pytest.fail(f"{reason} (CCSTATE_E2E_REQUIRED=1: .ci/run installs them)")
        pytest.skip(reason)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1100,1400",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))


def test_the_page_in_headless_chromium(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text(page.render_page(build()), encoding="utf-8")
    driver = _browser(tmp_path)
    try:
        driver.get(target.as_uri())
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        charts = driver.execute_script(
            """return Array.from(document.querySelectorAll("svg.chart")).map(function (svg) {
                 return Array.from(svg.querySelectorAll("polygon.area")).map(function (p) {
                   var box = p.getBBox();
                   return [p.getAttribute("data-source"), p.points.numberOfItems,
                           box.width > 0 && box.height > 0];
                 });
               });"""
        )
        # each area: the stack's top over CALLS points, then its base back: 2 x CALLS
        assert charts == [[[s, 2 * CALLS, True] for s in SOURCES]]
        markers = driver.execute_script(
            "return document.querySelectorAll('svg.chart circle.marker').length"
        )
        assert markers == REBUILDS
        cost_points = driver.execute_script(
            "return document.querySelector('svg.chart polyline.cost').points.numberOfItems"
        )
        assert cost_points == CALLS
        driver.find_element("css selector", "#session-table th:nth-child(4)").click()
        assert (
            driver.execute_script(
                "return document.querySelector('#session-table th:nth-child(4)').dataset.dir"
            )
            == "asc"
        )
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTIFACTS / "report-page.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        driver.quit()
