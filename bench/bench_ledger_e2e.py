#!/usr/bin/env python3
"""Input tokens the model is sent in a scripted 36-tool-call session, with and without ccstate.

Makes the read ledger's real-CLI figure (issue #3) docs/LEDGER.md quotes.

Runs the real Claude Code CLI (the pinned e2e binary) against the fake API three times with the
same script (tests/e2e/ledger_scenario.py): without ccstate, with the ccstate plugin but the read
ledger off (CCSTATE_DEDUPE=0), and with ccstate. Each total is tiktoken
(`ccstate.tokens.count_tokens`) over the JSON of every agent request's `messages`, summed over the
requests (main thread and subagent). Issue #3 asks for >= 25 % fewer with ccstate than without;
the exit status is 1 when that does not hold.

Example:
    python bench/bench_ledger_e2e.py
    python bench/bench_ledger_e2e.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))

import ledger_scenario as sc  # noqa: E402
from claude_runner import CLAUDE_VERSION, PACKAGE, run_claude  # noqa: E402
from fake_api import FakeAnthropic  # noqa: E402

TARGET = 0.25


def claude_binary() -> Path:
    cache = Path(os.environ.get("CCSTATE_E2E_CACHE") or Path.home() / ".cache" / "ccstate-e2e")
    folder = cache / f"claude-{CLAUDE_VERSION}" / "node_modules" / PACKAGE / "bin"
    for name in ("claude.exe", "claude"):
        if (folder / name).is_file():
            return folder / name
    raise SystemExit(f"no claude {CLAUDE_VERSION} under {folder}: run the e2e tests once first")


def run(label: str, plugin: bool, env_extra: dict[str, str], tmp: Path, binary: Path) -> int:
    project = tmp / label / "project"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True)
    files = sc.make_files(project)
    home = tmp / label / "home"
    home.mkdir()
    with FakeAnthropic(sc.full_script(files)) as api:
        _proc, result = run_claude(
            binary,
            "work through the files",
            cwd=project,
            home=home,
            api_url=api.url,
            plugin_dir=REPO if plugin else None,
            env_extra=env_extra,
            timeout=600,
        )
        if result is None or result.get("result") != "MAIN DONE" or api.remaining_steps():
            raise SystemExit(f"{label}: the scripted session did not complete")
        return sc.input_tokens(api.agent_requests())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the totals as JSON")
    args = parser.parse_args(argv)
    binary = claude_binary()
    # ignore_cleanup_errors: the plugin may still be building its venv in the temp HOME
    with tempfile.TemporaryDirectory(
        prefix="ccstate-ledger-bench-", ignore_cleanup_errors=True
    ) as tmp:
        totals = {
            "without_ccstate": run("without", False, {}, Path(tmp), binary),
            "ccstate_ledger_off": run("off", True, {"CCSTATE_DEDUPE": "0"}, Path(tmp), binary),
            "with_ccstate": run("with", True, {}, Path(tmp), binary),
        }
    saved = 1 - totals["with_ccstate"] / totals["without_ccstate"]
    calls = sc.tool_calls({k: Path(k) for k in ("core", "utils", "notes", "copy")})
    report = {**totals, "tool_calls": calls, "fewer": round(saved, 4), "target": TARGET}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"scripted session: {report['tool_calls']} tool calls; input tokens (tiktoken over")
        print("the JSON of every agent request's messages, summed):")
        print(f"  without ccstate            {totals['without_ccstate']:>10,}")
        print(f"  ccstate, ledger off        {totals['ccstate_ledger_off']:>10,}")
        print(f"  with ccstate               {totals['with_ccstate']:>10,}")
        print(f"  fewer with ccstate         {saved:>10.1%}  (target >= {TARGET:.0%})")
    return 0 if saved >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
