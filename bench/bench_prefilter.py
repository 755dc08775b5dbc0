#!/usr/bin/env python3
"""What choosing the redaction rules costs recall, with and without the one-pass search (D13).

Makes the prefilter's cost (D13) docs/RECALL.md and docs/RELIABILITY.md quote.

    python bench/bench_prefilter.py                 # ../shared/transcripts/public, 7 rounds
    python bench/bench_prefilter.py --corpus DIR --rounds 11

Builds every moment recall indexes from the corpus (title and body joined by a line with a
NUL, as one text; since #23 `extract._row` redacts them each alone), then times
`clues.Prefilter.candidates` over all of them, in one process, in CPU time (the minimum over
the rounds, the two ways interleaved within a round):

- one pass:       the prefilter as redaction builds it (ahocorasick-rs installed: `_Scan`)
- in per string:  the same rules with `accelerate=False` (a python3 without ahocorasick-rs)
- redact:         `Redactor.redact` on every text (the rule choice, then the chosen rules)

It fails when the two ways choose different rules for any text. docs/RECALL.md quotes it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ccstate.recall import moments, reader, sources  # noqa: E402
from ccstate.secrets import clues, redact  # noqa: E402

CORPUS = REPO.parent / "shared" / "transcripts" / "public"


def moment_texts(corpus: Path, separator: str = "\x00\n") -> list[str]:
    """Title and body of every moment recall builds from `corpus`, joined by `separator`
    (tests/secrets/test_clues.py uses it too)."""
    texts = []
    for path in sorted(corpus.glob("*.jsonl")):
        scan = moments.TranscriptMoments(sources.transcript_source(path).session)
        for line, record in reader.iter_records(path, reader.Cursor(), skip=scan.skip_line):
            scan.feed(line, record)
        scan.finish()
        texts += [f"{m.title}{separator}{m.body}" for m in scan.drain()]
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus} is absent (the shared corpus of public transcripts)")
    texts = moment_texts(args.corpus)
    rules = redact._rules()
    gates = [redact._needs(r) for r in rules]  # as redaction builds its prefilter
    patterns = redact.prefilter_patterns(rules)
    fast = clues.Prefilter(patterns, gates)
    slow = clues.Prefilter(patterns, gates, accelerate=False)
    if not fast.accelerated:
        raise SystemExit("ahocorasick-rs is not installed: nothing to compare")
    differ = sum(fast.candidates(t) != slow.candidates(t) for t in texts)
    if differ:
        raise SystemExit(f"{differ} texts get other rules from the one pass: a bug")
    redact.prepare()
    redactor = redact.Redactor()
    ways: dict[str, Callable[[], object]] = {
        "one pass": lambda: [fast.candidates(t) for t in texts],
        "in per string": lambda: [slow.candidates(t) for t in texts],
        "redact": lambda: [redactor.redact(t) for t in texts],
    }
    best = dict.fromkeys(ways, float("inf"))
    for _round in range(args.rounds):
        for name, way in ways.items():
            started = time.process_time()
            way()
            best[name] = min(best[name], time.process_time() - started)
    chars = sum(map(len, texts))
    print(f"{len(texts):,} moment texts ({chars / 1e6:.2f} M characters) from {args.corpus}")
    for name, seconds in best.items():
        print(
            f"  {name:14} {seconds * 1000:7.1f} ms CPU ({seconds / len(texts) * 1e6:.1f} us a text)"
        )
    ratio = best["one pass"] / best["in per string"]
    print(f"one pass / in per string: {ratio:.2f} (the same rules for all {len(texts):,} texts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
