#!/usr/bin/env python3
"""The status line's "kept out" (the Stop/SessionEnd hooks' counter, moments/kept.py) next to
the report's applied figure (`report.applied.kept_out_as_applied`, #24.4) and the read
ledger's own count (what the line showed before) for one scripted session in the real CLI,
and what computing the applied figure would cost a status-line process itself.

A session of four Reads and a `cat` (a whole file twice, a 2,000-line file, then a range of
it, then a shell read of the first) runs in the pinned Claude Code against the fake API with
ccstate's project hooks; then both figures are read for it, and a fresh interpreter times
`import ccstate.report.summary` (what the applied figure needs before it parses a line).

    python="$(bash scripts/test.sh --venv)/bin/python"
    "$python" scripts/kept_out_sources.py
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
sys.path.insert(0, str(REPO / "tests" / "e2e"))  # the e2e harness, imported by path
sys.path.insert(0, str(REPO / "src"))

from claude_runner import PACKAGE, run_claude, transcript_path  # noqa: E402
from fake_api import FakeAnthropic, text, tool_use  # noqa: E402

from ccstate.install.wiring import TESTED_CLAUDE  # noqa: E402
from ccstate.moments.kept import session_kept  # noqa: E402
from ccstate.report.applied import kept_out_as_applied  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claude-version", default=TESTED_CLAUDE[-1])
    args = parser.parse_args()
    cache = Path(os.environ.get("CCSTATE_E2E_CACHE") or Path.home() / ".cache" / "ccstate-e2e")
    claude = cache / f"claude-{args.claude_version}" / "node_modules" / PACKAGE / "bin"
    claude = claude / "claude.exe"
    if not claude.is_file():
        raise SystemExit(f"kept_out_sources: no Claude Code at {claude} (bash scripts/test.sh)")
    with tempfile.TemporaryDirectory(prefix="ccstate-kept-") as tmp:
        applied, ledger, line, replacements = session(claude, Path(tmp))
    print(f"Claude Code {args.claude_version}: four Reads and a cat")
    print(f"  report's applied figure: {applied:,} tokens ({replacements} replacements)")
    print(f"  the status line's counter: {line:,} tokens")
    print(f"  read ledger's own count (the line's figure before): {ledger:,} tokens")
    for run in (1, 2, 3):
        print(f"  import ccstate.report.summary, fresh process {run}: {import_ms():.0f} ms")
    return 0


def session(claude: Path, tmp: Path) -> tuple[int, int, int, int]:
    home, project = tmp / "home", tmp / "project"
    home.mkdir()
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    small, big = project / "app.py", project / "big.py"
    small.write_text("".join(f"def handler_{i}(request):\n    return {i}\n\n" for i in range(300)))
    big.write_text("".join(f"x_{i} = {i}  # a line\n" for i in range(2000)))
    cli = Path(sys.executable).with_name("ccstate")
    env = {**os.environ, "HOME": str(home)}
    subprocess.run([str(cli), "init", "-C", str(project)], env=env, check=True, capture_output=True)
    script = [
        tool_use("Read", {"file_path": str(small)}),
        tool_use("Read", {"file_path": str(small)}),
        tool_use("Read", {"file_path": str(big)}),
        tool_use("Read", {"file_path": str(big), "offset": 100, "limit": 50}),
        tool_use("Bash", {"command": f"cat {small}"}),
        text("done"),
    ]
    with FakeAnthropic(script) as api:
        run = run_claude(claude, "read them", cwd=project, home=home, api_url=api.url)
    if run.result is None:
        raise SystemExit(run.describe())
    sid = str(run.result["session_id"])
    lines = transcript_path(home, project, sid).read_text().splitlines()
    kept = kept_out_as_applied([json.loads(line) for line in lines if line.strip()])
    state = project / ".ccstate"
    counted = session_kept(str(state), sid, str(transcript_path(home, project, sid)))
    line = counted.tokens if counted is not None else -1  # -1: no counter written
    return kept.tokens, ledger_count(state / "ledger" / sid), line, kept.replacements


def ledger_count(folder: Path) -> int:
    """The read ledger's `stats.saved_chars` over the session's contexts, in tokens (/ 4)."""
    chars = sum(
        json.loads(path.read_text()).get("stats", {}).get("saved_chars", 0)
        for path in folder.glob("*.json")
    )
    return -(-chars // 4)


def import_ms() -> float:
    code = (
        "import time; t = time.perf_counter(); import ccstate.report.summary; "
        "print((time.perf_counter() - t) * 1000)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return float(out.stdout.strip())


if __name__ == "__main__":
    sys.exit(main())
