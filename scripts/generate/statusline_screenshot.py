#!/usr/bin/env python3
"""The README's screenshot of ccstate's status line: a real interactive `claude` (the pinned
2.1.332) in tmux against the fake API with its cache simulator, wired by `ccstate init` and
`ccstate init --statusline`; the bottom of the screen captured with its colours
(`tmux capture-pane -e`) while the cache is warm, and again after the clock (libfaketime,
shared with the simulator) has passed the 5-minute TTL; both rendered to one PNG by headless
Chromium from an HTML page this script writes (ANSI SGR colours -> spans).

Writes docs/img/statusline.png, the picture README.md shows; docs/MOMENTS.md says how to
run it again.

Needs tmux, libfaketime, chromium and the pinned CLI (scripts/test.sh installs it); run it
with the interpreter that has ccstate installed (its bin dir gives claude `ccstate-hook` and
`ccstate-statusline`):

    python="$(bash scripts/test.sh --venv)/bin/python"
    "$python" scripts/generate/statusline_screenshot.py docs/img/statusline.png
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))  # the e2e harness, imported by path
sys.path.insert(0, str(REPO / "src"))

from cache_sim import CacheSim  # noqa: E402
from claude_runner import PACKAGE, claude_env  # noqa: E402
from fake_api import FakeAnthropic, text, tool_use  # noqa: E402
from tmux_driver import FakeClock, Tmux, trust_home  # noqa: E402

from ccstate.install.wiring import TESTED_CLAUDE  # noqa: E402

BASIC = ["#1e1e1e", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5"]
BRIGHT = ["#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"]
FG, BG = "#d4d4d4", "#1e1e1e"
ROWS = 14  # the bottom of the screen: the last turn, the prompt box, the status line
# glyphs no font here has (Claude Code's mode arrows), drawn with a near one
GLYPHS = {"\u23f5": "\u25b8"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--claude-version", default=TESTED_CLAUDE[-1])
    args = parser.parse_args()
    cache = Path(os.environ.get("CCSTATE_E2E_CACHE") or Path.home() / ".cache" / "ccstate-e2e")
    claude = (
        cache / f"claude-{args.claude_version}" / "node_modules" / PACKAGE / "bin" / "claude.exe"
    )
    for need, ok in (("tmux", shutil.which("tmux")), ("chromium", shutil.which("chromium"))):
        if not ok:
            raise SystemExit(f"statusline_screenshot: {need} is not installed")
    if not claude.is_file():
        raise SystemExit(
            f"statusline_screenshot: no Claude Code at {claude} (bash scripts/test.sh)"
        )
    with tempfile.TemporaryDirectory(prefix="ccstate-shot-") as tmp:
        warm, cold = capture(claude, Path(tmp))
        page = Path(tmp) / "shot.html"
        panels = [("cache warm", warm), ("47 minutes later (the clock faked)", cold)]
        page.write_text(render_page(panels))
        screenshot(page, args.out.resolve(), height=2 * (ROWS * 19 + 46) + 16)
    print(f"wrote {args.out}")
    return 0


def capture(claude: Path, tmp: Path) -> tuple[str, str]:
    home, project = tmp / "home", tmp / "project"
    home.mkdir()
    project.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True)
    source = project / "app.py"
    source.write_text("".join(f"def handler_{i}(request):\n    return {i}\n\n" for i in range(300)))
    trust_home(home, project)
    cli = Path(sys.executable).with_name("ccstate")
    env = {**os.environ, "HOME": str(home)}
    for extra in ([], ["--statusline", "--refresh", "2"]):
        subprocess.run(
            [str(cli), "init", *extra, "-C", str(project)], env=env, check=True, capture_output=True
        )
    clock = FakeClock(tmp / "faketime")
    read = {"file_path": str(source)}
    script = [tool_use("Read", read), tool_use("Read", read), text("Both handlers are in app.py.")]
    with FakeAnthropic(script, usage=CacheSim(clock=clock.now).usage) as api:
        tmux = Tmux(tmp / "tmux.sock", width=110, height=30)
        try:
            run_env = claude_env(home, api.url, {**clock.env(), "TERM": "xterm-256color"})
            tmux.start([str(claude)], project, run_env)
            tmux.wait_for("\u276f", what="the prompt box")
            tmux.type("where are the handlers?")
            tmux.wait_for(lambda _s: "kept out" in tmux.status_line(), what="the status line")
            time.sleep(2.5)
            warm = bottom(tmux.screen(ansi=True))
            clock.set(47 * 60)
            tmux.wait_for(lambda _s: "cache cold" in tmux.status_line(), what="the cold line")
            cold = bottom(tmux.screen(ansi=True))
        finally:
            tmux.close()
    return warm, cold


def bottom(screen: str) -> str:
    """The screen's last ROWS lines once the blank stretch between the conversation and the
    prompt box is folded to one line."""
    kept: list[str] = []
    for row in screen.rstrip("\n").split("\n"):
        blank = not strip_ansi(row).strip()
        if blank and (not kept or not strip_ansi(kept[-1]).strip()):
            continue
        kept.append(row)
    while kept and not strip_ansi(kept[-1]).strip():
        kept.pop()
    return "\n".join(kept[-ROWS:])


def strip_ansi(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\x1b" and text[i + 1 : i + 2] == "[":
            end = i + 2
            while end < len(text) and not ("@" <= text[end] <= "~"):
                end += 1
            i = end + 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def ansi_to_html(text: str) -> str:
    """SGR escape codes (what `tmux capture-pane -e` emits) as styled spans."""
    state: dict[str, object] = {}
    out: list[str] = []
    i = 0
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append(f'<span style="{css(state)}">{html.escape("".join(run))}</span>')
            run.clear()

    for glyph, near in GLYPHS.items():
        text = text.replace(glyph, near)
    while i < len(text):
        if text[i] == "\x1b" and text[i + 1 : i + 2] == "[":
            end = i + 2
            while end < len(text) and not ("@" <= text[end] <= "~"):
                end += 1
            if text[end : end + 1] == "m":
                flush()
                apply_sgr(state, text[i + 2 : end])
            i = end + 1
            continue
        run.append(text[i])
        i += 1
    flush()
    return "".join(out)


def apply_sgr(state: dict[str, object], params: str) -> None:
    codes = [int(p) if p.isdigit() else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        code = codes[i]
        if code == 0:
            state.clear()
        elif code in (1, 2, 3, 4, 7):
            state[{1: "bold", 2: "dim", 3: "italic", 4: "underline", 7: "inverse"}[code]] = True
        elif code in (22, 23, 24, 27):
            for name in {
                22: ("bold", "dim"),
                23: ("italic",),
                24: ("underline",),
                27: ("inverse",),
            }[code]:
                state.pop(name, None)
        elif 30 <= code <= 37 or 90 <= code <= 97:
            state["fg"] = (BASIC if code < 90 else BRIGHT)[code % 10]
        elif 40 <= code <= 47 or 100 <= code <= 107:
            state["bg"] = (BASIC if code < 100 else BRIGHT)[code % 10]
        elif code in (39, 49):
            state.pop("fg" if code == 39 else "bg", None)
        elif code in (38, 48) and i + 1 < len(codes):
            key = "fg" if code == 38 else "bg"
            if codes[i + 1] == 5 and i + 2 < len(codes):
                state[key] = colour_256(codes[i + 2])
                i += 2
            elif codes[i + 1] == 2 and i + 4 < len(codes):
                state[key] = "#{:02x}{:02x}{:02x}".format(*codes[i + 2 : i + 5])
                i += 4
        i += 1


def colour_256(n: int) -> str:
    if n < 8:
        return BASIC[n]
    if n < 16:
        return BRIGHT[n - 8]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return f"#{steps[n // 36]:02x}{steps[n // 6 % 6]:02x}{steps[n % 6]:02x}"
    grey = 8 + (n - 232) * 10
    return f"#{grey:02x}{grey:02x}{grey:02x}"


def css(state: dict[str, object]) -> str:
    fg, bg = state.get("fg", FG), state.get("bg", BG)
    if state.get("inverse"):
        fg, bg = bg, fg
    parts = [f"color:{fg}", f"background:{bg}"]
    if state.get("bold"):
        parts.append("font-weight:bold")
    if state.get("dim"):
        parts.append("opacity:0.65")
    if state.get("italic"):
        parts.append("font-style:italic")
    if state.get("underline"):
        parts.append("text-decoration:underline")
    return ";".join(parts)


def render_page(panels: list[tuple[str, str]]) -> str:
    blocks = "".join(
        f'<div class="cap">{html.escape(title)}</div><pre>{ansi_to_html(body)}</pre>'
        for title, body in panels
    )
    return (
        "<!doctype html><meta charset='utf-8'><style>"
        f"body{{margin:8px;background:#111;font-family:'DejaVu Sans Mono',monospace}}"
        f"pre{{margin:0 0 8px;padding:10px 12px;background:{BG};color:{FG};font-size:14px;"
        "line-height:19px;border-radius:6px;font-family:inherit;white-space:pre}"
        ".cap{color:#9a9a9a;font:12px sans-serif;margin:2px 4px 4px}"
        f"</style>{blocks}"
    )


def screenshot(page: Path, out: Path, height: int) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={out}",
            f"--window-size=1000,{height}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


if __name__ == "__main__":
    sys.exit(main())
