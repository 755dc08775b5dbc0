#!/usr/bin/env python3
"""Time the SessionStart hook (capsule) on a big repository with a long handoff history.

Makes the SessionStart p95 docs/BENCHMARKS.md quotes.

Issue #4's target: SessionStart p95 <= 150 ms with a 10,000-commit repository and a 1 MB
progress log. The script builds both in a temp dir (`git fast-import` makes the commits
in about a second), writes a real handoff through the PreCompact hook, pads the progress
log to --progress-bytes, then times `python -m ccstate.hooks SessionStart` as Claude Code
runs it (one process per run, payload on stdin) for the startup, resume and compact
sources, interleaved with a `python -c pass` baseline. Standard library only.

Not a test: run it by hand on an idle machine.

Example:
    python bench/bench_session_start.py
    python bench/bench_session_start.py --runs 60 --commits 10000 --json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_P95_MS = 150.0
WARMUP_RUNS = 3
SESSION_ID = "5b0c1f2e-bench-4c1d-9a7e-00000000beef"
DROPPED_ENV = (
    "CCSTATE_HOME",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_PLUGIN_ROOT",
    "CLAUDE_PLUGIN_DATA",
    "CLAUDE_CONFIG_DIR",
    "PYTHONDONTWRITEBYTECODE",  # a real install has bytecode caches; measure with them
)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ccstate-bench-start-") as tmp:
        env = bench_env(Path(tmp))
        started = time.perf_counter()
        project = make_repo(Path(tmp) / "project", args.commits)
        setup = {"repo_seconds": round(time.perf_counter() - started, 2)}
        transcript = write_transcript(Path(tmp), project)
        hook(args.python, "PreCompact", payload(project, transcript, trigger="auto"), env, project)
        progress = pad_progress(project, args.progress_bytes)
        setup.update(
            commits=int(git(project, "rev-list", "--count", "HEAD")),
            progress_log_bytes=progress,
            index_bytes=(project / ".ccstate" / "handoff" / "index.json").stat().st_size,
        )
        rows = {
            "python -c pass (baseline)": ([args.python, "-c", "pass"], b""),
            **{
                f"SessionStart {source}": (
                    [args.python, "-m", "ccstate.hooks", "SessionStart"],
                    payload(project, transcript, source=source),
                )
                for source in ("startup", "resume", "compact")
            },
        }
        samples = measure(rows, args.runs, env, project)
        capsule = hook(args.python, "SessionStart", rows["SessionStart startup"][1], env, project)
        failures = read_log(project)
    report = build_report(args, samples, setup, capsule)
    print(json.dumps(report, indent=2) if args.json else render(report))
    if failures:
        print(f"bench_session_start: hooks.log is not empty:\n{failures}", file=sys.stderr)
        return 1
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="timed runs per row (default 40)")
    parser.add_argument("--commits", type=int, default=10_000, help="commits (default 10000)")
    parser.add_argument(
        "--progress-bytes", type=int, default=1 << 20, help="progress log size (default 1 MiB)"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--python", default=sys.executable, help="interpreter for every row")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.commits < 1:
        parser.error("--runs and --commits must be at least 1")
    return args


def git(cwd: Path, *args: str, stdin: bytes | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, capture_output=True, check=True, env=env
    )
    return done.stdout.decode().strip()


def make_repo(root: Path, commits: int) -> Path:
    """`commits` commits on main touching 200 files, imported in one `git fast-import`."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    chunks = []
    for i in range(commits):
        body = f"change {i}\n".encode()
        content = f"value = {i}\n".encode()
        chunks.append(
            b"commit refs/heads/main\n"
            + f"mark :{i + 1}\n".encode()
            + f"committer Bench <bench@example.org> {1_700_000_000 + i} +0000\n".encode()
            + f"data {len(body)}\n".encode()
            + body
            + (f"from :{i}\n".encode() if i else b"")
            + f"M 100644 inline src/file{i % 200}.py\ndata {len(content)}\n".encode()
            + content
            + b"\n"
        )
    git(root, "fast-import", "--quiet", stdin=b"".join(chunks))
    git(root, "reset", "-q", "--hard", "main")
    git(root, "pack-refs", "--all")  # as after `git gc`: HEAD's branch is in packed-refs
    (root / ".env").write_text("BENCH_TOKEN=bench-secret-value-123\n")
    return root


def write_transcript(tmp: Path, project: Path) -> Path:
    base = {"sessionId": SESSION_ID, "cwd": str(project), "gitBranch": "main"}
    target = str(project / "src" / "file1.py")
    records = [
        {"type": "user", "message": {"content": "Speed up the importer and keep the API"}},
        {
            "type": "assistant",
            "message": {
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": target}}
                ]
            },
        },
        {
            "type": "user",
            "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
        },
    ]
    path = tmp / f"{SESSION_ID}.jsonl"
    path.write_text("".join(json.dumps({**base, **r}) + "\n" for r in records))
    return path


def pad_progress(project: Path, size: int) -> int:
    """Grow handoff/progress.md to `size` bytes with entries like the writer's."""
    log = project / ".ccstate" / "handoff" / "progress.md"
    data = log.read_bytes()
    entry = data.split(b"\n\n", 1)[1]
    while len(data) < size:
        data += entry
    log.write_bytes(data[:size])
    return log.stat().st_size


def payload(project: Path, transcript: Path, **fields: str) -> bytes:
    event = "SessionStart" if "source" in fields else "PreCompact"
    data = {
        "session_id": SESSION_ID,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    return json.dumps(data).encode()


def bench_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    src = str(REPO / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


def hook(python: str, event: str, stdin: bytes, env: dict[str, str], cwd: Path) -> str:
    proc = subprocess.run(
        [python, "-m", "ccstate.hooks", event],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=True,
    )
    return proc.stdout.decode()


def measure(
    rows: dict[str, tuple[list[str], bytes]], runs: int, env: dict[str, str], cwd: Path
) -> dict[str, list[float]]:
    """Wall milliseconds per row; rounds interleave the rows, rotating their order."""
    names = list(rows)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for run in range(-WARMUP_RUNS, runs):
        shift = run % len(names)
        for name in names[shift:] + names[:shift]:
            argv, stdin = rows[name]
            start = time.perf_counter()
            proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd)
            elapsed = (time.perf_counter() - start) * 1000
            if proc.returncode != 0 or proc.stderr:
                raise SystemExit(f"bench_session_start: {name}: {proc.stderr.decode()[:500]}")
            if run >= 0:
                samples[name].append(elapsed)
    return samples


def read_log(project: Path) -> str:
    try:
        return (project / ".ccstate" / "logs" / "hooks.log").read_text().strip()[:2000]
    except OSError:
        return ""


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def build_report(
    args: argparse.Namespace, samples: dict[str, list[float]], setup: dict[str, object], out: str
) -> dict[str, object]:
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    rows = [
        {
            "name": name,
            "median_ms": round(statistics.median(values), 1),
            "p95_ms": round(p95(values), 1),
        }
        for name, values in samples.items()
    ]
    worst = max(row["p95_ms"] for row in rows if str(row["name"]).startswith("SessionStart"))
    return {
        "python": args.python,
        "machine": f"{platform.platform()} ({os.cpu_count()} CPUs)",
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "runs": args.runs,
        "setup": setup,
        "capsule_chars": len(context),
        "rows": rows,
        "target_p95_ms": TARGET_P95_MS,
        "worst_session_start_p95_ms": worst,
        "meets_target": worst <= TARGET_P95_MS,
    }


def render(report: dict[str, object]) -> str:
    setup = report["setup"]
    assert isinstance(setup, dict)
    lines = [
        "ccstate SessionStart benchmark",
        f"python   {report['python']}",
        f"machine  {report['machine']}",
        f"date     {report['date']} (load average {report['load_average']} at the end)",
        f"repo     {setup['commits']:,} commits (built in {setup['repo_seconds']} s), "
        f"progress log {setup['progress_log_bytes']:,} bytes, "
        f"handoff index {setup['index_bytes']:,} bytes, capsule {report['capsule_chars']} chars",
        f"runs     {report['runs']} per row, interleaved, after {WARMUP_RUNS} warm-up runs",
        "",
        f"{'row':<28}  {'median ms':>9}  {'p95 ms':>7}",
    ]
    rows = report["rows"]
    assert isinstance(rows, list)
    for row in rows:
        lines.append(f"{row['name']:<28}  {row['median_ms']:>9.1f}  {row['p95_ms']:>7.1f}")
    verdict = "meets" if report["meets_target"] else "MISSES"
    lines += [
        "",
        f"worst SessionStart p95 {report['worst_session_start_p95_ms']} ms: {verdict} the "
        f"target of {report['target_p95_ms']:.0f} ms",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
