"""The money moments in the real interactive CLI (#25), driven in tmux against the fake API
with its prompt-cache simulator, on a faked clock (libfaketime) shared with the simulator:

- the status line ccstate's `init --statusline` wires counts the cache down from the last
  request, keeps moving while idle (refreshInterval), and after the TTL shows it cold with
  what the next turn re-writes;
- `/model` with a warm cache shows the switch warning (and with `ask`, the confirm dialog
  shows it);
- resuming an idle session shows the resume warning to the user, and the model's requests
  are byte-identical to a resume without it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cache_audit import report_json
from cache_sim import CacheSim
from claude_runner import claude_env, run_claude, transcript_path
from fake_api import FakeAnthropic, RecordedRequest, is_main_thread, text, tool_use
from test_savings import GENERATOR
from tmux_driver import TMUX, FakeClock, Tmux, libfaketime, trust_home

from ccstate.moments import line, rates

REQUIRED = os.environ.get("CCSTATE_E2E_REQUIRED") == "1"
_missing = [name for name, ok in (("tmux", TMUX), ("libfaketime", libfaketime())) if not ok]
if _missing and REQUIRED:
    raise RuntimeError(
        f"CCSTATE_E2E_REQUIRED=1 but {', '.join(_missing)} missing (.ci/run installs them)"
    )
pytestmark = pytest.mark.skipif(
    bool(_missing), reason=f"{', '.join(_missing)} not installed (apt-get install tmux faketime)"
)

CCSTATE = Path(sys.executable).with_name("ccstate")
TTL = 300
REFRESH = 2
PROMPT = "\u276f"  # the prompt box's mark
# Auto mode (the interactive default) sets allow rules like Bash(*) aside and asks its server
# check, which the fake API does not pass: the default mode with the two tools allowed.
TOOLS = ("--permission-mode", "default", "--allowedTools", "Read", "Bash(python3 gen.py)")
COUNTDOWN = re.compile(r"cache warm (\d+):(\d\d)")


@pytest.fixture
def clock(tmp_path: Path) -> FakeClock:
    return FakeClock(tmp_path / "faketime")


@pytest.fixture
def api(fake_api: FakeAnthropic, clock: FakeClock) -> FakeAnthropic:
    fake_api.usage = CacheSim(clock=clock.now).usage  # the cache expires on the faked clock
    return fake_api


def ccstate(*args: str, home: Path) -> str:
    env = {**os.environ, "HOME": str(home)}
    proc = subprocess.run(
        [str(CCSTATE), *args], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    return proc.stdout


@pytest.fixture
def wired(project: Path, claude_home: Path) -> Path:
    """The project wired as a user would: hooks and the status line by `ccstate init`, and a
    switch warning from a small context on (the fake's context is ~13k tokens)."""
    trust_home(claude_home, project)
    ccstate("init", "-C", str(project), home=claude_home)
    out = ccstate(
        "init", "--statusline", "--refresh", str(REFRESH), "-C", str(project), home=claude_home
    )
    assert "statusLine: ccstate-statusline" in out
    set_moment(project, "switch", "min_tokens", "1000")
    return project


def set_moment(project: Path, section: str, key: str, value: str) -> None:
    """`moments.<section>.<key>: value` in the project's .ccstate.yaml (the template's line)."""
    config = project / ".ccstate.yaml"
    lines, inside, done = config.read_text().split("\n"), False, False
    for i, entry in enumerate(lines):
        if entry.startswith("  ") and not entry.startswith("   "):
            inside = entry.split("#")[0].strip() == f"{section}:"
        elif inside and entry.split("#")[0].strip().startswith(f"{key}:"):
            lines[i], done = f"    {key}: {value}", True
    assert done, (section, key)
    config.write_text("\n".join(lines))


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    driver = Tmux(tmp_path / "tmux.sock")
    yield driver
    driver.close()


def start(
    tmux: Tmux,
    claude_bin: Path,
    project: Path,
    home: Path,
    api: FakeAnthropic,
    clock: FakeClock,
    *args: str,
) -> None:
    env = claude_env(home, api.url, {**clock.env(), "TERM": "xterm-256color"})
    debug = home / ".e2e-debug" / f"tmux-{len(list(home.glob('.e2e-debug/tmux-*')))}.log"
    debug.parent.mkdir(exist_ok=True)
    tmux.start([str(claude_bin), "--debug-file", str(debug), *args], project, env)
    tmux.wait_for(PROMPT, timeout=60, what="the prompt box")


def last_main(api: FakeAnthropic) -> RecordedRequest:
    records = [r for r in api.all_requests() if r.kind == "agent" and is_main_thread(r.body or {})]
    assert records, api.summary()
    return records[-1]


def prompt_tokens(usage: dict) -> int:
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    return sum(int(usage.get(k) or 0) for k in keys)


def countdown(status: str) -> int | None:
    found = COUNTDOWN.search(status)
    return int(found.group(1)) * 60 + int(found.group(2)) if found else None


def wait_status(tmux: Tmux, test: str, timeout: float = 30, *also: str) -> str:
    """The status line once it shows `test` and every one of `also`."""
    deadline = time.monotonic() + timeout
    status = ""
    while time.monotonic() < deadline:
        status = tmux.status_line()
        if all(t in status for t in (test, *also)):
            return status
        time.sleep(0.25)
    raise AssertionError(f"status line never showed {test!r}; last: {status!r}\n{tmux.screen()}")


def wait_beat(project: Path, event: str, ready: Any, timeout: float = 15) -> dict[str, Any]:
    """The hook's heartbeat for `event` once `ready(beat)` holds (the last one read after
    `timeout`, for the assertion to show)."""
    path = project / ".ccstate" / "heartbeat" / f"{event}.json"
    deadline = time.monotonic() + timeout
    beat: dict[str, Any] = {}
    while time.monotonic() < deadline:
        try:
            beat = json.loads(path.read_text())
        except (OSError, ValueError):  # not written yet, or being replaced
            beat = {}
        if beat and ready(beat):
            return beat
        time.sleep(0.2)
    return beat


def test_status_line_counts_down_and_turns_cold_with_the_rewrite(
    claude_bin: Path,
    wired: Path,
    claude_home: Path,
    api: FakeAnthropic,
    clock: FakeClock,
    tmux: Tmux,
) -> None:
    start(tmux, claude_bin, wired, claude_home, api, clock)
    tmux.type("say hello")
    wait_status(tmux, "cache warm")
    tmux.type("once more")  # a second turn reads the cache: Claude Code's baseline for a miss
    tmux.wait_for(lambda _s: len([r for r in api.all_requests() if r.kind == "agent"]) >= 2)
    time.sleep(REFRESH + 1)
    status = wait_status(tmux, "cache warm")
    request = last_main(api)
    assert (request.usage or {}).get("cache_read_input_tokens", 0) > 0
    shown = countdown(status)
    expected = request.at + TTL - clock.now()
    assert shown is not None and abs(shown - expected) <= REFRESH + 3, (status, expected)
    # idle: the refreshInterval keeps it moving
    time.sleep(REFRESH + 2)
    later = countdown(wait_status(tmux, "cache warm"))
    assert later is not None and later < shown, (shown, later)
    # the TTL passes (the clock jumps; the simulator's cache expires with it)
    clock.set(TTL + 20)
    cold = wait_status(tmux, "cache cold", timeout=REFRESH + 20)
    tokens = prompt_tokens(request.usage or {})
    card = rates.card(str(request.body["model"]), today=time.strftime("%Y-%m-%d"))
    assert card is not None
    price = line.money(rates.usd(tokens, card.rates.cache_write_5m))
    assert f"next turn re-writes ~{line.tokens(tokens)} tok ≈ {price}" in cold, cold
    assert "(idle 5m)" in cold
    # the next turn pays it: the fake re-writes everything, Claude Code names the miss
    tmux.type("and again")
    # the line may show Claude Code's miss cause before the new response makes it warm
    warm_again = wait_status(tmux, "last miss:", 30, "cache warm")
    assert last_main(api).usage["cache_read_input_tokens"] == 0
    assert "cache warm" in warm_again and "5m TTL expired" in warm_again, warm_again


def test_status_line_kept_out_is_the_reports_credited_figure(
    claude_bin: Path,
    wired: Path,
    claude_home: Path,
    api: FakeAnthropic,
    clock: FakeClock,
    tmux: Tmux,
    tmp_path: Path,
) -> None:
    """A turn with a Read answered by a notice and a shell output replaced by a digest: after
    it the line's "kept out" is what `ccstate report` credits the session, no more, no less
    (the Stop hook counted the transcript in the background)."""
    target = wired / "app.py"
    target.write_text("".join(f"def handler_{i}(request):\n    return {i}\n\n" for i in range(300)))
    (wired / "gen.py").write_text(GENERATOR)
    api.set_script(
        [
            tool_use("Read", {"file_path": str(target)}),
            tool_use("Read", {"file_path": str(target)}),  # a notice
            tool_use("Bash", {"command": "python3 gen.py"}),  # a digest
            text("done"),
        ]
    )
    start(tmux, claude_bin, wired, claude_home, api, clock, *TOOLS)
    tmux.type("read it twice and run the tests")
    status = wait_status(tmux, "kept out", 60)
    figures = report_json(claude_home, tmp_path)["total"]["ccstate"]
    assert (figures["notices"], figures["digests"]) == (1, 1), figures
    assert figures["saved_tokens"] > 1000
    shown = f"kept out {line.tokens(figures['saved_tokens'])} tok"
    assert shown in status, (shown, status)
    assert "≥" not in status


def test_model_switch_with_a_warm_cache_shows_what_it_rewrites(
    claude_bin: Path,
    wired: Path,
    claude_home: Path,
    api: FakeAnthropic,
    clock: FakeClock,
    tmux: Tmux,
) -> None:
    start(tmux, claude_bin, wired, claude_home, api, clock)
    tmux.type("say hello")
    wait_status(tmux, "cache warm")
    tokens = prompt_tokens(last_main(api).usage or {})
    # ask: Claude Code's own confirm dialog shows ccstate's text; going back switches nothing
    set_moment(wired, "switch", "ask", "true")
    tmux.type("/model sonnet")
    dialog = tmux.wait_for("A PreModelSwitch hook asked you to confirm", what="the confirm dialog")
    assert "ccstate: switching to claude-sonnet-5-5 drops the warm 5m cache" in " ".join(
        dialog.split()
    )
    tmux.keys("Down", "Enter")
    tmux.wait_for("Kept model as", what="the switch declined")
    # the default: no decision, Claude Code's confirm, then ccstate's message under the switch
    set_moment(wired, "switch", "ask", "false")
    tmux.type("/model sonnet")
    tmux.wait_for("Switch model?", what="Claude Code's cache-miss confirm")
    tmux.keys("Enter")
    screen = tmux.wait_for("Set model to", what="the switch")
    card = rates.card("claude-sonnet-5-5", today=time.strftime("%Y-%m-%d"))
    assert card is not None
    text = " ".join(screen[screen.index("Set model to") :].split())  # the TUI wraps it
    assert (
        "ccstate: switching to claude-sonnet-5-5 drops the warm 5m cache of claude-opus-5-5" in text
    )
    shown = re.search(r"re-writes ~([\d.]+k) tokens ≈ (\$[\d.]+)", text)
    assert shown is not None, text
    assert shown.group(1) == line.tokens(tokens)
    assert shown.group(2) == line.money(rates.usd(tokens, card.rates.cache_write_5m))
    assert text.count("ccstate: switching") == 1  # once, though the hook may fire per mode


def _first_session(
    claude_bin: Path, project: Path, home: Path, api: FakeAnthropic, *, work: bool = True
) -> str:
    """A session to resume. With `work` it writes a file, so its SessionEnd leaves a handoff
    and the resumed session's capsule differs from the one it started with: Claude Code
    2.1.328/2.1.332 show a resume's SessionStart output only when it brings something the
    transcript does not hold yet (docs/MOMENTS.md)."""
    if work:
        notes = {"file_path": str(project / "notes.md"), "content": "# Notes\n\nstarted\n"}
        api.set_script([tool_use("Write", notes), text("written")])
    run = run_claude(claude_bin, "take a note", cwd=project, home=home, api_url=api.url)
    assert run.result is not None, run.describe()
    return str(run.result["session_id"])


def test_resume_after_the_ttl_warns_the_user_and_not_the_model(
    claude_bin: Path,
    wired: Path,
    claude_home: Path,
    api: FakeAnthropic,
    clock: FakeClock,
    tmp_path: Path,
) -> None:
    session = _first_session(claude_bin, wired, claude_home, api)
    path = transcript_path(claude_home, wired, session)
    saved = tmp_path / "saved"
    shutil.copytree(path.parent, saved / "projects")
    shutil.copytree(wired / ".ccstate", saved / "state")
    idle = 47 * 60
    bodies = []
    for warning in (True, False):
        shutil.rmtree(path.parent)
        shutil.copytree(saved / "projects", path.parent)
        shutil.rmtree(wired / ".ccstate")
        shutil.copytree(saved / "state", wired / ".ccstate")
        set_moment(wired, "resume", "enabled", "true" if warning else "false")
        clock.set(idle)
        seen = len(api.all_requests())
        tmux = Tmux(tmp_path / f"tmux-{warning}.sock")
        try:
            start(tmux, claude_bin, wired, claude_home, api, clock, "--resume", session)
            if warning:
                screen = tmux.wait_for("SessionStart:resume says:", what="the resume warning")
                message = " ".join(screen[screen.index("SessionStart:resume says:") :].split())
                assert "ccstate: resumed after 47m idle, past the 5m prompt-cache TTL" in message
                assert "your next message re-writes ~" in message
            else:
                time.sleep(3)
                assert "resumed after" not in tmux.history()
            tmux.type("go on")
            tmux.wait_for(
                lambda _s, seen=seen: any(r.kind == "agent" for r in api.all_requests()[seen:]),
                what="the resumed session's request",
            )
        finally:
            tmux.close()
        new = [r for r in api.all_requests()[seen:] if r.kind == "agent"]
        bodies.append(json.dumps(new[0].body, sort_keys=True))
        assert "resumed after" not in bodies[-1]
    if bodies[0] != bodies[1]:
        import difflib

        a, b = (json.dumps(json.loads(x), indent=1, sort_keys=True).splitlines() for x in bodies)
        diff = "\n".join(
            difflib.unified_diff(a, b, "with the warning", "without", lineterm="", n=2)
        )
        raise AssertionError(f"the model's requests differ:\n{diff[:6000]}")


def test_resume_after_a_session_that_changed_nothing_only_the_status_line_says_it(
    claude_bin: Path,
    wired: Path,
    claude_home: Path,
    api: FakeAnthropic,
    clock: FakeClock,
    tmux: Tmux,
) -> None:
    """ccstate's hook sends the warning, but Claude Code drops every SessionStart output of a
    resume that brings nothing new (here the capsule is the one the session started with: a
    decision, so that there is one, #43); the status line, inferred from the transcript until
    the first response, says it instead."""
    (wired / "DECISIONS.md").write_text("# Decisions\n\n## D1: Use spaces\n\n- Status: active\n")
    session = _first_session(claude_bin, wired, claude_home, api, work=False)
    clock.set(47 * 60)
    start(tmux, claude_bin, wired, claude_home, api, clock, "--resume", session)
    status = wait_status(tmux, "cache ≈cold (idle 47m)")
    assert "next turn re-writes ~" in status
    # the status line can render before the resume's SessionStart hook has run (CI saw the
    # first session's `startup` beat here): wait for the resume's own beat
    beat = wait_beat(wired, "SessionStart", lambda b: b["detail"]["source"] == "resume")
    assert beat["detail"]["source"] == "resume"
    assert "resumed after" not in tmux.history()
