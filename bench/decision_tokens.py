#!/usr/bin/env python3
"""Tokens spent restating each active decision vs citing it by ID (issue #5).

Makes the restated-vs-cited figures README.md and docs/DECISIONS-FORMAT.md quote.

"Restated" is what an agent writes when it repeats a decision: its title, context,
decision and consequences. "Cited" is `D4 (DECISIONS.md)`; "+title" adds `: <title>`.
Also prints what the SessionStart capsule's decision index costs for the file.
Counts come from ccstate.tokens (tiktoken's offline cl100k_base, an estimate of
Claude's tokenizer).

Example:
    python bench/decision_tokens.py                      # the test fixture
    python bench/decision_tokens.py path/to/DECISIONS.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from ccstate import paths, tokens
from ccstate.decisions import capsule
from ccstate.decisions import log as decisions

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "decisions" / "canonical" / "log.md"


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else FIXTURE
    log = decisions.parse_log(path.read_text(encoding="utf-8"))
    exact = True
    total_restated = total_cited = total_titled = 0
    print(f"{'id':<5} {'restated':>8} {'cited':>6} {'+title':>6}  title")
    for d in sorted(log.decisions(), key=lambda d: d.number):
        if d.status != "active":
            continue
        parts = (d.title + ".", d.context, d.decision, d.consequences)
        restated, ok1 = tokens.count_tokens("\n\n".join(p for p in parts if p))
        citation = f"{d.id} ({paths.DECISIONS_NAME})"
        cited, ok2 = tokens.count_tokens(citation)
        titled, ok3 = tokens.count_tokens(f"{citation}: {d.title}")
        exact = exact and ok1 and ok2 and ok3
        total_restated += restated
        total_cited += cited
        total_titled += titled
        print(f"{d.id:<5} {restated:>8} {cited:>6} {titled:>6}  {d.title}")
    print(f"{'all':<5} {total_restated:>8} {total_cited:>6} {total_titled:>6}")
    index = "\n".join(capsule.capsule_lines(capsule.summarize(log), 10))
    index_tokens, ok4 = tokens.count_tokens(index)
    print(f"capsule decision index: {index_tokens} tokens, {len(index)} chars")
    print("tokenizer: " + ("cl100k_base (offline)" if exact and ok4 else "estimate chars/4"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
