"""`scan.report_all`: sessions built by the workers that scan them give the report
`build_report` gives from every scan, duplicates across sessions and the scan cache included."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ccstate.report import builder, pricing, scan, usage
from ccstate.report import summary as report
from helpers import FIXTURES

TRANSCRIPTS = FIXTURES / "transcripts"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def corpus(tmp_path: Path) -> list[Path]:
    """The fixture transcripts laid out as Claude Code keeps them, plus a session that repeats
    another's API responses (a resumed 1.0.x session copies them) and so must not count them."""
    root = tmp_path / "projects"
    shutil.copytree(TRANSCRIPTS / "projects", root)
    project = root / "-p-other"
    project.mkdir()
    for name in ("split_message", "old_format", "audit_classes"):
        shutil.copyfile(TRANSCRIPTS / f"{name}.jsonl", project / f"{name}.jsonl")
    shutil.copyfile(TRANSCRIPTS / "split_message.jsonl", project / "resumed.jsonl")
    return sorted(root.rglob("*.jsonl"))


def expected(files: list[Path]) -> tuple[object, ...]:
    return outputs(
        builder.build_report([usage.scan_file(f) for f in files], pricing.load_pricing())
    )


def outputs(result: report.Report) -> tuple[object, ...]:
    rebuilds = [r for s in result.sessions for r in s.scope.cache_audit.rebuilds]
    return report.report_json(result), report.csv_rows(result), rebuilds


@pytest.mark.parametrize("jobs", [1, 2])
def test_report_all_equals_build_report(tmp_path: Path, jobs: int) -> None:
    files = corpus(tmp_path)
    result = scan.report_all(files, jobs, pricing.load_pricing(), use_cache=False)
    assert result.cross_file_duplicates == 3  # the resumed session's copies, counted once
    assert outputs(result) == expected(files)


def test_a_session_repeating_an_earlier_one_is_built_from_its_scans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = corpus(tmp_path)
    built: list[str] = []
    add = builder.ReportBuilder.add

    def spy(self: builder.ReportBuilder, project: str, session_id: str, members: list) -> object:
        built.append(session_id)
        return add(self, project, session_id, members)

    monkeypatch.setattr(builder.ReportBuilder, "add", spy)
    result = scan.report_all(files, 1, pricing.load_pricing(), use_cache=False)  # in-process
    # every session is built on its own once; the one that repeats an earlier session's
    # responses (same first timestamp: the later path) once more, from its scans
    repeated = [s for s in set(built) if built.count(s) > 1]
    assert repeated == ["split_message"] and len(built) == len(result.sessions) + 1
    assert outputs(result) == expected(files)


def test_cold_then_warm_cache_then_one_change(tmp_path: Path) -> None:
    files = corpus(tmp_path)
    table = pricing.load_pricing()
    cold = scan.report_all(files, 2, table, use_cache=True)
    warm = scan.report_all(files, 2, table, use_cache=True)
    assert outputs(cold) == outputs(warm) == expected(files)
    changed = next(f for f in files if f.name == "audit_classes.jsonl")
    changed.write_text("\n".join(changed.read_text().splitlines()[:-3]) + "\n")
    assert outputs(scan.report_all(files, 2, table, use_cache=True)) == expected(files)
