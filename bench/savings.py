#!/usr/bin/env python3
"""What ccstate keeps out of real sessions (#24.5).

Makes the savings table of docs/BENCHMARKS.md; README.md quotes its shares under its
capability table.

Per corpus of recorded transcripts: `ccstate replay`'s walk (the read ledger, shell-read
notices and output digests, with the hook's own decision code and its safety checks) and
`ccstate report`'s bill (the sessions' API calls priced per model). Two shares:

- **token-turns**: the tokens ccstate would keep out times the later API calls of the same
  context and epoch that would have carried them, over every tool result's tokens so counted
  (any tool, failures included); what a session re-reads at every call;
- **bill**: those tokens priced as the report prices what ccstate keeps out (written to the
  prompt cache once, at the session's busiest model's 5-minute write price, then read by each
  later call at its cache-read price), over the report's cost of the same sessions.

Claude Code's own "file unchanged" answers (older versions) are shown apart: they are its
saving, not ccstate's. Transcripts are read, never written; the default corpora are the
shared ones beside the repository (../shared/transcripts/public and modern).

    python bench/savings.py                       # both shared corpora
    python bench/savings.py --corpus ~/.claude/projects/-home-me-app --json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
SHARED = Path(os.environ.get("CCSTATE_SHARED") or REPO.parent / "shared") / "transcripts"
CORPORA = {"public": SHARED / "public", "modern": SHARED / "modern"}


def measure(corpus: Path, jobs: int | None = None) -> dict[str, Any]:
    """The replay's and the report's figures for one corpus (see the module docstring)."""
    from ccstate.ledger import core as ledger
    from ccstate.ledger import replay
    from ccstate.outputs import core as outputs
    from ccstate.outputs import replay as outputs_replay
    from ccstate.report import builder, pricing, usage

    files = replay.transcript_files([corpus])
    opts = outputs.Options()
    opts.enabled = True
    reports = []
    digest_turns: dict[Path, tuple[int, int]] = {}
    for path in files:  # a file at a time: each file's digests priced with its session
        tally = outputs_replay.DigestTally(opts)
        reports.append(replay.replay_file(path, ledger.Options(), tally))
        digest_turns[path] = (tally.totals.total.tokens_saved, tally.totals.total.token_turns_saved)
    built = builder.build_report([usage.scan_file(p) for p in files], pricing.load_pricing())
    scope_of = {Path(f): s.scope for s in built.sessions for f in s.files}
    total = replay.Totals()
    kept_usd = 0.0
    unpriced = 0
    for report in reports:
        t = report.totals
        total.add(t)
        d_tokens, d_turns = digest_turns[report.path]
        scope = scope_of.get(report.path)
        if scope is None:
            unpriced += 1
            continue
        tokens = t.tokens_saved + t.shell_tokens_saved + d_tokens
        turns = t.token_turns_saved + t.shell_token_turns_saved + d_turns
        kept_usd += tokens * scope.write_rate + turns * scope.read_rate
    digests = sum(turns for _tokens, turns in digest_turns.values())
    kept, share = replay.kept_out_share(total, digests)
    bill = built.total.tokens.cost
    return {
        "corpus": str(corpus),
        "files": len(files),
        "api_calls": total.api_calls,
        "result_token_turns": total.result_token_turns,
        "kept_out_token_turns": kept,
        "ledger_token_turns": total.token_turns_saved,
        "shell_token_turns": total.shell_token_turns_saved,
        "digest_token_turns": digests,
        "token_turn_share": round(share, 6),
        "bill_usd": round(bill, 2),
        "kept_out_usd": round(kept_usd, 2),
        "bill_share": round(kept_usd / bill, 6) if bill else 0.0,
        "by_source": {k: v[2] for k, v in total.by_source.items()},
        "claude_code_dedupe_token_turns": total.cc_dedupe_token_turns,
        "unsafe": len(total.violations),
        "files_without_a_session": unpriced,
    }


def render(row: dict[str, Any], name: str) -> str:
    sources = ", ".join(f"{k} {v:,}" for k, v in row["by_source"].items() if v)
    return (
        f"{name}: {row['files']} transcripts, {row['api_calls']:,} API calls\n"
        f"  tool-result token-turns kept out: {row['token_turn_share']:.1%} "
        f"({row['kept_out_token_turns']:,} of {row['result_token_turns']:,}: read ledger "
        f"{row['ledger_token_turns']:,}, shell-read notices {row['shell_token_turns']:,}, "
        f"digests {row['digest_token_turns']:,})\n"
        f"  the ledger's and shell notices' token-turns by source of the text: {sources}\n"
        f"  estimated share of the bill kept out: {row['bill_share']:.1%} "
        f"(${row['kept_out_usd']:,.2f} of ${row['bill_usd']:,.2f})\n"
        f"  Claude Code's own read dedupe (not ccstate's): "
        f"{row['claude_code_dedupe_token_turns']:,} token-turns; unsafe replacements: "
        f"{row['unsafe']}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, action="append", help="a transcript folder")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    corpora = {p.name: p for p in args.corpus} if args.corpus else CORPORA
    missing = [str(p) for p in corpora.values() if not p.is_dir()]
    if missing:
        raise SystemExit(f"savings.py: no such corpus: {', '.join(missing)}")
    rows = {name: measure(path) for name, path in corpora.items()}
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("\n".join(render(row, name) for name, row in rows.items()))
    return 1 if any(row["unsafe"] for row in rows.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
