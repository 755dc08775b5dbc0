"""Every command's text output at 80 and 140 columns, against reviewed golden files (#40).

Each golden file is the whole of stdout for one command at one width, under
tests/fixtures/text_output/. A decision prints as a table with its verdict first and one line
of caveat; no line is wider than the width. Regenerate with `CCSTATE_UPDATE_GOLDEN=1 pytest
tests/cli/test_text_output.py` and review the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate.cli import cli, doctor_cmd
from ccstate.install import doctor
from ccstate.recall import sources
from claude_md_cases import build_case
from helpers import (
    FIXTURES,
    MODERN,
    PUBLIC,
    REPO,
    corpus_absent,
    prompt_record,
    text_record,
    tool_result_record,
    tool_use_record,
    write_jsonl,
)

GOLDEN = FIXTURES / "text_output"
UPDATE = os.environ.get("CCSTATE_UPDATE_GOLDEN") == "1"  # read before conftest unsets it
WIDTHS = (80, 140)
TRANSCRIPTS = FIXTURES / "transcripts"
SID = "3f2a9c1e-0000-4000-8000-000000000040"


def invoke(width: int, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": str(width)})
    return result.exit_code, result.stdout, result.stderr


def check_golden(name: str, width: int, out: str) -> None:
    """`out` is the golden file's text, and no line of it is wider than `width`."""
    path = GOLDEN / f"{name}.{width}.txt"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out)
    assert path.exists(), f"no golden file {path}: run with CCSTATE_UPDATE_GOLDEN=1, then review"
    assert out == path.read_text()
    wide = [line for line in out.splitlines() if len(line) > width]
    assert wide == [], f"{len(wide)} line(s) over {width} columns"


@pytest.mark.parametrize("width", WIDTHS)
def test_report_advice_is_a_table_per_decision(width: int) -> None:
    """The TTL and the compaction decisions: verdict, table, one line of caveat each."""
    code, out, err = invoke(width, "report", str(TRANSCRIPTS / "audit_classes.jsonl"), "--advice")
    assert (code, err) == (0, "")
    check_golden("report_advice", width, out)
    lines = out.splitlines()
    assert lines[0] == "Cache TTL: keep what you have; ccstate changed nothing"
    assert lines[0] in out and "Compaction: " in out


@pytest.mark.parametrize("width", WIDTHS)
def test_report_advice_with_one_scope(width: int) -> None:
    """No subagents: the TTL table has one column; the compaction replays all cost more."""
    case = str(TRANSCRIPTS / "compaction_replay.jsonl")
    code, out, err = invoke(width, "report", case, "--advice")
    assert (code, err) == (0, "")
    check_golden("report_advice_one_scope", width, out)
    assert "Compaction: keep Claude Code's threshold; none saves over 5%" in out.splitlines()


@pytest.mark.skipif(not MODERN.is_dir(), reason=corpus_absent(MODERN))
@pytest.mark.parametrize("width", WIDTHS)
def test_report_advice_that_changes_settings(width: int) -> None:
    """The modern corpus: the other TTL pays for the main conversation, and compacting
    earlier pays; each verdict names the setting."""
    code, out, err = invoke(width, "report", str(MODERN), "--advice")
    assert (code, err) == (0, "")
    check_golden("report_advice_modern", width, out)
    lines = out.splitlines()
    assert (
        lines[0] == "Cache TTL: switch the main conversation to 5 minutes; ccstate changed nothing"
    )
    verdict = next(line for line in lines if line.startswith("Compaction: "))
    assert re.fullmatch(
        r"Compaction: set CLAUDE_CODE_AUTO_COMPACT_WINDOW=\d+; \$[\d.,]+ \(\d+%\) less", verdict
    )


@pytest.mark.skipif(not PUBLIC.is_dir(), reason=corpus_absent(PUBLIC))
@pytest.mark.parametrize("width", WIDTHS)
def test_report_advice_on_the_public_corpus(width: int) -> None:
    """Issue #40's check: `COLUMNS=80 ccstate report --advice` on the public corpus."""
    code, out, err = invoke(width, "report", str(PUBLIC), "--advice")
    assert (code, err) == (0, "")
    check_golden("report_advice_public", width, out)
    assert sum(line.startswith("┏") for line in out.splitlines()) == 2  # a table per decision


def test_docs_quote_the_advice_as_it_prints() -> None:
    """docs/REPORT.md shows both decision tables of the public corpus's golden file."""
    doc = (REPO / "docs" / "REPORT.md").read_text()
    for block in (GOLDEN / "report_advice_public.80.txt").read_text().split("\n\n"):
        assert f"```text\n{block.rstrip()}\n```" in doc  # text: no command to check in it


@pytest.mark.parametrize("width", WIDTHS)
def test_report(width: int) -> None:
    code, out, err = invoke(width, "report", str(TRANSCRIPTS / "audit_classes.jsonl"))
    assert (code, err) == (0, "")
    check_golden("report", width, out)


@pytest.mark.parametrize("width", WIDTHS)
def test_replay(width: int, tmp_path: Path) -> None:
    session = FIXTURES / "replay" / "session.jsonl"
    code, out, err = invoke(width, "replay", str(session), "-C", str(tmp_path))
    assert (code, err) == (0, "")
    check_golden("replay", width, out)
    verdict = "ccstate keeps out 54.4% of all tool-result token-turns; safety checks passed"
    assert verdict in out.splitlines()


@pytest.mark.parametrize("width", WIDTHS)
def test_lint(width: int, tmp_path: Path, isolated_home: Path) -> None:
    project = build_case("imports", tmp_path, isolated_home)
    code, out, err = invoke(width, "lint", str(project))
    assert (code, err) == (1, "")
    check_golden("lint", width, out)
    assert "Findings: 1 error(s), 6 warning(s), 2 info(s)" in out.splitlines()


CHECKS = [
    doctor.Check("python", "ok", "3.11.7 at /home/me/.local/share/ccstate/venv/bin/python"),
    doctor.Check("hooks", "fail", "not wired: run 'ccstate init' here, or install the plugin"),
    doctor.Check("claude", "warn", "2.1.100: read dedupe needs 2.1.121 or newer"),
    doctor.Check(
        "recall",
        "info",
        "no index yet: the first PreCompact or SessionEnd builds it, or run 'ccstate recall "
        "--reindex'",
    ),
]


@pytest.mark.parametrize("width", WIDTHS)
def test_doctor(
    width: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The checks as doctor renders them (the real ones depend on the machine)."""
    monkeypatch.setenv("COLUMNS", str(width))
    doctor_cmd._render_checks(Path("/home/me/project"), CHECKS)
    out = capsys.readouterr().out
    check_golden("doctor", width, out)
    assert out.splitlines()[0] == ("ccstate doctor: 1 check(s) failed: hooks; 1 warning(s): claude")


@pytest.fixture
def recall_project(git_project: Path) -> Path:
    """One session: a failing test run, its fix, and a long answer that wraps."""
    folder = sources.transcripts_folder(git_project, os.environ)
    answer = (
        "The webhook client now retries three times with exponential backoff (0.5 s, 1 s, 2 s) "
        "and gives up with a WebhookDeliveryError naming the endpoint and the last status; the "
        "retry budget lives in config/webhooks.yaml under delivery.max_attempts."
    )
    write_jsonl(
        folder / f"{SID}.jsonl",
        [
            prompt_record("add a retry with backoff to the webhook client", SID),
            tool_use_record("t1", "Bash", {"command": "npm test -- webhook"}, SID),
            tool_result_record("t1", "Exit code 1\nError: ECONNRESET in webhook retry", True, SID),
            text_record(answer, SID),
        ],
    )
    return git_project


@pytest.mark.parametrize("width", WIDTHS)
def test_recall(width: int, recall_project: Path) -> None:
    """A line per hit as #38 made it; a longer one wraps under its REF."""
    code, out, err = invoke(width, "recall", "webhook retry backoff", "-C", str(recall_project))
    assert (code, err) == (0, "")
    check_golden("recall", width, out)
    assert [line[:3] for line in out.splitlines() if line[:1].isdigit()] == ["1. ", "2. ", "3. "]


@pytest.mark.parametrize("width", WIDTHS)
def test_recall_without_a_strong_hit(width: int, recall_project: Path) -> None:
    args = ("recall", "webhook", "kubernetes", "ingress", "helm", "-C", str(recall_project))
    code, out, err = invoke(width, *args)
    assert (code, err) == (0, "")
    check_golden("recall_weak", width, out)
