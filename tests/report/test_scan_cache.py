"""The report's scan cache: a hit equals a fresh scan; any change means a fresh scan."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ccstate.report import scan_cache, usage
from helpers import FIXTURES as FIXTURE_ROOT

FIXTURES = FIXTURE_ROOT / "transcripts"
PREFIXES = ("[ccstate: not file content]",)


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "projects" / "-p-app"
    shutil.copytree(FIXTURES / "projects" / "-p-app", target)
    return next(target.glob("*.jsonl"))


def test_a_cached_scan_equals_a_fresh_one(tmp_path: Path) -> None:
    transcript = _copy(tmp_path)
    fresh = usage.scan_file(transcript, PREFIXES)
    cache = scan_cache.ScanCache(tmp_path / "c.json", PREFIXES)
    assert cache.get(transcript) is None
    cache.put(transcript, fresh)
    cache.save()
    reopened = scan_cache.ScanCache(tmp_path / "c.json", PREFIXES)
    assert reopened.get(transcript) == fresh
    assert reopened.get(transcript) == fresh  # reading an entry leaves it whole


def test_a_changed_file_or_other_prefixes_miss(tmp_path: Path) -> None:
    transcript = _copy(tmp_path)
    cache = scan_cache.ScanCache(tmp_path / "c.json", PREFIXES)
    cache.put(transcript, usage.scan_file(transcript, PREFIXES))
    cache.save()
    assert scan_cache.ScanCache(tmp_path / "c.json", ("other",)).get(transcript) is None
    with transcript.open("a") as fh:
        fh.write('{"type":"brand-new-type"}\n')  # a live session appends
    assert scan_cache.ScanCache(tmp_path / "c.json", PREFIXES).get(transcript) is None


def test_a_corrupt_or_unwritable_cache_is_no_error(tmp_path: Path) -> None:
    transcript = _copy(tmp_path)
    (tmp_path / "c.json").write_text("{not json")
    cache = scan_cache.ScanCache(tmp_path / "c.json", PREFIXES)
    assert cache.get(transcript) is None
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    cache = scan_cache.ScanCache(blocked / "c.json", PREFIXES)
    cache.put(transcript, usage.scan_file(transcript, PREFIXES))
    cache.save()  # cannot create the directory: silently skipped
    assert not (blocked / "c.json").exists()


def test_default_path_follows_ccstate_home_then_xdg(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    assert scan_cache.default_path(env) == tmp_path / ".cache" / "ccstate" / "report-scans.json"
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    assert scan_cache.default_path(env).parent == tmp_path / "xdg" / "ccstate"
    env["CCSTATE_HOME"] = str(tmp_path / "st")
    assert scan_cache.default_path(env).parent == tmp_path / "st" / "cache"
    assert os.fspath(scan_cache.default_path(env)).endswith("report-scans.json")


def test_the_audits_per_call_data_survives_the_cache(tmp_path: Path) -> None:
    """Lines, end times, events, effort, hook runs and context sizes come back as scanned."""
    transcript = tmp_path / "audit_classes.jsonl"
    shutil.copyfile(FIXTURES / "audit_classes.jsonl", transcript)
    fresh = usage.scan_file(transcript, PREFIXES)
    assert fresh.hook_runs and fresh.sizes and any(t.effort == "high" for t in fresh.turns.values())
    cache = scan_cache.ScanCache(tmp_path / "c.json", PREFIXES)
    cache.put(transcript, fresh)
    cache.save()
    assert scan_cache.ScanCache(tmp_path / "c.json", PREFIXES).get(transcript) == fresh
