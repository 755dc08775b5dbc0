"""Paired, interleaved timing of whole processes, with each process's peak memory.

Imported by bench/bench_scale.py; docs/BENCHMARKS.md says why a helper starts the processes.

Used by bench/bench_scale.py. A row is one command timed against a baseline command in the
same rounds: every round runs every command once, in an order that rotates, so a busy moment
on a shared machine hits a row and its baseline alike. The ratio is median over median (and the
median of the per-round ratios).

Processes are started by a small helper process, not by the bench itself: Linux counts the
memory of the process that forked a child in the child's peak RSS (`ru_maxrss` keeps the
high-water mark of the address space it execs from), so a child of a bench holding 200 MB of
fixtures would "use" 200 MB. The helper is a bare `python -S -I` with os, time and json, so the
peak RSS wait4 reports is the command's own (its largest process, when it has children).
The helper forks, execs, waits, and reports wall time and rusage; stdin, stdout and stderr are
files.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

_HELPER = r"""
import json, os, sys, time
for line in sys.stdin:
    argv, cwd, env, paths = json.loads(line)
    fds = [os.open(paths[0], os.O_RDONLY)]
    fds += [os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) for p in paths[1:]]
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            for n, fd in enumerate(fds):
                os.dup2(fd, n)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    _pid, status, usage = os.wait4(pid, 0)
    ms = (time.perf_counter() - started) * 1000
    for fd in fds:
        os.close(fd)
    print(json.dumps([ms, usage.ru_maxrss, os.waitstatus_to_exitcode(status)]), flush=True)
"""


class Spawner:
    """The helper process that runs the timed commands (see the module docstring)."""

    def __init__(self, python: str, scratch: Path) -> None:
        self.scratch = scratch
        self.proc = subprocess.Popen(
            [python, "-S", "-I", "-c", _HELPER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def run(
        self, argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes
    ) -> tuple[float, int, int, bytes, bytes]:
        """(wall ms, peak RSS KiB, exit status, stdout, stderr) of one run of `argv`."""
        exe = shutil.which(argv[0], path=env.get("PATH")) or argv[0]
        files = [self.scratch / f"spawn.{name}" for name in ("in", "out", "err")]
        files[0].write_bytes(stdin)
        request = [[exe, *argv[1:]], str(cwd), env, [str(f) for f in files]]
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        reply = self.proc.stdout.readline()
        if not reply:
            raise SystemExit("paired_runner: the spawn helper died")
        ms, rss, code = json.loads(reply)
        return ms, rss, code, files[1].read_bytes(), files[2].read_bytes()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@dataclass
class Cmd:
    """One process to time; `setup` runs untimed before each run, `check` reads its stdout
    and returns what is wrong with it ('' when nothing)."""

    name: str
    argv: list[str]
    cwd: Path
    env: dict[str, str]
    stdin: Callable[[int], bytes] | None = None
    setup: Callable[[int], None] | None = None
    check: Callable[[bytes], str] | None = None
    ms: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)


@dataclass
class Row:
    """A command over its baseline (or, for a value row, a figure over a limit)."""

    key: str
    what: str
    cmd: str  # Cmd name, or "" for a value row
    baseline: str
    target: float | None  # a ratio at most this passes; None: shown for information
    value: float = 0.0  # the row's median (a value row: its figure) and its baseline's
    base_value: float = 0.0
    unit: str = "ms"
    paired: float | None = None  # median of the per-round ratios
    rss_mib: tuple[float, float] | None = None  # peak RSS of the row's and the baseline's
    runs: int = 0


def spawn(spawner: Spawner, cmd: Cmd, run: int) -> tuple[float, int]:
    if cmd.setup is not None:
        cmd.setup(run)
    data = cmd.stdin(run) if cmd.stdin is not None else b""
    ms, rss, code, stdout, stderr = spawner.run(cmd.argv, cmd.cwd, cmd.env, data)
    problem = cmd.check(stdout) if cmd.check is not None else ""
    if code != 0 or problem:
        raise SystemExit(
            f"bench: {cmd.name}: exit {code}; {problem}\n{stderr.decode(errors='replace')[-3000:]}"
        )
    return ms, rss


def measure(spawner: Spawner, cmds: list[Cmd], runs: int, warmup: int = 2) -> None:
    """Rounds of every command once, the order rotated each round; warm-up rounds untimed."""
    os.sync()  # the fixtures just written: their writeback must not land on the timed runs
    for run in range(-warmup, runs):
        shift = run % len(cmds)
        for cmd in cmds[shift:] + cmds[:shift]:
            ms, rss = spawn(spawner, cmd, run + warmup)
            if run >= 0:
                cmd.ms.append(ms)
                cmd.rss_kib.append(rss)
        if run >= 0 and (run + 1) % 10 == 0:
            progress(f"  round {run + 1}/{runs}")


def record(rows: list[Row], cmds: list[Cmd]) -> None:
    """Fill in the rows whose command and baseline were measured."""
    by_name = {c.name: c for c in cmds}
    for row in rows:
        if row.cmd in by_name and row.baseline in by_name:
            mine, base = by_name[row.cmd], by_name[row.baseline]
            row.value, row.base_value = statistics.median(mine.ms), statistics.median(base.ms)
            row.paired = statistics.median(a / b for a, b in zip(mine.ms, base.ms, strict=True))
            row.rss_mib = (max(mine.rss_kib) / 1024, max(base.rss_kib) / 1024)
            row.runs = len(mine.ms)


def result(row: Row) -> dict[str, object]:
    ratio = row.value / row.base_value if row.base_value else None
    if row.target is None or ratio is None:
        verdict = "info" if ratio is not None else "not run"
    else:
        verdict = "PASS" if ratio <= row.target else "FAIL"
    return {
        "key": row.key,
        "what": row.what,
        "value": round(row.value, 2),
        "baseline": row.baseline,
        "baseline_value": round(row.base_value, 2),
        "unit": row.unit,
        "ratio": round(ratio, 2) if ratio is not None else None,
        "paired_ratio": round(row.paired, 2) if row.paired is not None else None,
        "target": row.target,
        "verdict": verdict,
        "peak_rss_mib": [round(x, 1) for x in row.rss_mib] if row.rss_mib else None,
        "runs": row.runs or None,
    }


def render(rows: list[dict[str, object]]) -> list[str]:
    """The table: one line per row."""
    width = max([len(str(r["what"])) for r in rows] + [3])
    lines = [
        f"{'row':<{width}} {'median':>11} {'baseline':>28} {'ratio':>6} {'paired':>6}"
        f" {'target':>7} {'peak RSS MiB':>12}  verdict"
    ]
    for r in rows:
        value, base = float(r["value"]), float(r["baseline_value"])  # type: ignore[arg-type]
        shown = f"{value:,.1f} {r['unit']}"
        against = f"{r['baseline']} {base:,.1f}"
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "-"
        paired = f"{r['paired_ratio']:.2f}" if r["paired_ratio"] is not None else "-"
        target = f"<={r['target']}" if r["target"] is not None else "-"
        peaks = r["peak_rss_mib"]
        rss = "/".join(f"{x:.0f}" for x in peaks) if isinstance(peaks, list) else "-"
        lines.append(
            f"{r['what']:<{width}} {shown:>11} {against:>28} {ratio:>6} {paired:>6}"
            f" {target:>7} {rss:>12}  {r['verdict']}"
        )
    return lines


def selected(key: str, chosen: list[str]) -> bool:
    """Does `--rows` pick this row? A group (`start`) or a key prefix (`start.all`)."""
    return any(key == c or key.startswith((c + ".", c + "-")) for c in chosen)


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)
