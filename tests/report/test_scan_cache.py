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
    assert scan_cache.default_path(env) == tmp_path / ".cache" / "ccstate" / "report-scans.jsonl"
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    assert scan_cache.default_path(env).parent == tmp_path / "xdg" / "ccstate"
    env["CCSTATE_HOME"] = str(tmp_path / "st")
    assert scan_cache.default_path(env).parent == tmp_path / "st" / "cache"
    assert os.fspath(scan_cache.default_path(env)).endswith("report-scans.jsonl")


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


def _two_transcripts(tmp_path: Path) -> tuple[Path, Path]:
    one = _copy(tmp_path)
    two = one.with_name("second.jsonl")
    shutil.copyfile(FIXTURES / "audit_classes.jsonl", two)
    return one, two


def test_one_changed_transcript_appends_one_line(tmp_path: Path) -> None:
    one, two = _two_transcripts(tmp_path)
    path = tmp_path / "c.jsonl"
    cache = scan_cache.ScanCache(path, PREFIXES)
    for f in (one, two):
        cache.put(f, usage.scan_file(f, PREFIXES))
    cache.save()
    before = path.read_bytes()
    assert len(before.splitlines()) == 3  # the header, one line per transcript
    assert os.stat(path).st_mode & 0o777 == 0o600  # it holds paths from transcripts
    with two.open("a") as fh:
        fh.write('{"type":"brand-new-type"}\n')
    cache = scan_cache.ScanCache(path, PREFIXES)
    assert cache.get(one) is not None and cache.get(two) is None
    fresh = usage.scan_file(two, PREFIXES)
    cache.put(two, fresh)
    cache.save()
    after = path.read_bytes()
    assert after.startswith(before)  # appended, nothing rewritten
    assert len(after.splitlines()) == 4
    reopened = scan_cache.ScanCache(path, PREFIXES)
    assert reopened.get(two) == fresh  # the later line wins
    assert reopened.get(one) == usage.scan_file(one, PREFIXES)


def test_a_line_cut_short_is_skipped_and_the_next_append_still_reads(tmp_path: Path) -> None:
    one, two = _two_transcripts(tmp_path)
    path = tmp_path / "c.jsonl"
    cache = scan_cache.ScanCache(path, PREFIXES)
    cache.put(one, usage.scan_file(one, PREFIXES))
    cache.save()
    with path.open("ab") as fh:
        fh.write(b'{"path": "/x", "stamp": [1, 2], "scan": {"tur')  # a crash mid-append
    cache = scan_cache.ScanCache(path, PREFIXES)
    assert cache.get(one) is not None
    fresh = usage.scan_file(two, PREFIXES)
    cache.put(two, fresh)
    cache.save()
    reopened = scan_cache.ScanCache(path, PREFIXES)
    assert reopened.get(two) == fresh and reopened.get(one) is not None
    assert set(reopened.entries) == {str(one.resolve()), str(two.resolve())}


def test_a_mostly_stale_cache_is_rewritten_compactly(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(scan_cache, "_SLACK", 0)
    one, _two = _two_transcripts(tmp_path)
    path = tmp_path / "c.jsonl"
    scan = usage.scan_file(one, PREFIXES)
    for _ in range(4):  # the same transcript scanned again and again
        cache = scan_cache.ScanCache(path, PREFIXES)
        cache.put(one, scan)
        cache.save()
    assert len(path.read_bytes().splitlines()) <= 3  # live lines, at most as many stale
    assert scan_cache.ScanCache(path, PREFIXES).get(one) == scan


def test_a_new_cache_replaces_the_legacy_single_document(tmp_path: Path) -> None:
    one = _copy(tmp_path)
    legacy = tmp_path / "report-scans.json"
    legacy.write_text('{\n  "code": "old",\n  "entries": {}\n}\n')
    cache = scan_cache.ScanCache(tmp_path / "report-scans.jsonl", PREFIXES)
    cache.put(one, usage.scan_file(one, PREFIXES))
    cache.save()
    assert not legacy.exists() and (tmp_path / "report-scans.jsonl").is_file()
