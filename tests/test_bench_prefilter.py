"""bench/bench_prefilter.py, run once: it must time both ways and find them equal."""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import PUBLIC, REPO


@pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"{PUBLIC} is absent (shared corpus)")
def test_the_prefilter_bench_compares_both_ways_on_the_corpus_moments() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "bench_prefilter.py"),
            "--rounds",
            "1",
            "--corpus",
            str(PUBLIC),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    texts = lines[0].split()[0]  # the 33 public transcripts' moments (2,953 since #27.2)
    assert int(texts.replace(",", "")) > 2000
    assert lines[0].startswith(f"{texts} moment texts")
    assert [line.split()[0] for line in lines[1:4]] == ["one", "in", "redact"]
    assert f"the same rules for all {texts} texts" in lines[4]


def test_the_prefilter_bench_names_a_missing_corpus(tmp_path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "bench_prefilter.py"),
            "--corpus",
            str(tmp_path / "x"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "is absent" in proc.stderr
