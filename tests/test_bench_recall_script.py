"""bench/bench_recall.py --breakdown: where indexing's time goes, on a tiny corpus."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from helpers import REPO, prompt_record, tool_result_record, tool_use_record, write_jsonl


def test_the_breakdown_times_the_scan_the_extraction_and_the_extraction_without_rules(
    tmp_path: Path,
) -> None:
    key = "AKIA" + "Z7QW4RTY8UIO2PLK"
    records = [
        prompt_record("deploy the site", "s1", "2026-03-01T10:00:00Z"),
        tool_use_record("t1", "Bash", {"command": "cat deploy.log"}, "s1", "2026-03-01T10:00:01Z"),
        tool_result_record("t1", f"aws_access_key_id = {key}\n" + "ok\n" * 800, session="s1"),
    ]
    write_jsonl(tmp_path / "corpus" / "s1.jsonl", records)
    script = REPO / "bench" / "bench_recall.py"
    done = subprocess.run(
        [
            sys.executable,
            str(script),
            "--breakdown",
            "--rounds",
            "1",
            "--corpus",
            str(tmp_path / "corpus"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("1 transcripts,"), done.stdout
    rows = [re.search(r"(\d+\.\d\d)s\s+(\d+\.\d\d)x", line) for line in lines[1:4]]
    assert all(rows), done.stdout
    assert rows[0] is not None and rows[0].group(2) == "1.00"  # the scan is the unit
    assert re.search(r"redaction: -?\d+% of extraction", lines[3]), done.stdout


def test_a_timed_process_reports_its_own_peak_memory_and_fails_loudly(tmp_path: Path) -> None:
    # Measured from a fresh interpreter: on Linux a child's maxrss starts at its parent's
    # resident set at fork (vfork shares it), so inside a grown pytest process the figure
    # would be pytest's, not the child's.
    script = str(REPO / "bench" / "bench_recall.py")
    probe = f"""
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("bench_recall", {script!r})
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
env = dict(os.environ)
wall, cpu = bench.timed(
    [sys.executable, "-c", "x = bytearray(80 << 20); x[::4096] = b'1' * len(x[::4096])"], env
)
assert wall > 0 and cpu > 0
print(bench.PEAK_MB[0])
try:
    bench.timed([sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"], env)
except SystemExit as exc:
    print("raised:", exc)
"""
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    peak, raised = done.stdout.splitlines()
    assert 80 <= float(peak) < 400  # this child's resident set, not its parent's
    assert re.search(r"failed \(3\).*boom", raised), raised
