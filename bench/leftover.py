#!/usr/bin/env python3
"""What ccstate leaves in full in recorded sessions, and why (#24): where savings could come from.

Makes docs/OUTPUTS.md's "What stays in full" tables; docs/BENCHMARKS.md points to it.

The same walk as `ccstate replay` and `bench/savings.py` (the hook's own decision code: the
read ledger, shell-read notices, output digests), with every tool result followed on its own:
its tokens, the later API calls of its context and epoch that carry it (token-turns), what
ccstate keeps out of it, and why the rest stays:

- `failed`: a failed call (PostToolUseFailure cannot shape its output, docs/OUTPUTS.md);
- `under min_chars`: a digestible tool's output below `outputs.min_chars`;
- `digest keeps`: what the digest of a digested output still holds;
- `not digested`: a digestible output with no digest worth sending;
- `read: new to the context` / `read: held elsewhere`: a Read's text the context had not
  received, or had received only in another context or an earlier epoch (a resumed or
  parallel session, a worktree of the same repository, before a compaction): not provable, so
  served in full;
- `not shaped`: a tool ccstate never replaces (Edit, Write, Agent, TodoWrite...).

    python bench/leftover.py                      # both shared corpora
    python bench/leftover.py --top 30 ../shared/transcripts/public

The totals equal replay's (`tests/test_leftover_script.py` checks). Diagnostic only: it
prints commands and paths of the transcripts (with --top), never writes anything.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
SHARED = Path(os.environ.get("CCSTATE_SHARED") or REPO.parent / "shared") / "transcripts"

from ccstate import tokens  # noqa: E402
from ccstate.ledger import core as ledger  # noqa: E402
from ccstate.ledger import replay  # noqa: E402
from ccstate.outputs import core as outputs  # noqa: E402
from ccstate.outputs import replay as outputs_replay  # noqa: E402
from ccstate.transcript.content import message_content  # noqa: E402
from ccstate.transcript.lines import ReadStats  # noqa: E402
from ccstate.transcript.runs import iter_fast_records  # noqa: E402

DIGESTIBLE = ("Bash", "Grep", "Glob", "WebFetch")


@dataclass
class Result:
    tool: str
    label: str  # the command, path or pattern (for --top)
    failed: bool
    chars: int
    tokens: int
    body: str  # a Read's text without its line numbers ("" for other tools)
    held_key: tuple[str, int]  # (context, epoch)
    turns: int = 0
    saved: int = 0  # tokens kept out of it
    mark: int = 0  # the context's open savings when it arrived

    @property
    def left(self) -> int:
        return (self.tokens - self.saved) * self.turns


class _Walk(replay._Simulation):
    """replay's simulation, following each tool result (see the module docstring)."""

    def __init__(self, opts: ledger.Options, tally: outputs_replay.DigestTally, name: str):
        super().__init__(opts, tally, name)
        self.tally = tally
        self.results: list[Result] = []
        self._calls: list[tuple[str, dict[str, Any], bool]] = []
        self._open: dict[int, list[Result]] = defaultdict(list)
        self._current: Result | None = None

    def _saved_now(self, ctx: replay._Context) -> int:
        digests = self.tally._open.get(self._observed(ctx), ())
        return ctx.open_saved + ctx.open_shell_saved + sum(saved for _, saved in digests)

    def _close(self, ctx: replay._Context) -> None:
        if self._current is not None:
            self._current.saved = self._saved_now(ctx) - self._current.mark
            self._current = None

    def _user(self, record: dict[str, Any], ctx: replay._Context) -> None:
        self._calls = []
        for block in message_content(record):
            if block.get("type") == "tool_result":
                call = self.pending.get(str(block.get("tool_use_id")))
                name, tool_input = (call[0], call[1]) if call else ("?", {})
                self._calls.append((name, tool_input, bool(block.get("is_error"))))
        super()._user(record, ctx)
        self._close(ctx)

    def _result_tokens(self, ctx: replay._Context, seen: str) -> None:
        self._close(ctx)
        name, tool_input, failed = self._calls.pop(0) if self._calls else ("?", {}, False)
        count = tokens.count_tokens(seen)[0] if seen else 0
        body = "\n".join(line.split("\t", 1)[-1] for line in seen.split("\n"))
        key = (self._observed(ctx), ctx.ledger.epoch)
        one = Result(
            name,
            _label(tool_input),
            failed,
            len(seen),
            count,
            body if name == "Read" else "",
            key,
            mark=self._saved_now(ctx),
        )
        self.results.append(one)
        self._open[id(ctx)].append(one)
        self._current = one
        super()._result_tokens(ctx, seen)

    def _assistant(self, record: dict[str, Any], ctx: replay._Context, key: str) -> None:
        calls = self.totals.api_calls
        super()._assistant(record, ctx, key)
        if self.totals.api_calls > calls:
            for one in self._open[id(ctx)]:
                one.turns += 1

    def _new_epoch(self, ctx: replay._Context, reason: str) -> None:
        super()._new_epoch(ctx, reason)
        self._open[id(ctx)] = []


def _label(tool_input: dict[str, Any]) -> str:
    for key in ("command", "file_path", "pattern", "url", "query"):
        if isinstance(tool_input.get(key), str):
            return " ".join(tool_input[key].split())[:100]
    return ""


def walk(paths: list[Path]) -> tuple[list[Result], replay.Totals, int]:
    """Every tool result of the transcripts, the replay's totals and its digests' token-turns."""
    results: list[Result] = []
    total = replay.Totals()
    digest_turns = 0
    for path in replay.transcript_files(paths):
        opts = outputs.Options()
        opts.enabled = True
        tally = outputs_replay.DigestTally(opts)
        sim = _Walk(ledger.Options(), tally, str(path))
        for record in iter_fast_records(path, ReadStats()):
            sim.feed(record)
        total.add(sim.finish())
        digest_turns += tally.totals.total.token_turns_saved
        results += sim.results
    return results, total, digest_turns


def reasons(results: list[Result], min_chars: int) -> list[tuple[Result, str]]:
    """Each result with why what is left of it stays (the module docstring's words)."""
    held: dict[str, set[tuple[str, int]]] = defaultdict(set)  # a Read's text -> where
    out = []
    for one in results:
        digestible = one.tool in DIGESTIBLE or one.tool.startswith("mcp__")
        if one.failed:
            why = "failed"
        elif one.tool == "Read":
            where = held[one.body]
            why = "read: held elsewhere" if where - {one.held_key} else "read: new to the context"
            where.add(one.held_key)
        elif not digestible:
            why = "not shaped"
        elif one.saved:
            why = "digest keeps"
        elif one.chars < min_chars:
            why = "under min_chars"
        else:
            why = "not digested"
        out.append((one, why))
    return out


def _tool(name: str) -> str:
    return outputs_replay.tool_label(name)


def report(name: str, results: list[Result], total: replay.Totals, top: int) -> None:
    grand = sum(one.tokens * one.turns for one in results)
    kept = sum(one.saved * one.turns for one in results)
    print(
        f"{name}: {len(results):,} tool results, {grand:,} token-turns, "
        f"kept out {kept:,} ({kept / max(grand, 1):.1%}); replay: {total.result_token_turns:,}"
    )
    by_tool: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    by_why: dict[tuple[str, str], int] = defaultdict(int)
    rows = reasons(results, outputs.Options().min_chars)
    for one, why in rows:
        row = by_tool[_tool(one.tool)]
        row[0] += 1
        row[1] += one.tokens * one.turns
        row[2] += one.left
        by_why[(_tool(one.tool), why)] += one.left
    print(f"  {'tool':<14}{'results':>8}{'token-turns':>14}{'left in full':>14}  why it stays")
    for tool, (n, turns, left) in sorted(by_tool.items(), key=lambda kv: -kv[1][2])[:14]:
        whys = sorted(((v, w) for (t, w), v in by_why.items() if t == tool and v), reverse=True)
        said = "; ".join(f"{w} {v:,}" for v, w in whys)
        print(f"  {tool:<14}{n:>8,}{turns:>14,}{left:>14,}  {said}")
    for one, why in sorted(rows, key=lambda r: -r[0].left)[:top]:
        print(
            f"    {one.left:>10,}  {_tool(one.tool):<9} {one.tokens:>6,} tok x {one.turns:>3}  "
            f"{why:<24} {one.label}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="*", type=Path)
    parser.add_argument("--top", type=int, default=0, help="list the N largest results left")
    args = parser.parse_args()
    corpora = {str(p): p for p in args.corpus} or {n: SHARED / n for n in ("public", "modern")}
    for name, path in corpora.items():
        if not path.exists():
            print(f"{name}: {path} not found", file=sys.stderr)
            continue
        results, total, _digests = walk([path])
        report(name, results, total, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
