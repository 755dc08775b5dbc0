#!/usr/bin/env python3
"""What the Grep and Glob digests leave of outputs of one shape (issue #24.3).

    python scripts/uniform_shapes.py            # the table
    python scripts/uniform_shapes.py --json

The shapes: `lib/mNN.py:N:# TODO: <word> N.N` x 500 (grouped by file as ripgrep prints them,
one match of another kind), `src/components/widgets/wNNN/index.tsx` x 500 (one README.md among
them), and the same TODO matches with every file's rows interleaved. Each output goes through
`outputs.core.digest_for` and `with_handle`, as the PostToolUse hook does; the size is the
digest the model reads (closing line included) over the original; failure lines are
checked as `ccstate replay` checks them. Run it against another
checkout's sources (`PYTHONPATH=<checkout>/src`) to compare.
"""

from __future__ import annotations

import argparse
import json
import random

from ccstate.outputs import core, lines, replay

WORDS = ("parse", "load", "cache", "retry", "split", "render", "merge", "flush", "index", "guard")


def todo_grep(n: int = 500, *, grouped: bool = True) -> str:
    r = random.Random(1)
    rows = []
    for i in range(n):
        f = i * 100 // n if grouped else i % 100
        rows.append(
            f"lib/m{f:02d}.py:{3 * (i % 5) + r.randint(1, 3)}:"
            f"# TODO: {r.choice(WORDS)} {r.randint(1, 9)}.{r.randint(0, 9)}"
        )
    rows[n // 2] = f'lib/m{rows[n // 2][5:7]}.py:77:raise NotImplementedError("v2 wire format")'
    return "\n".join(rows)


def widget_glob(n: int = 500) -> str:
    rows = [f"src/components/widgets/w{i:03d}/index.tsx" for i in range(n)]
    rows[n // 5] = "src/components/widgets/README.md"
    return "\n".join(rows)


SHAPES = {
    "Grep: TODO x 500, grouped by file": ("Grep", todo_grep()),
    "Grep: TODO x 500, files interleaved": ("Grep", todo_grep(grouped=False)),
    "Glob: widgets x 500": ("Glob", widget_glob()),
}


def measure() -> list[dict[str, object]]:
    out = []
    for name, (tool, text) in SHAPES.items():
        body = core.digest_for(tool, text)
        seen = (
            core.with_handle(body, text, "/p/.ccstate/out/0123456789abcdef.txt") if body else text
        )
        kept = replay._kept_lines(body) if body else set(text.split("\n"))  # as replay checks
        lost = [line for line in lines.failure_lines(text.split("\n")) if line not in kept]
        out.append(
            {
                "shape": name,
                "chars": len(text),
                "digest_chars": len(seen),
                "share": round(len(seen) / len(text), 3),
                "how": body.how if body else None,
                "failure_lines_lost": len(lost),
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    rows = measure()
    if parser.parse_args().json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'shape':<38} {'chars':>7} {'digest':>7} {'share':>6}  how / lost failure lines")
    for row in rows:
        print(
            f"{row['shape']:<38} {row['chars']:>7,} {row['digest_chars']:>7,} "
            f"{row['share']:>6.1%}  {row['how']} / {row['failure_lines_lost']}"
        )


if __name__ == "__main__":
    main()
