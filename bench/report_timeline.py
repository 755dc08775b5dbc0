#!/usr/bin/env python3
"""Where a cold `ccstate report` spends its time: start-up, imports, the parallel scan, output.

Makes docs/BENCHMARKS.md's timeline of a first report.

    python bench/report_timeline.py                 # ../shared/transcripts/public, 11 runs
    python bench/report_timeline.py --runs 21 --corpus DIR --jobs 2
    python bench/report_timeline.py --projects WORK/home/.claude/projects   # a laid-out tree

Each run is a fresh process running `ccstate report <corpus> --json --no-cache` with marks
(milliseconds since the interpreter started running this script) at each phase, and per
worker process the span and busy time of its scans. Prints the median of each over the runs.
The process start-up before the first mark is `python -c pass`, timed the same way.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ccusage_setup import CORPUS, layout

PHASES = (
    "click and the CLI imported",
    "files selected",
    "workers started",
    "scans done",
    "report built",
    "output written",
)


def child(projects: str, jobs: str) -> None:
    """One instrumented run; marks go to stderr as `mark <label> <ms>` / `scan <pid> <s> <e>`."""
    started = time.perf_counter()

    def note(*fields: object) -> None:  # one write per line: workers share stderr
        os.write(2, ("\t".join(map(str, fields)) + "\n").encode())

    def mark(label: str) -> None:
        note("mark", label, f"{1000 * (time.perf_counter() - started):.2f}")

    import ccstate.cli as cli

    mark(PHASES[0])
    from ccstate import fanout  # imported before the workers start in any run
    from ccstate.cli import report_cmd
    from ccstate.report import scan, usage

    def wrap(module: object, name: str, before: str | None, after: str | None) -> None:
        original = getattr(module, name)

        def wrapped(*args: object, **kwargs: object) -> object:
            if before:
                mark(before)
            result = original(*args, **kwargs)
            if after:
                mark(after)
            return result

        setattr(module, name, wrapped)

    wrap(scan, "select_transcripts", None, PHASES[1])
    wrap(fanout, "fan_out", PHASES[2], PHASES[3])
    wrap(report_cmd, "_dumps", PHASES[4], None)  # the workers built the sessions; assembled
    scan_file = usage.scan_file

    def timed_scan(path: Path, prefixes: tuple[str, ...] | None = None) -> usage.FileScan:
        begin = time.perf_counter()
        scan = scan_file(path, prefixes)
        end = time.perf_counter()
        note(
            "scan", os.getpid(), f"{1000 * (begin - started):.2f}", f"{1000 * (end - started):.2f}"
        )
        return scan

    usage.scan_file = timed_scan
    sys.argv = ["ccstate", "report", projects, "--json", "--no-cache", "--jobs", jobs]
    real_exit, parent = os._exit, os.getpid()

    def exit_after_mark(code: int) -> None:
        if os.getpid() == parent:  # not the forked workers' exits
            mark(PHASES[5])
        real_exit(code)

    os._exit = exit_after_mark  # type: ignore[assignment]
    cli.main()


def run_once(projects: Path, jobs: int, env: dict[str, str]) -> tuple[dict[str, float], list]:
    cmd = [sys.executable, __file__, "--child", str(projects), str(jobs)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"instrumented run failed: {proc.stderr[-2000:]}")
    marks: dict[str, float] = {}
    scans: list[tuple[str, float, float]] = []
    for line in proc.stderr.splitlines():
        kind, *rest = line.split("\t")
        if kind == "mark":
            marks[rest[0]] = float(rest[1])
        elif kind == "scan":
            scans.append((rest[0], float(rest[1]), float(rest[2])))
    return marks, scans


def startup_ms() -> float:
    begin = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return 1000 * (time.perf_counter() - begin)


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--projects", type=Path, help="a laid-out projects folder (e.g. a bench_scale.py copy)"
    )
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus}: no such corpus directory")
    with tempfile.TemporaryDirectory(prefix="ccstate-timeline-") as work:
        if args.projects is not None:
            projects = args.projects.resolve()
        else:
            projects = layout(args.corpus.resolve(), Path(work) / "home")
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(work) / "cache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure with compiled modules, as installed
        run_once(projects, args.jobs, env)  # compile, warm the page cache
        marks: dict[str, list[float]] = {phase: [] for phase in PHASES}
        busy: dict[int, list[float]] = {}
        span: dict[int, list[tuple[float, float]]] = {}
        starts = []
        for _ in range(args.runs):
            starts.append(startup_ms())
            got, scans = run_once(projects, args.jobs, env)
            for phase in PHASES:
                marks[phase].append(got[phase])
            by_pid: dict[str, list[tuple[float, float]]] = {}
            for pid, begin, end in scans:
                by_pid.setdefault(pid, []).append((begin, end))
            ordered = sorted(by_pid.values(), key=lambda spans: min(s for s, _e in spans))
            for rank, spans in enumerate(ordered):
                busy.setdefault(rank, []).append(sum(e - s for s, e in spans))
                span.setdefault(rank, []).append(
                    (min(s for s, _e in spans), max(e for _s, e in spans))
                )
    where = args.projects or args.corpus
    print(f"corpus {where} ({args.runs} runs, --jobs {args.jobs}); medians in ms")
    print(f"{'process start-up (python -c pass)':<36} {statistics.median(starts):7.1f}")
    previous = 0.0
    for phase in PHASES:
        value = statistics.median(marks[phase])
        print(f"{phase:<36} at {value:7.1f}  (+{value - previous:6.1f})")
        previous = value
    for rank in sorted(busy):
        first = statistics.median(s for s, _e in span[rank])
        last = statistics.median(e for _s, e in span[rank])
        print(
            f"scanning process {rank + 1} (by first scan): from {first:6.1f} to {last:6.1f}, "
            f"busy {statistics.median(busy[rank]):6.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
