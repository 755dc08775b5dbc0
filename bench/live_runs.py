#!/usr/bin/env python3
"""Live runs with a thinking model in the loop, summed: requests, token-turns, what was read.

Makes docs/CLAUDE-MD.md's table of live runs.

    python bench/live_runs.py RUN_DIR [RUN_DIR ...]        # a table, one row per run
    python bench/live_runs.py --markdown RUN_DIR ...

Each RUN_DIR is an OUT_DIR of `../shared/live/run.py` (the real Claude Code CLI, its model a
live responder through the bridge): `summary.json` (the arm, loop requests, token-turns = the
sum of each request's size in chars / 4) and `bridge/resp_N.json` (the responder's tool calls).
Per run: the arm, requests, token-turns, the first request's size, the files Read, the
commands run. docs/CLAUDE-MD.md quotes the #39 runs (more-itertools, a planted off-by-one in
`windowed`) and says how they were made.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path


def runs(folder: Path) -> dict[str, object]:
    summary = json.loads((folder / "summary.json").read_text())
    bridge = folder / "bridge"
    first = json.loads((bridge / "req_1.json").read_text())
    calls = []
    numbered = sorted(bridge.glob("resp_*.json"), key=lambda p: int(re.sub(r"\D", "", p.name)))
    for path in numbered:
        for use in json.loads(path.read_text()).get("tool_uses", []):
            calls.append((use.get("name"), use.get("input", {})))
    ws = str(folder.resolve() / "ws") + "/"
    reads = [str(i.get("file_path", "")).replace(ws, "") for n, i in calls if n == "Read"]
    bashes = [str(i.get("command", ""))[:60] for n, i in calls if n == "Bash"]
    return {
        "run": folder.name,
        "arm": summary["arm"],
        "requests": summary["loop_requests"],
        "token_turns": summary["token_turns"],
        "first_request": len(json.dumps(first)) // 4,
        "reads": reads,
        "commands": bashes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    rows = [runs(folder) for folder in args.runs]
    if args.markdown:
        print("| run | arm | requests | token-turns | first request | Read | Bash |")
        print("|---|---|---|---|---|---|---|")
    for r in rows:
        reads, commands = ", ".join(r["reads"]), "; ".join(r["commands"])  # type: ignore[arg-type]
        if args.markdown:
            commands = commands.replace("|", "\\|")
        if args.markdown:
            print(
                f"| {r['run']} | {r['arm']} | {r['requests']} | {r['token_turns']:,} | "
                f"{r['first_request']:,} | {reads} | `{commands}` |"
            )
        else:
            print(
                f"{r['run']:8} {r['arm']:8} {r['requests']:>3} {r['token_turns']:>8,} "
                f"{r['first_request']:>7,}  reads: {reads}  bash: {commands}"
            )
    for arm in sorted({str(r["arm"]) for r in rows}):
        mine = [r for r in rows if r["arm"] == arm]
        mean_req = sum(r["requests"] for r in mine) / len(mine)  # type: ignore[misc]
        mean_tt = sum(r["token_turns"] for r in mine) / len(mine)  # type: ignore[misc]
        print(f"{arm}: {len(mine)} runs, mean {mean_req:.2f} requests, {mean_tt:,.0f} token-turns")


if __name__ == "__main__":
    main()
