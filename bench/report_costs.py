#!/usr/bin/env python3
"""What one copy of the corpus costs a cold `ccstate report`, phase by phase, in CPU time.

Makes docs/BENCHMARKS.md's per-phase CPU table.

    python bench/report_costs.py                    # ../shared/transcripts/public, 7 rounds
    python bench/report_costs.py --corpus DIR --rounds 11

One process, no workers: each phase is the one before it plus one more step, timed with
`time.process_time` (the minimum over the rounds, the phases interleaved within a round):

- lines:     `transcript.runs.iter_line_runs`, then a find per line (the file read into lines)
- checks:    `transcript.runs.iter_light_records` with a decoder that builds nothing
- decode:    `transcript.runs.iter_light_records` (orjson on what the report reads)
- scan:      `usage.scan_file` (the decode, then the accounting)
- msgspec:   when msgspec is importable (not a dependency), `scan` with the records decoded
             by msgspec into TypedDicts naming only the keys the report reads, for comparison

docs/BENCHMARKS.md quotes it ("Report sessions built in the workers").
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ccstate.report import usage  # noqa: E402
from ccstate.transcript import runs as transcript_runs  # noqa: E402

CORPUS = REPO.parent / "shared" / "transcripts" / "public"


# What the report reads of a record, for msgspec (which skips the other keys undecoded).
class _Input(TypedDict, total=False):
    file_path: Any
    offset: Any
    limit: Any
    command: Any


class _Part(TypedDict, total=False):
    type: Any
    text: Any


class _Block(TypedDict, total=False):
    type: Any
    id: Any
    name: Any
    input: _Input
    tool_use_id: Any
    content: str | list[_Part] | None
    text: Any
    is_error: Any


class _Message(TypedDict, total=False):
    id: Any
    model: Any
    content: str | list[_Block] | None
    usage: Any


class _Record(TypedDict, total=False):
    type: Any
    timestamp: Any
    version: Any
    agentId: Any
    isSidechain: Any
    parentUuid: Any
    message: _Message
    cwd: Any
    isMeta: Any
    isCompactSummary: Any
    subtype: Any
    effort: Any
    requestId: Any
    compactMetadata: Any
    hookInfos: Any
    content: Any
    attachment: Any


def phases(files: list[Path]) -> dict[str, Callable[[], None]]:
    def lines() -> None:
        for f in files:
            for buf, pos, end, _first in transcript_runs.iter_line_runs(f):
                while (nl := buf.find(b"\n", pos, end)) >= 0:
                    pos = nl + 1

    def read(loads: Callable[[], Callable[[Any], Any]]) -> Callable[[], None]:
        def run() -> None:
            real = transcript_runs.fast_loads
            transcript_runs.fast_loads = loads  # type: ignore[assignment]
            try:
                for f in files:
                    for _record in transcript_runs.iter_light_records(f, None, usage.SKIP_TYPES):
                        pass
            finally:
                transcript_runs.fast_loads = real  # type: ignore[assignment]

        return run

    def scan() -> None:
        for f in files:
            usage.scan_file(f)

    found = {
        "lines": lines,
        "checks": read(lambda: lambda _view: {}),
        "decode": read(transcript_runs.fast_loads),
        "scan": scan,
    }
    typed = _msgspec_loads()
    if typed is not None:

        def scan_typed() -> None:
            real = transcript_runs.fast_loads
            transcript_runs.fast_loads = lambda: typed  # type: ignore[assignment]
            try:
                scan()
            finally:
                transcript_runs.fast_loads = real  # type: ignore[assignment]

        found["msgspec"] = scan_typed
    return found


def _msgspec_loads() -> Callable[[Any], Any] | None:
    try:
        import msgspec
    except ImportError:
        return None
    decode = msgspec.json.Decoder(_Record).decode
    full = transcript_runs.fast_loads()

    def loads(view: Any) -> Any:
        try:
            return decode(view)
        except msgspec.ValidationError:  # another shape: the full record
            return full(view)
        except msgspec.DecodeError as exc:
            raise ValueError(str(exc)) from exc

    return loads


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    files = sorted(args.corpus.rglob("*.jsonl"))
    if not files:
        raise SystemExit(f"{args.corpus}: no transcripts (*.jsonl)")
    size = sum(f.stat().st_size for f in files)
    runs = phases(files)
    best = dict.fromkeys(runs, float("inf"))
    transcript_runs.fast_loads()
    for _round in range(args.rounds):
        for name, run in runs.items():
            started = time.process_time()
            run()
            best[name] = min(best[name], time.process_time() - started)
    print(f"{len(files)} files, {size / 1e6:.1f} MB; CPU time, minimum of {args.rounds} rounds")
    before = 0.0
    for name, seconds in best.items():
        step = seconds - before if name != "msgspec" else seconds - best["scan"]
        print(f"  {name:8} {seconds * 1000:7.1f} ms  ({step * 1000:+7.1f} ms)")
        if name != "msgspec":
            before = seconds
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
