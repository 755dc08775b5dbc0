#!/usr/bin/env python3
"""Time and peak memory of the session-boundary hooks on transcripts built to hurt (#37).

Makes issue #37's time and memory figures; docs/RELIABILITY.md quotes them.

SessionStart (a resume, which reads the transcript for its warning), PreCompact, SessionEnd and
Stop run as Claude Code runs them (one process, the payload on stdin) on four transcripts:

- `malformed`: 24 million malformed two-byte lines (`{` and a newline: every one looks like
  the start of a record, so none can be passed over unread), 48 MB;
- `long-line`: one line of 384 MB (a user record whose text is that long);
- `growing`: 4 MB of records, then a writer appending malformed lines at about 8 MB/s for as
  long as the hook runs (more than any reader gets through);
- `fifo`: a FIFO where the transcript should be (reading one waits for a writer that never
  comes);
- `wide-line` (only when named): a line just under the readers' 16 MiB cap, ASCII but for one
  emoji, which decodes to 4 bytes a character: the most memory a line the readers keep costs.

Each hook runs once per transcript in a fresh project (git repository, no ccstate state: the
first run, the worst), with its real budget (its timeout less 5 s) or `--budget SECONDS`. A
small helper process starts each hook and reports its wall time and peak RSS (`wait4`: the
bench's own memory is not counted, bench/paired_runner.py says why) and kills it at its
timeout. Prints one row per run: seconds, the budget, peak MiB, and what hooks.log says was
left for the next run. docs/RELIABILITY.md quotes it. Standard library only; not a test:

    python bench/bench_bounded.py --python "$(bash scripts/test.sh --venv)/bin/python"
    python bench/bench_bounded.py --scale 0.1 --budget 3 --inputs malformed,fifo
    python bench/bench_bounded.py --src /tmp/main/src   # main (git archive main | tar -x)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SESSION = "b0d1e5e5-0000-4000-8000-000000000037"
HOOKS = ("SessionStart", "PreCompact", "SessionEnd", "Stop")
TIMEOUTS = {"SessionStart": 15, "PreCompact": 30, "SessionEnd": 30, "Stop": 30}
INPUTS = ("malformed", "long-line", "growing", "fifo")
LIMIT_MIB = 256
MALFORMED_LINES = 24_000_000
LONG_LINE_BYTES = 384 << 20
WIDE_LINE_BYTES = (16 << 20) - 4096  # under transcript.MAX_LINE_BYTES: read, decoded, kept
GROWING_START_BYTES = 4 << 20
GROWING_RATE = 8 << 20  # bytes a second the writer appends while the hook runs
RECORD = (
    '{"type":"user","sessionId":"%s","cwd":"%s","timestamp":"2026-03-01T10:00:00.000Z",'
    '"message":{"role":"user","content":"carry on with the parser, step %d"}}\n'
)
# Forks the hook, waits for it (killing it at its timeout), prints [seconds, peak KiB, exit
# status, killed]. A bare interpreter with os, time and json: the peak RSS is the hook's own.
_HELPER = r"""
import json, os, sys, time
argv, cwd, env, paths, timeout = json.loads(sys.argv[1])
fds = [os.open(paths[0], os.O_RDONLY)]
fds += [os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) for p in paths[1:]]
started = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        os.chdir(cwd)
        for n, fd in enumerate(fds):
            os.dup2(fd, n)
        os.execve(argv[0], argv, env)
    finally:
        os._exit(127)
killed = False
while True:
    done, status, usage = os.wait4(pid, os.WNOHANG)
    if done:
        break
    if not killed and time.monotonic() - started > timeout:
        os.kill(pid, 9)
        killed = True
    time.sleep(0.005)
seconds = time.monotonic() - started
print(json.dumps([seconds, usage.ru_maxrss, os.waitstatus_to_exitcode(status), killed]))
"""


class Run:
    """One hook run: wall seconds, peak RSS, exit status, whether its timeout killed it, what
    it printed and what it left in hooks.log."""

    __slots__ = ("code", "killed", "log", "peak_kib", "seconds", "stderr", "stdout")

    def __init__(self, seconds: float, peak_kib: int, code: int, killed: bool) -> None:
        self.seconds, self.peak_kib, self.code, self.killed = seconds, peak_kib, code, killed
        self.stdout = self.stderr = self.log = ""

    @property
    def peak_mib(self) -> float:
        return self.peak_kib / 1024


def run_hook(
    python: str,
    event: str,
    payload: dict[str, object],
    project: Path,
    env: dict[str, str],
    timeout: float | None = None,
) -> Run:
    """Run one hook as Claude Code does, measured by the helper, killed at `timeout` (its
    timeout in Claude Code's settings when not given)."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-bounded-"))
    files = [scratch / name for name in ("in", "out", "err")]
    files[0].write_text(json.dumps(payload))
    argv = [python, "-m", "ccstate.hooks", event]
    limit = TIMEOUTS[event] if timeout is None else timeout
    request = [argv, str(project), env, [str(f) for f in files], limit]
    helper = [sys.executable, "-S", "-I", "-c", _HELPER, json.dumps(request)]
    reply = subprocess.run(helper, capture_output=True, text=True, check=True).stdout
    seconds, peak, code, killed = json.loads(reply)
    run = Run(seconds, peak, code, killed)
    run.stdout = files[1].read_text(errors="replace")
    run.stderr = files[2].read_text(errors="replace")
    for f in files:
        f.unlink()
    scratch.rmdir()
    log = project / ".ccstate" / "logs" / "hooks.log"
    run.log = log.read_text(errors="replace") if log.exists() else ""
    return run


def make_project(folder: Path, budget: float | None) -> Path:
    """A git repository with one commit, and a budget in its .ccstate.yaml when given."""
    folder.mkdir(parents=True)
    git = ["git", "-C", str(folder), "-c", "user.email=b@example.org", "-c", "user.name=B"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    (folder / "app.py").write_text("print('hello')\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "initial"], check=True)
    if budget is not None:
        (folder / ".ccstate.yaml").write_text(f"hooks:\n  budget_seconds: {budget}\n")
    return folder


def payload(event: str, project: Path, transcript: Path) -> dict[str, object]:
    return {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": event,
        "source": "resume",
        "trigger": "manual",
        "reason": "other",
    }


def write_malformed(path: Path, lines: int) -> None:
    """`lines` malformed two-byte lines, written a block at a time (the bench stays small)."""
    block = b"{\n" * (1 << 20)
    with path.open("wb") as fh:
        for _ in range(lines >> 20):
            fh.write(block)
        fh.write(b"{\n" * (lines & ((1 << 20) - 1)))


def write_long_line(path: Path, size: int, project: Path, first: str = "") -> None:
    """A record, one user record `size` bytes long (its text starting with `first`), and a
    record after it."""
    head = b'{"type":"user","sessionId":"%s","message":{"role":"user","content":"%s' % (
        SESSION.encode(),
        first.encode(),
    )
    with path.open("wb") as fh:
        fh.write((RECORD % (SESSION, project, 1)).encode())
        fh.write(head)
        block = b"x" * (1 << 20)
        for _ in range(max(0, size - len(head)) >> 20):
            fh.write(block)
        fh.write(b'"}}\n')
        fh.write((RECORD % (SESSION, project, 2)).encode())


def write_records(path: Path, size: int, project: Path) -> None:
    with path.open("wb") as fh:
        n = 0
        while fh.tell() < size:
            n += 1
            fh.write((RECORD % (SESSION, project, n)).encode())


@contextmanager
def growing(path: Path, rate: int) -> Iterator[None]:
    """Append malformed lines to `path` at about `rate` bytes a second while the block runs."""
    stop = threading.Event()

    def write() -> None:
        block = b"{\n" * (rate // 400)  # two bytes a line, every 5 ms
        with path.open("ab", buffering=0) as fh:
            while not stop.wait(0.005):
                fh.write(block)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        yield
    finally:
        stop.set()
        writer.join()


def transcript_for(kind: str, folder: Path, project: Path, scale: float) -> Path:
    path = folder / f"{kind}.jsonl"
    if kind == "malformed":
        write_malformed(path, int(MALFORMED_LINES * scale))
    elif kind == "long-line":
        write_long_line(path, int(LONG_LINE_BYTES * scale), project)
    elif kind == "growing":
        write_records(path, int(GROWING_START_BYTES * scale), project)
    elif kind == "wide-line":
        write_long_line(path, WIDE_LINE_BYTES, project, first="\U0001f600")
    else:
        os.mkfifo(path)
    return path


def hook_env(src: Path) -> dict[str, str]:
    """The hooks' environment: ccstate from `src` (first on PYTHONPATH), no Claude Code's or
    ccstate's own variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CCSTATE_", "CLAUDE"))}
    env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def left_for_next_run(log: str) -> str:
    """What hooks.log says a step left for the next run (the lines of #37), shortened."""
    said = [line.split("Z ", 1)[-1] for line in log.splitlines() if "time budget" in line]
    return " | ".join(s[:90] for s in said)


def bench(args: argparse.Namespace) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    env = hook_env(args.src)
    with tempfile.TemporaryDirectory(prefix="ccstate-bench-bounded-") as tmp:
        for kind in args.inputs:
            for event in args.hooks:
                where = Path(tmp) / f"{kind}-{event}"
                project = make_project(where / "project", args.budget)
                transcript = transcript_for(kind, where, project, args.scale)
                os.sync()
                data = payload(event, project, transcript)
                if kind == "growing":
                    with growing(transcript, int(GROWING_RATE * args.scale) or 1):
                        run = run_hook(args.python, event, data, project, env)
                else:
                    run = run_hook(args.python, event, data, project, env)
                budget = args.budget or TIMEOUTS[event] - 5
                rows.append(row(kind, event, run, budget, transcript))
                print(format_row(rows[-1]), flush=True)
                _remove(where)
    return rows


def row(kind: str, event: str, run: Run, budget: float, transcript: Path) -> dict[str, object]:
    size = transcript.stat().st_size if transcript.is_file() else 0
    return {
        "input": kind,
        "hook": event,
        "seconds": round(run.seconds, 2),
        "budget_s": budget,
        "peak_mib": round(run.peak_mib, 1),
        "exit": run.code,
        "killed": run.killed,
        "stdout_bytes": len(run.stdout),
        "stderr": run.stderr[-300:],
        "transcript_mb_after": round(size / 1e6, 1),
        "left_for_next_run": left_for_next_run(run.log),
        "within": bool(run.code == 0 and not run.killed and run.seconds <= budget + 5),
        "peak_ok": run.peak_mib <= LIMIT_MIB,
    }


def format_row(r: dict[str, object]) -> str:
    ok = "ok" if r["within"] and r["peak_ok"] else "OVER"
    return (
        f"{r['input']:<10} {r['hook']:<12} {r['seconds']:>6.2f} s (budget {r['budget_s']:g} s)"
        f" {r['peak_mib']:>6.1f} MiB {ok:<4} {r['left_for_next_run']}"
    )


def _remove(folder: Path) -> None:
    """`folder` gone, once nothing writes there: SessionStart may start the code index's
    detached worker (#41), which writes into the project for a moment after the hook ends."""
    for attempt in range(60):
        try:
            _remove_once(folder)
            return
        except FileNotFoundError:
            return
        except OSError:
            if attempt == 59:
                raise
            time.sleep(1)


def _remove_once(folder: Path) -> None:
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(root, name))
        for name in dirs:
            path = os.path.join(root, name)
            (os.unlink if os.path.islink(path) else os.rmdir)(path)
    folder.rmdir()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the hooks' interpreter")
    parser.add_argument(
        "--src", type=Path, default=REPO / "src", help="the ccstate to run (main's: its src/)"
    )
    parser.add_argument("--budget", type=float, default=None, help="hooks.budget_seconds")
    parser.add_argument("--scale", type=float, default=1.0, help="input sizes times this")
    parser.add_argument("--inputs", default=",".join(INPUTS))
    parser.add_argument("--hooks", default=",".join(HOOKS))
    parser.add_argument("--json", action="store_true", help="the rows as JSON at the end")
    args = parser.parse_args(argv)
    args.inputs = [i for i in args.inputs.split(",") if i]
    args.hooks = [h for h in args.hooks.split(",") if h]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load = os.getloadavg()
    print(
        f"python {args.python}; src {args.src}; load {load[0]:.1f}; scale {args.scale:g}",
        flush=True,
    )
    rows = bench(args)
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0 if all(r["within"] and r["peak_ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
