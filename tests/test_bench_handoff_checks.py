"""bench/handoff_checks.py and its judged sample (#42): the done-when figures stay at 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import FIXTURES, MODERN, PUBLIC, REPO, SHARED, corpus_absent

JUDGED = FIXTURES / "handoff" / "checks_judged.json"


def test_the_judged_sample_holds_references_and_labels_not_transcript_text() -> None:
    data = json.loads(JUDGED.read_text())
    calls = data["calls"]
    assert len(calls) == 160 and "seed 42" in data["about"]
    assert {c["corpus"] for c in calls} == {"public", "modern"}
    keys = {"id", "corpus", "file", "call_line", "result_line", "is_check", "tools", "note"}
    assert all(set(c) == keys for c in calls)
    words = [t.get(k, "") for c in calls for t in c["tools"] for k in ("figure", "reason")]
    assert max(len(w) for w in [*words, *(c["note"] for c in calls)]) <= 100  # no outputs


@pytest.mark.skipif(not (PUBLIC.is_dir() and MODERN.is_dir()), reason=corpus_absent(PUBLIC))
def test_no_false_pass_and_no_listed_non_check_on_the_sample() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "handoff_checks.py")],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "CCSTATE_SHARED": str(SHARED)},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    out = proc.stdout
    assert "reported passed, judged failed or not installed: 0\n" in out
    assert "non-checks listed as checks: 0\n" in out
    assert "\n| both | " in out  # both corpora were read
