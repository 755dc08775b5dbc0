#!/usr/bin/env python3
"""The code index at scale (#41): a cold index of a 5,000-file repository, the re-index after
one edited file, the index's size, `find`'s and `map`'s process times, the map's bytes
across runs and rebuilds. docs/FIND.md quotes it.

Makes the code index's scale figures; docs/FIND.md quotes them.

    python bench/bench_find.py                       # ansible/ansible's snapshot (5,053 files)
    python bench/bench_find.py --repo owner/name --commit SHA --runs 5 --json

The repository comes as a bare snapshot under `--mirrors` (the `fetch` tool's layout); its
tree at `--commit` is written into a scratch git work tree (blobs the snapshot lacks left
out), and everything runs with the interpreter running this script (`ccstate` from the
tree's src/ unless it is installed there). Not a test: run it on a machine as idle as you
can get.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from find_eval import Tree  # noqa: E402

from ccstate.repo import index, update  # noqa: E402
from ccstate.repo import map as repo_map  # noqa: E402

DEFAULT_REPO = "ansible/ansible"
DEFAULT_COMMIT = "c9ac477e53a99e95781f333eec3329a935c1bf95"
EDITED = "lib/ansible/module_utils/common/text/converters.py"


def ccstate(project: Path, *args: str) -> tuple[float, str]:
    """Wall seconds and stdout of one `python -m ccstate ...` process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "ccstate", *args, "-C", str(project)],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    return time.perf_counter() - started, proc.stdout


def cold(project: Path, state: Path) -> dict[str, object]:
    shutil.rmtree(state, ignore_errors=True)
    started = time.perf_counter()
    progress = update.refresh(project, state, max_bytes=1 << 30, jobs=update.cpus())
    seconds = time.perf_counter() - started
    con = index.connect(state)
    stats = index.stats(con)
    con.close()
    return {
        "seconds": round(seconds, 2),
        "jobs": update.cpus(),
        "listed": progress.listed,
        "indexed": progress.indexed,
        "files": stats.files,
        "chunks": stats.chunks,
        "skipped": {k: len(v) for k, v in stats.skipped.items()},
        "index_mb": round(stats.bytes / 1e6, 1),
    }


def reindex_one(project: Path, state: Path, runs: int) -> dict[str, object]:
    """An edit of one file (a function appended), then the update, `runs` times."""
    path = project / EDITED
    original = path.read_text(encoding="utf-8")
    times, processes = [], []
    for run in range(runs):
        path.write_text(original + f"\n\ndef bench_added_{run}(value):\n    return value\n")
        started = time.perf_counter()
        progress = update.refresh(project, state, max_bytes=1 << 30, jobs=update.cpus())
        times.append(time.perf_counter() - started)
        assert progress.indexed == 1, progress
        path.write_text(original + f"\n\ndef bench_again_{run}(value):\n    return value\n")
        seconds, out = ccstate(project, "find", f"bench_again_{run}", "--limit", "1")
        assert EDITED in out, out
        processes.append(seconds)
    path.write_text(original)
    update.refresh(project, state, max_bytes=1 << 30)
    return {
        "refresh_median_s": round(statistics.median(times), 3),
        "refresh_max_s": round(max(times), 3),
        "find_process_median_s": round(statistics.median(processes), 3),
    }


def queries(project: Path, runs: int) -> dict[str, object]:
    words = [
        "parse yaml inventory host groups",
        "become password prompt",
        "galaxy collection install",
    ]
    times = [ccstate(project, "find", w, "--no-update")[0] for w in words * runs]
    return {"find_no_update_median_s": round(statistics.median(times), 3)}


def maps(project: Path, state: Path) -> dict[str, object]:
    first_s, first = ccstate(project, "map")
    second_s, second = ccstate(project, "map", "--no-update")
    con = index.connect(state)
    rebuilt_in_process = repo_map.build(con, repo_map.DEFAULT_TOKENS)
    con.close()
    shutil.rmtree(state)
    update.refresh(project, state, max_bytes=1 << 30, jobs=1)  # rebuilt from scratch, one job
    _third_s, third = ccstate(project, "map", "--no-update")
    return {
        "map_process_s": round(first_s, 2),
        "map_cached_process_s": round(second_s, 2),
        "identical_across_runs": first == second == third,
        "identical_to_in_process": first.rstrip("\n") == rebuilt_in_process,
        "map_chars": len(first),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", default=DEFAULT_REPO)
    parser.add_argument("--commit", default=DEFAULT_COMMIT)
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    mirror = args.mirrors / args.repo.replace("/", "+") / "repo"
    with tempfile.TemporaryDirectory(prefix="bench-find-") as tmp:
        project = Path(tmp) / "repo"
        Tree(mirror, project).checkout(args.commit, drop_logs=False)
        state = project / ".ccstate"
        result = {"repo": args.repo, "commit": args.commit, "cpus": os.cpu_count()}
        result["cold"] = cold(project, state)
        result["reindex_one_file"] = reindex_one(project, state, args.runs)
        result["queries"] = queries(project, args.runs)
        result["map"] = maps(project, state)
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
