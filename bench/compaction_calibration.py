#!/usr/bin/env python3
"""How well the compaction advice's model predicts the compactions the corpora really hold.

Makes the calibration docs/REPORT.md quotes ("Compaction advice"); its medians are
report/compact_advice.py's defaults (tests/report/test_compact_advice.py).

    python bench/compaction_calibration.py                 # ../shared/transcripts/{public,modern}
    python bench/compaction_calibration.py --corpus DIR [--corpus DIR ...]

For each real compaction (report/compactions.py reads them), leave it out and predict from the
others, as `ccstate report --advice` does from a user's own (report/compact_advice.py): its
summary size (the others' median) and the context after it (the session's fixed prefix + that
summary + the others' median remainder: what Claude Code keeps or attaches again). Prints
each one predicted vs observed, the mean and median absolute error, the medians over all of
them (compact_advice.py's defaults; a test keeps the two equal), and the model's error on
each corpus's main-conversation calls as billed. docs/REPORT.md quotes the output.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ccstate.report import compact_advice, pricing, scan, summary  # noqa: E402
from ccstate.report.compactions import est_tokens  # noqa: E402

SHARED = REPO.parent / "shared" / "transcripts"


def compactions(report: summary.Report) -> list[dict[str, Any]]:
    rows = []
    for s in report.sessions:
        for cost, fixed in zip(s.scope.compactions, s.compaction_fixed, strict=False):
            c = cost.compaction
            if cost.carried_after is None or not c.summary_chars:
                continue
            summary_tokens = est_tokens(c.summary_chars)
            rows.append(
                {
                    "session": s.session_id[:36],
                    "pre": c.pre_tokens,
                    "fixed": fixed,
                    "summary": summary_tokens,
                    "post": cost.carried_after,
                    "remainder": max(0, cost.carried_after - fixed - summary_tokens),
                    "reread": cost.reread_tokens,
                }
            )
    return rows


def leave_one_out(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, row in enumerate(rows):
        others = rows[:i] + rows[i + 1 :]
        if not others:
            continue
        summary_ = int(statistics.median(r["summary"] for r in others))
        remainder = int(statistics.median(r["remainder"] for r in others))
        post = row["fixed"] + summary_ + remainder
        out.append({**row, "summary_pred": summary_, "post_pred": post})
    return out


def _error(predicted: int, observed: int) -> float:
    return abs(predicted - observed) / observed if observed else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", type=Path)
    args = parser.parse_args(argv)
    corpora = args.corpus or [SHARED / "public", SHARED / "modern"]
    table = pricing.load_pricing(None)
    rows: list[dict[str, Any]] = []
    for corpus in corpora:
        files = scan.select_transcripts((corpus,), None, False, REPO, {})
        report = scan.report_all(files, None, table, use_cache=False)
        found = compactions(report)
        advice = summary.compaction_advice(report)
        print(
            f"{corpus}: {len(report.sessions)} sessions, {len(found)} compactions; the model "
            f"prices the main conversations at ${advice.observed.usd:,.2f}, billed "
            f"${advice.billed:,.2f} (error {advice.model_error:.1%})"
        )
        rows += found
    if len(rows) < 2:
        print("fewer than two compactions: nothing to calibrate on")
        return 0
    predicted = leave_one_out(rows)
    print()
    print(
        "| session | context before | summary: predicted / observed | after: predicted / observed |"
    )
    print("|---|---:|---:|---:|")
    for r in predicted:
        print(
            f"| {r['session']} | {r['pre']:,} | {r['summary_pred']:,} / {r['summary']:,} | "
            f"{r['post_pred']:,} / {r['post']:,} |"
        )
    summary_err = [_error(r["summary_pred"], r["summary"]) for r in predicted]
    post_err = [_error(r["post_pred"], r["post"]) for r in predicted]
    print()
    print(
        f"summary size, leave-one-out: mean absolute error {statistics.mean(summary_err):.0%}, "
        f"median {statistics.median(summary_err):.0%} ({len(predicted)} compactions)"
    )
    print(
        f"context after the compaction: mean absolute error {statistics.mean(post_err):.0%}, "
        f"median {statistics.median(post_err):.0%}"
    )
    medians = {
        "summary": int(statistics.median(r["summary"] for r in rows)),
        "remainder": int(statistics.median(r["remainder"] for r in rows)),
        "reread": int(statistics.median(r["reread"] for r in rows)),
    }
    print(
        f"medians over all (compact_advice.py's defaults): summary {medians['summary']:,}, "
        f"remainder {medians['remainder']:,}, re-read {medians['reread']:,} tokens"
    )
    defaults = (
        compact_advice.DEFAULT_SUMMARY,
        compact_advice.DEFAULT_REMAINDER,
        compact_advice.DEFAULT_REREAD,
    )
    if defaults != tuple(medians.values()):
        print(f"note: compact_advice.py's defaults are {defaults}: update them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
