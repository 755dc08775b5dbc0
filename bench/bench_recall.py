#!/usr/bin/env python3
"""Recall at scale: index time against a cold `ccstate report`, query latency, hook time.

Makes recall's scale figures docs/RECALL.md and docs/BENCHMARKS.md (its Performance at a
glance) quote.

    python bench/bench_recall.py                    # 1,000 sessions, 3 rounds
    python bench/bench_recall.py --sessions 200 --rounds 1 --no-hook

1. Lays out `--sessions` transcripts generated from ../shared/transcripts/public (each a
   copy of one corpus file, in turn, with fresh session, message and request ids and uuids:
   `scale_fixtures.fresh_ids`, as the scaling bench's copies) as one project's sessions
   under a temporary HOME, as Claude Code keeps them. Distinct sessions share no API call,
   as a project's real sessions do not (the report would count them once).
2. Each round, in fresh processes through the `ccstate` console script: a cold
   `ccstate report <folder> --json --no-cache`, then `ccstate recall --reindex` into an
   empty state dir. The figure is the median of the per-round ratios (target < 2x); the
   reindex's peak memory (its own or a worker's resident set, target <= 300 MiB).
   `--model DIR` sets `recall.embedding_model` for the project: the reindex computes the
   moments' vectors too, and the queries below are fused.
3. Queries: the questions of bench/recall_questions.json, 5 passes over the built index in
   one process (warm: the connection open, the pages cached): median and p95 per query
   (target p95 <= 50 ms); and `ccstate recall QUESTION --no-update` as a whole process, 20
   questions (target p95 <= 250 ms).
4. Hooks: a 50 MB transcript made of corpus records under one session id, then PreCompact
   on it, 5 MB more, SessionEnd; wall time of each hook process and its `recall_ms`
   (SessionEnd and PreCompact have 30 s each).

`--breakdown` instead: where indexing's time goes, in this process, one file after another
over the corpus itself (best of `--rounds`): the report's scan of each transcript
(`usage.scan_file`), recall's extraction of its moments as the index does it, and the same
extraction with the secret rules off (`Redactor(patterns=False)`: .env values only), so the
share of indexing that is redaction, and what indexing would cost without it, are figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

sys.path.insert(0, str(REPO / "bench"))

import scale_fixtures as fx  # noqa: E402

from ccstate import paths  # noqa: E402
from ccstate.recall import index, search, sources  # noqa: E402

CORPUS = REPO.parent / "shared" / "transcripts" / "public"
QUESTIONS = REPO / "bench" / "recall_questions.json"


def session_of(data: bytes) -> str | None:
    for line in data.splitlines()[:200]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
            return str(record["sessionId"])
    return None


def generate(corpus: Path, folder: Path, count: int) -> int:
    """`count` sessions in `folder`: corpus file n % files as copy n // files + 1, every id
    fresh (`scale_fixtures.fresh_ids`), named by its fresh session id; bytes written."""
    sources = [(source, session) for source, _slug, session in fx.corpus_files(corpus)]
    folder.mkdir(parents=True)
    texts = [s.read_text(encoding="utf-8", errors="surrogateescape") for s, _ in sources]
    total = 0
    for n in range(count):
        copy = n // len(sources) + 1
        session = fx.fresh_id(sources[n % len(sources)][1], copy)
        data = fx.fresh_ids(texts[n % len(sources)], copy).encode("utf-8", "surrogateescape")
        (folder / f"{session}.jsonl").write_bytes(data)
        total += len(data)
    return total


def ccstate() -> list[str]:
    script = Path(sys.executable).with_name("ccstate")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ccstate"]


def installed_env(work: Path) -> dict[str, str]:
    """This environment without ccstate's and Claude Code's variables, and with bytecode
    caches on, as an installed ccstate runs (in `work`, not the checkout): with
    PYTHONDONTWRITEBYTECODE inherited, every process would compile ccstate from source first."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CCSTATE_", "CLAUDE")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


PEAK_MB: list[float] = [0.0]  # the largest resident set of the last `timed` process (MiB)


def timed(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its workers): CPU time is what a busy
    machine distorts least. Its peak memory (its own or a worker's, the largest) goes to
    PEAK_MB."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            tail = err.read().decode("utf-8", "replace")[-2000:]
            raise SystemExit(f"`{' '.join(cmd)}` failed ({proc.returncode}): {tail}")
    PEAK_MB[0] = usage.ru_maxrss / 1024  # KiB on Linux
    return elapsed, usage.ru_utime + usage.ru_stime


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def bench_scale(args: argparse.Namespace, work: Path) -> None:
    home, project = work / "home", work / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    env = installed_env(work)
    env.update(HOME=str(home), XDG_CACHE_HOME=str(work / "cache"), PYTHONPATH=str(REPO / "src"))
    folder = home / ".claude" / "projects" / paths.project_slug(project)
    size = generate(args.corpus, folder, args.sessions)
    print(f"{args.sessions} sessions, {size / 1e6:,.0f} MB in {folder}")
    embedder = None
    if args.model:  # the project's setting, as a user sets it: the reindex embeds too
        model = Path(args.model).resolve()
        (project / ".ccstate.yaml").write_text(
            f"recall:\n  embedding_model: {json.dumps(str(model))}\n", encoding="utf-8"
        )
        from ccstate.recall import embed

        embedder = embed.Embedder(embed.load_model(str(model)))
        print(f"model {model} (vectors computed by the reindex, fused in every query)")
    ratios, reports, indexes, cpu_ratios, peaks = [], [], [], [], []
    for _round in range(args.rounds):
        report, report_cpu = timed([*ccstate(), "report", str(folder), "--json", "--no-cache"], env)
        shutil.rmtree(project / ".ccstate", ignore_errors=True)
        built, built_cpu = timed([*ccstate(), "recall", "--reindex", "-C", str(project)], env)
        peaks.append(PEAK_MB[0])
        reports.append(report)
        indexes.append(built)
        ratios.append(built / report)
        cpu_ratios.append(built_cpu / report_cpu)
        print(
            f"  round: report --no-cache {report:.2f}s ({report_cpu:.2f}s CPU), "
            f"recall --reindex {built:.2f}s ({built_cpu:.2f}s CPU)"
        )
    state = paths.state_dir(project, {})
    con = index.connect(state)
    stats = index.stats(con)
    print(
        f"cold report {statistics.median(reports):.2f}s, index {statistics.median(indexes):.2f}s:"
        f" index/report {statistics.median(ratios):.2f}x (target < 2x; in CPU time "
        f"{statistics.median(cpu_ratios):.2f}x); index "
        f"{stats.moments:,} moments, {stats.file_bytes / 1e6:.0f} MB; peak memory while "
        f"indexing {max(peaks):.0f} MiB (target <= 300)"
    )
    if embedder is not None:
        vectors = con.execute("SELECT count(*), coalesce(sum(length(v)), 0) FROM vecs").fetchone()
        text = con.execute(
            "SELECT coalesce(sum(length(title) + length(body) + length(parts)), 0) FROM docs"
        ).fetchone()[0]
        print(
            f"vectors: {vectors[0]:,} of {stats.moments:,} moments, {vectors[1] / 1e6:.1f} MB "
            f"({vectors[1] / max(stats.file_bytes, 1):.0%} of the index file; target <= 50 % "
            f"added), moments' text {text / 1e6:.1f} MB"
        )
    questions = json.loads(QUESTIONS.read_text())
    texts = [q["q"] for q in questions["questions"]] + list(questions["none"])
    times = []
    for _pass in range(5):
        for text in texts:
            started = time.perf_counter()
            search.search(con, search.Query(text), embedder)
            times.append((time.perf_counter() - started) * 1000)
    con.close()
    print(
        f"query in process, {len(times)} runs: median {statistics.median(times):.1f} ms, "
        f"p95 {p95(times):.1f} ms (target p95 <= 50 ms)"
    )
    whole = [
        timed([*ccstate(), "recall", text, "--no-update", "-C", str(project)], env)[0] * 1000
        for text in texts[:20]
    ]
    print(
        f"`ccstate recall Q --no-update` as a process, {len(whole)} questions: median "
        f"{statistics.median(whole):.0f} ms, p95 {p95(whole):.0f} ms (target p95 <= 250 ms"
        f"{' with the model' if embedder is not None else ''})"
    )


def breakdown(args: argparse.Namespace) -> None:
    """Seconds of the report's scan, of extraction, and of extraction without the secret
    rules, over the corpus's transcripts in this process (best of `args.rounds`)."""
    from ccstate.recall import extract
    from ccstate.report import usage
    from ccstate.secrets import redact
    from ccstate.transcript import runs

    files = sorted(args.corpus.rglob("*.jsonl"))
    runs.fast_loads()
    extract.load()
    redact.prepare()
    prefixes = usage.notice_prefixes()
    jobs = [extract.Job(sources.transcript_source(f), 0, 0, "") for f in files]
    rules, literals_only = redact.Redactor(), redact.Redactor(patterns=False)

    def best(run: Callable[[], object]) -> float:
        times = []
        for _round in range(max(1, args.rounds)):
            started = time.perf_counter()
            run()
            times.append(time.perf_counter() - started)
        return min(times)

    scan = best(lambda: [usage.scan_file(f, prefixes) for f in files])
    full = best(lambda: [extract.extract(j, redactor=rules) for j in jobs])
    bare = best(lambda: [extract.extract(j, redactor=literals_only) for j in jobs])
    size = sum(f.stat().st_size for f in files)
    print(f"{len(files)} transcripts, {size / 1e6:,.0f} MB, one process, best of {args.rounds}:")
    print(f"  report's scan                  {scan:6.2f}s  1.00x")
    print(f"  recall's extraction            {full:6.2f}s  {full / scan:.2f}x")
    print(
        f"  extraction, secret rules off   {bare:6.2f}s  {bare / scan:.2f}x"
        f"  (redaction: {(full - bare) / full:.0%} of extraction)"
    )


def big_transcript(corpus: Path, path: Path, session: str, target: int) -> int:
    """Append corpus records (in file order, repeated) under one session id until `path`
    holds `target` bytes; its size."""
    size = path.stat().st_size if path.exists() else 0
    with path.open("ab") as fh:
        while size < target:
            for source in sorted(corpus.glob("*.jsonl")):
                data = source.read_bytes()
                old = session_of(data)
                data = data.replace(old.encode(), session.encode()) if old else data
                fh.write(data if data.endswith(b"\n") else data + b"\n")
                size += len(data)
                if size >= target:
                    break
    return path.stat().st_size


def bench_hooks(args: argparse.Namespace, work: Path) -> None:
    project = work / "hook-project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    env = installed_env(work)
    env.update(HOME=str(work / "hook-home"), PYTHONPATH=str(REPO / "src"))
    session = str(uuid.uuid4())
    transcript = work / f"{session}.jsonl"
    size = big_transcript(args.corpus, transcript, session, 50 << 20)
    for event, extra in (("PreCompact", 0), ("SessionEnd", 5 << 20)):
        if extra:
            size = big_transcript(args.corpus, transcript, session, size + extra)
        payload = {
            "session_id": session,
            "transcript_path": str(transcript),
            "cwd": str(project),
            "hook_event_name": event,
            "trigger": "auto",
            "reason": "other",
        }
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "ccstate.hooks", event],
            input=json.dumps(payload),
            text=True,
            env=env,
            cwd=project,
            check=True,
            capture_output=True,
        )
        wall = time.perf_counter() - started
        beat = json.loads((project / ".ccstate" / "heartbeat" / f"{event}.json").read_text())
        detail = beat.get("detail", {})
        print(
            f"{event} on {size / 1e6:.0f} MB: {wall:.2f}s wall (timeout 30 s), "
            f"recall {detail.get('recall_ms')} ms ({detail.get('recall')}), "
            f"outcome {beat.get('outcome')}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-hook", action="store_true", help="skip the 50 MB hook runs")
    parser.add_argument(
        "--model",
        metavar="DIR",
        help="recall.embedding_model for the project: index with vectors, query fused",
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="where indexing's time goes (in process)"
    )
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus}: no such corpus directory")
    if args.breakdown:
        breakdown(args)
        return 0
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="ccstate-bench-recall-") as work:
        bench_scale(args, Path(work))
        if not args.no_hook:
            bench_hooks(args, Path(work))
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
