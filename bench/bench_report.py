#!/usr/bin/env python3
"""Time `ccstate report` and ccusage side by side on the same corpus, in one run.

Makes the report-vs-ccusage speed ratios docs/BENCHMARKS.md quotes.

    python bench/bench_report.py                 # ../shared/transcripts/public, 21 rounds
    python bench/bench_report.py --rounds 15 --corpus DIR

Both read the corpus laid out as `~/.claude/projects/<slug>/<session>.jsonl` (a temporary
HOME) and print JSON. Each round runs every command once, in turn, as a fresh process; the
figure is the median wall time, and the ratio also the median of each round's ratio (rounds
run back to back, so a machine that drifts slower or faster moves both). ccstate runs cold
(`--no-cache`: every file parsed) and warm (its scan cache holds every file, as on a second
run over unchanged transcripts), through the `ccstate` console script as users run it;
ccusage as installed from npm (`ccusage`, a Node launcher for its native binary) and, for
reference, its native binary alone. Run it on an idle machine: the ratios are what
docs/BENCHMARKS.md quotes.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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

COLD = "ccstate report --json --no-cache (cold)"
WARM = "ccstate report --json (scan cache warm)"
NPM = f"ccusage {CCUSAGE_VERSION} claude session --json (npm)"
NATIVE = f"ccusage {CCUSAGE_VERSION} native binary alone"


def native_binary(launcher: Path) -> Path | None:
    """The platform binary the npm launcher starts (node_modules/@ccusage/ccusage-<os>-<cpu>)."""
    found = sorted((launcher.parent.parent / "@ccusage").glob("ccusage-*/bin/ccusage"))
    return found[0] if found else None


def wall(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the process and everything it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"`{' '.join(cmd)}` failed: {proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


LOAD = os.getloadavg()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus}: no such corpus directory")
    launcher = ccusage_bin()
    with tempfile.TemporaryDirectory(prefix="ccstate-bench-report-") as work:
        home = Path(work) / "home"
        projects = layout(args.corpus.resolve(), home)
        size = sum(p.stat().st_size for p in projects.rglob("*.jsonl"))
        files = len(list(projects.rglob("*.jsonl")))
        theirs, mine = ccusage_env(home), ccstate_env(Path(work))
        commands = {
            COLD: (ccstate_command(home, cache=False), mine),
            WARM: (ccstate_command(home), mine),
            NPM: (ccusage_command(launcher), theirs),
        }
        native = native_binary(launcher)
        if native is not None:
            commands[NATIVE] = ([str(native), *ccusage_command(launcher)[1:]], theirs)
        for cmd, env in commands.values():  # page cache, first-run setup, the scan cache
            wall(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, (cmd, env) in commands.items():
                elapsed, used = wall(cmd, env)
                times[name].append(elapsed)
                cpu[name].append(used)
    medians = {name: statistics.median(values) for name, values in times.items()}
    cpu_medians = {name: statistics.median(values) for name, values in cpu.items()}
    print(
        f"corpus: {files} files, {size / 1e6:.1f} MB; {args.rounds} rounds; "
        f"cpus {os.cpu_count()}; load average before {LOAD[0]:.1f}, after {os.getloadavg()[0]:.1f}"
    )
    for name, value in medians.items():
        spread = f"{min(times[name]):.3f}-{max(times[name]):.3f}"
        print(f"{name:<44} wall {value:.3f} s (range {spread}), CPU {cpu_medians[name]:.3f} s")
    for name in (COLD, WARM):
        paired = statistics.median(n / c for n, c in zip(times[NPM], times[name], strict=True))
        print(
            f"ccusage (npm) / {name}: wall {medians[NPM] / medians[name]:.2f}x "
            f"(median of per-round ratios {paired:.2f}x), "
            f"CPU {cpu_medians[NPM] / cpu_medians[name]:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
