#!/usr/bin/env python3
"""How long the lines of bulky tool results are: the data behind `digest.LONG_LINE` (#15).

Walks transcripts as `ccstate replay` does and takes every result the PostToolUse hook would
look at for a digest (Bash but not shell reads, Grep in content mode, Glob, WebFetch, MCP; over
`outputs.min_chars`; not failed). Prints how many of their lines are longer than each limit,
and each line over 1,000 characters with its tool, whether it is a failure line (which a digest
keeps whole) and how it starts.

Example:
    python scripts/output_line_lengths.py ../shared/transcripts/public
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ccstate.ledger import core as ledger
from ccstate.ledger import replay
from ccstate.outputs import core, lines
from ccstate.outputs import replay as outputs_replay

LIMITS = (500, 1_000, 1_500, 2_000, 3_000, 5_000)
SHOWN = 1_000


class Lengths:
    """A replay observer that keeps each line of each result the hook would digest."""

    def __init__(self) -> None:
        self.opts = core.Options()
        self.lines: list[tuple[int, str, str]] = []  # (length, tool, line)

    def api_call(self, key: str) -> None:
        pass

    def new_epoch(self, key: str) -> None:
        pass

    def result(
        self, key: str, name: str, tool_input: dict[str, Any], seen: str, extra: Any, cwd: str
    ) -> None:
        if not self.opts.wants(name):
            return
        text = outputs_replay._hook_text(name, tool_input, seen, extra)
        if text is None or len(text) < self.opts.min_chars:
            return
        label = outputs_replay.tool_label(name)
        self.lines += [(len(line), label, line) for line in lines.normalize(text)]


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    seen = Lengths()
    replay.replay([Path(a) for a in argv[1:]], ledger.Options(), seen)
    print(f"{len(seen.lines):,} lines in the results a digest would look at")
    for limit in LIMITS:
        print(f"  longer than {limit:>5,}: {sum(1 for n, _, _ in seen.lines if n > limit):,}")
    print(f"every line over {SHOWN:,} characters (length, tool, failure line, start):")
    for n, tool, line in sorted((x for x in seen.lines if x[0] > SHOWN), key=lambda x: -x[0]):
        failure = "failure" if lines.is_failure_line(line) else "-"
        print(f"  {n:>7,} {tool:<8} {failure:<7} {line[:70]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
