"""Tables at 80 columns and piped: every file name and number whole, nothing cut."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console
from rich.table import Table

from ccstate.cli import cli, tables
from helpers import FIXTURES

NAMES = ("3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f.jsonl", "b7e1d2c3-0000-4000-8000-00000000beef.jsonl")
SESSION = "0b5e1c2d-0000-4000-8000-00000000000c"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    """Two recorded sessions under real-looking (long) file names."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in NAMES:
        shutil.copy(FIXTURES / "replay" / "session.jsonl", folder / name)
    return folder


def assert_nothing_cut(out: str, width: int) -> None:
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= width


def test_replay_at_80_columns_names_every_file(
    sessions: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = invoke("replay", str(sessions), "-C", str(tmp_path))
    assert code == 0
    assert_nothing_cut(out, 80)
    lines = out.splitlines()
    for name in (*NAMES, "TOTAL"):
        assert name in lines
    assert (
        "  reads 10 · identical 3 · unseen 1 · diff 1 · shell 1 · held 0/1 · chars 5,770" in lines
    )
    assert (
        "  reads 20 · identical 6 · unseen 2 · diff 2 · shell 2 · held 0/2 · chars 11,540" in lines
    )


def test_replay_piped_keeps_one_line_per_file(
    sessions: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, _ = invoke("replay", str(sessions), "-C", str(tmp_path))
    assert code == 0
    assert_nothing_cut(out, tables.WIDTH_WHEN_PIPED)
    rows = [line for line in out.splitlines() if NAMES[0] in line]
    assert len(rows) == 1 and "5,770" in rows[0] and "7,340" in rows[0]


def test_report_at_80_columns_names_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = invoke("report", str(FIXTURES / "transcripts" / "projects"), "--no-cache")
    assert code == 0
    assert_nothing_cut(out, 80)
    lines = out.splitlines()
    assert lines.count(SESSION) == 2  # sessions and compactions
    assert "  started 2026-11-02 08:00 · calls 12 · input 52 · cache write 14,490" in lines


def test_report_piped_keeps_one_line_per_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, _ = invoke("report", str(FIXTURES / "transcripts" / "projects"), "--no-cache")
    assert code == 0
    assert_nothing_cut(out, tables.WIDTH_WHEN_PIPED)
    assert any(SESSION in line and "$0.14" in line for line in out.splitlines())


@pytest.mark.parametrize("command", ["doctor", "lint"])
def test_doctor_and_lint_fit_80_columns(
    command: str, git_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    invoke("init", "-C", str(git_project))
    monkeypatch.chdir(git_project)
    _, out, _ = invoke(command)
    assert_nothing_cut(out, 80)


def test_a_table_that_fits_is_printed_as_a_table() -> None:
    table = Table(title="t")
    table.add_column("name", overflow="fold")
    table.add_column("n", justify="right", no_wrap=True)
    table.add_row("a-long-file-name.jsonl", "1,234")
    console = Console(width=40, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    tables.print_table(console, table)
    text = console.export_text()
    assert "│ a-long-file-name.jsonl │ 1,234 │" in text
    # the name may fold down to FLEX_MIN (16), the number never: 16 + 5, padding 4, borders 3
    assert tables.needed_width(table) == 28
    narrow = Console(width=27, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    tables.print_table(narrow, table)
    assert narrow.export_text() == "t\na-long-file-name.jsonl\n  n 1,234\n"


def record(width: int) -> Console:
    return Console(width=width, record=True, file=io.StringIO())


def test_a_title_is_its_own_line_wrapped_without_trailing_spaces() -> None:
    """#40: rich wraps a title to the table's width and pads it; here it is the console's."""
    table = Table(title="Costliest 10 rebuilds (record line, idle gap, tokens written again)")
    table.add_column("n", justify="right")
    table.add_row("1")
    console = record(40)
    tables.print_table(console, table)
    assert console.export_text().splitlines() == [
        "Costliest 10 rebuilds (record line, idle",
        "gap, tokens written again)",
        "┏━━━┓",
        "┃ n ┃",
        "┡━━━┩",
        "│ 1 │",
        "└───┘",
    ]
    assert table.title is not None  # the caller's table is left as it was


def test_a_facts_table_without_headers_stacks_label_then_value() -> None:
    table = tables.facts_table("Summary", [("kept out", "5,725,944 of 52,485,722 token-turns")])
    wide = record(80)
    tables.print_table(wide, table)
    assert "│ kept out │ 5,725,944 of 52,485,722 token-turns │" in wide.export_text()
    narrow = record(30)
    tables.print_table(narrow, table)
    assert narrow.export_text() == "Summary\nkept out\n  5,725,944 of 52,485,722\n    token-turns\n"
