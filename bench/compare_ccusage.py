#!/usr/bin/env python3
"""Compare `ccstate report` with ccusage, session by session, on the public corpus.

Makes the parity README.md and docs/REPORT.md quote ("equal to ccusage").

    python bench/compare_ccusage.py               # ../shared/transcripts/public
    python bench/compare_ccusage.py --corpus modern   # ../shared/transcripts/modern (2.x)
    python bench/compare_ccusage.py --corpus DIR --json out.json

Both read the same files laid out as `~/.claude/projects/<slug>/<session>.jsonl` (a temporary
HOME). Token counts (input, cache write, cache read, output) must be equal for every session;
costs are shown too. For a session that differs, the script recomputes the session with other
accounting rules (every record summed, first record per message.id, dedupe only with a
requestId) and says which one reproduces ccusage's figure. Exit status 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ccusage_setup import (
    CCUSAGE_VERSION,
    CORPUS,
    ccstate_command,
    ccstate_env,
    ccusage_bin,
    ccusage_command,
    ccusage_env,
    layout,
)

FIELDS = ("input", "cache_write", "cache_read", "output")
CCUSAGE_FIELDS = ("inputTokens", "cacheCreationTokens", "cacheReadTokens", "outputTokens")


def run_json(cmd: list[str], env: dict[str, str] | None = None) -> Any:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"`{' '.join(cmd)}` failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def ccusage_sessions(data: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """(project slug, session id) -> tokens and cost, from `claude session --json`."""
    out = {}
    for s in data.get("sessions") or data.get("session") or []:
        key = (str(s.get("projectPath", "")), str(s.get("sessionId") or s.get("period")))
        out[key] = {f: int(s[c]) for f, c in zip(FIELDS, CCUSAGE_FIELDS, strict=True)}
        out[key]["cost"] = float(s.get("totalCost", 0.0))
    return out


def ccstate_sessions(data: Any) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for s in data["sessions"]:
        tokens = s["tokens"]
        out[(s["project"], s["session_id"])] = {f: tokens[f] for f in FIELDS}
        out[(s["project"], s["session_id"])]["cost"] = tokens["cost_usd"]
        out[(s["project"], s["session_id"])]["files"] = s["files"]
    return out


def alternatives(files: list[str]) -> dict[str, dict[str, int]]:
    """The session's tokens under other accounting rules, to name the one ccusage used."""
    from ccstate.transcript.lines import iter_records

    rules: dict[str, dict[str, Any]] = {
        "every assistant record summed": defaultdict(int),
        "first record per message.id": defaultdict(int),
        "the record with the most output per message.id": defaultdict(int),
        "last record per message.id (ccstate)": defaultdict(int),
        "dedupe by message.id + requestId only when both exist": defaultdict(int),
        "<synthetic> records too (ccstate leaves them out)": defaultdict(int),
    }
    first: dict[str, dict[str, int]] = {}
    last: dict[str, dict[str, int]] = {}
    most: dict[str, dict[str, int]] = {}
    seen_pairs: set[tuple[str, str]] = set()
    for name in files:
        for rec in iter_records(Path(name)):
            message = rec.get("message")
            usage = message.get("usage") if isinstance(message, dict) else None
            if rec.get("type") != "assistant" or not isinstance(usage, dict):
                continue
            assert isinstance(message, dict)
            tokens = _tokens(usage)
            if message.get("model") == "<synthetic>":  # Claude Code's own error stand-ins
                _add(rules["<synthetic> records too (ccstate leaves them out)"], tokens)
                continue
            _add(rules["every assistant record summed"], tokens)
            mid, rid = message.get("id"), rec.get("requestId")
            if mid and rid:
                if (mid, rid) not in seen_pairs:
                    _add(rules["dedupe by message.id + requestId only when both exist"], tokens)
                seen_pairs.add((mid, rid))
            else:
                _add(rules["dedupe by message.id + requestId only when both exist"], tokens)
            first.setdefault(str(mid), tokens)
            last[str(mid)] = tokens
            if tokens["output"] > most.get(str(mid), {}).get("output", -1):
                most[str(mid)] = tokens
    for tokens in first.values():
        _add(rules["first record per message.id"], tokens)
    for tokens in last.values():
        _add(rules["last record per message.id (ccstate)"], tokens)
    for tokens in most.values():
        _add(rules["the record with the most output per message.id"], tokens)
    return {name: dict(values) for name, values in rules.items()}


def _tokens(usage: dict[str, Any]) -> dict[str, int]:
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    values = [int(usage.get(k) or 0) for k in (*keys, "output_tokens")]
    return dict(zip(FIELDS, values, strict=True))


def _add(total: dict[str, int], tokens: dict[str, int]) -> None:
    for field, value in tokens.items():
        total[field] += value


def compare(corpus: Path, work: Path) -> dict[str, Any]:
    home = work / "home"
    layout(corpus, home)
    theirs = ccusage_sessions(run_json(ccusage_command(ccusage_bin()), ccusage_env(home)))
    mine = ccstate_sessions(run_json(ccstate_command(home, cache=False), ccstate_env(work)))
    rows, explanations = [], []
    for key in sorted(set(theirs) | set(mine)):
        a, b = mine.get(key), theirs.get(key)
        # a session with no usage at all (only duplicates or <synthetic> records) is one that
        # ccusage does not list: equal when ccstate counts nothing for it either
        equal = all((a or {}).get(f, 0) == (b or {}).get(f, 0) for f in FIELDS)
        rows.append(
            {"project": key[0], "session": key[1], "ccstate": a, "ccusage": b, "equal": equal}
        )
        if not equal and a is not None and b is not None:
            alt = alternatives(a["files"])
            match = [name for name, t in alt.items() if all(t.get(f) == b[f] for f in FIELDS)]
            explanations.append({"session": key[1], "ccusage_matches": match, "rules": alt})
    total_mine = {f: sum(r["ccstate"][f] for r in rows if r["ccstate"]) for f in (*FIELDS, "cost")}
    total_theirs = {
        f: sum(r["ccusage"][f] for r in rows if r["ccusage"]) for f in (*FIELDS, "cost")
    }
    return {
        "ccusage_version": CCUSAGE_VERSION,
        "corpus": str(corpus),
        "sessions": rows,
        "equal_sessions": sum(r["equal"] for r in rows),
        "totals": {"ccstate": total_mine, "ccusage": total_theirs},
        "tokens_equal": all(total_mine[f] == total_theirs[f] for f in FIELDS)
        and all(r["equal"] for r in rows),
        "explanations": explanations,
    }


def render(result: dict[str, Any]) -> str:
    lines = [f"{'session':<40} {'tokens (in / write / read / out)':>44}  cost ccstate / ccusage"]
    for row in result["sessions"]:
        mine, theirs = row["ccstate"] or {}, row["ccusage"] or {}
        tokens = " / ".join(f"{mine.get(f, '-'):,}" if mine else "-" for f in FIELDS)
        mark = "=" if row["equal"] else "DIFFERS"
        cost = f"${mine.get('cost', 0):.4f} / ${theirs.get('cost', 0):.4f}"
        lines.append(f"{row['session'][:40]:<40} {tokens:>44}  {cost}  {mark}")
    t_mine, t_theirs = result["totals"]["ccstate"], result["totals"]["ccusage"]
    lines.append("")
    for name, totals in (("ccstate", t_mine), (f"ccusage {result['ccusage_version']}", t_theirs)):
        tokens = ", ".join(f"{f} {totals[f]:,}" for f in FIELDS)
        lines.append(f"{name:>16}: {tokens}; cost ${totals['cost']:,.2f}")
    verdict = "EQUAL" if result["tokens_equal"] else "DIFFERENT"
    lines.append(
        f"tokens {verdict} on {result['equal_sessions']}/{len(result['sessions'])} sessions"
    )
    for e in result["explanations"]:
        matched = ", ".join(e["ccusage_matches"]) or "no rule tried"
        lines.append(f"  {e['session']}: ccusage's figures match: {matched}")
    return "\n".join(lines)


def corpus_dir(value: str) -> Path:
    """`public` and `modern` name the shared corpora beside CORPUS; anything else is a path."""
    return CORPUS.parent / value if value in ("public", "modern") else Path(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus",
        type=corpus_dir,
        default=CORPUS,
        help="a folder of transcripts, or `public` / `modern` (../shared/transcripts/<name>)",
    )
    parser.add_argument("--json", type=Path, help="also write the comparison here")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus}: no such corpus directory")
    with tempfile.TemporaryDirectory(prefix="ccstate-ccusage-") as work:
        result = compare(args.corpus.resolve(), Path(work))
    print(render(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if result["tokens_equal"] else 1


if __name__ == "__main__":
    sys.exit(main())
