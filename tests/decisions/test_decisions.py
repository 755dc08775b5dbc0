"""DECISIONS.md: format round trips, capsule index, record/supersede/revert, lint, fix, CLI.

Golden files sit beside their inputs under tests/fixtures/decisions/; regenerate with
CCSTATE_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccstate.cli import cli
from ccstate.decisions import edit as decisions_edit
from ccstate.decisions import lint as decisions_lint
from ccstate.decisions import log as decisions
from ccstate.errors import CcstateError
from helpers import FIXTURES, hook_env

CASES = FIXTURES / "decisions"
UPDATE = os.environ.get("CCSTATE_UPDATE_GOLDEN") == "1"  # read before conftest clears CCSTATE_*


def inputs(folder: str) -> list[Path]:
    return sorted(p for p in (CASES / folder).glob("*.md") if ".expected" not in p.name)


def golden(path: Path, actual: str) -> None:
    if UPDATE:
        path.write_text(actual)
        return
    assert path.exists(), f"no golden file {path}: run with CCSTATE_UPDATE_GOLDEN=1, then review"
    assert actual == path.read_text()


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def problems_text(found: list[decisions.Problem] | tuple[decisions.Problem, ...]) -> str:
    return "".join(f"{p.line}: {p.level}: {p.message}\n" for p in found)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def state(project: Path) -> Path:
    return project / ".ccstate"


def record(project: Path, title: str, **kw: object) -> decisions.Decision:
    kw.setdefault("date", "2026-03-01")
    text = str(kw.pop("decision", f"We do {title.lower()}."))
    return decisions_edit.record(project, state(project), title, text, **kw)  # type: ignore[arg-type]


def text_of(project: Path) -> str:
    return (project / "DECISIONS.md").read_text()


# --------------------------------------------------------------------------- format


@pytest.mark.parametrize("case", inputs("canonical"), ids=lambda p: p.stem)
def test_parse_then_render_is_identity_on_canonical_files(case: Path) -> None:
    text = case.read_text()
    log = decisions.parse_log(text)
    assert log.problems == ()
    assert decisions.render_log(log.preamble, log.decisions()) == text


@pytest.mark.parametrize("case", inputs("hand"), ids=lambda p: p.stem)
def test_hand_edited_files_parse_to_the_canonical_form(case: Path) -> None:
    log = decisions.parse_log(case.read_text())
    assert log.problems == ()
    canonical = decisions.render_log(log.preamble, log.decisions())
    golden(case.with_suffix(".expected.md"), canonical)
    again = decisions.parse_log(canonical)
    assert again.decisions() == log.decisions()


@pytest.mark.parametrize("case", inputs("bad"), ids=lambda p: p.stem)
def test_broken_files_give_errors_naming_the_line(case: Path) -> None:
    found = decisions.parse_log(case.read_text()).problems
    assert any(p.level == "error" for p in found)
    golden(case.with_suffix(".expected.txt"), problems_text(found))


def test_the_template_is_a_header_without_decisions() -> None:
    log = decisions.parse_log(decisions.template_text())
    assert (log.entries, log.problems, log.next_id) == ((), (), 1)
    assert log.markers == ((2, 1),)
    assert (CASES / "canonical" / "template.md").read_text() == decisions.template_text()


def test_render_entry_reads_back_to_the_same_decision() -> None:
    made = decisions.Decision(
        7,
        "Use SQLite",
        "superseded",
        9,
        "2026-03-01",
        (2, 4),
        "One line.\n\nA second paragraph.",
        "1. first\n2. second",
        "Fine.",
        (("Owner", "me"),),
    )
    back = decisions.parse_log("\n".join(decisions.render_entry(made))).decisions()
    assert back == [made]


def test_unknown_fields_survive_and_values_are_immutable() -> None:
    log = decisions.parse_log((CASES / "canonical" / "log.md").read_text())
    d3 = log.find(3)[0].decision
    assert d3.extra == (("Owner", "platform team"),)
    with pytest.raises(AttributeError):
        d3.title = "changed"  # type: ignore[misc]


def test_parse_id_accepts_common_spellings() -> None:
    assert [decisions.parse_id(t) for t in ("D7", "d7", " 7 ", "D07", "X", "D", "0")] == [
        7,
        7,
        7,
        None,
        None,
        None,
        None,
    ]


# --------------------------------------------------------------------------- record


def test_record_creates_the_file_from_the_template_and_numbers_from_one(project: Path) -> None:
    made = record(project, "Use tabs", context="Why.", consequences="So.")
    assert made.id == "D1"
    log = decisions.parse_log(text_of(project))
    assert log.decisions() == [made]
    assert log.next_id == 2
    assert text_of(project) == decisions.render_log(
        decisions.template_text().replace("next-id=1", "next-id=2"), [made]
    )


def test_writes_keep_the_file_canonical(project: Path) -> None:
    for title in ("One", "Two", "Three"):
        record(project, title)
    record(project, "Four", supersedes=[2])
    decisions_edit.supersede(project, state(project), 1, 4)
    decisions_edit.revert(project, state(project), 3)
    text = text_of(project)
    log = decisions.parse_log(text)
    assert decisions.render_log(log.preamble, log.decisions()) == text
    assert decisions_lint.lint_log(log) == []


def test_ids_are_never_reused_after_a_hand_deletion(project: Path) -> None:
    record(project, "One")
    record(project, "Two")
    text = text_of(project)
    (project / "DECISIONS.md").write_text(text[: text.index("## D2")])
    assert record(project, "Three").id == "D3"  # the marker remembers D2 was used


def test_without_the_marker_the_highest_id_counts_and_the_marker_comes_back(
    project: Path,
) -> None:
    (project / "DECISIONS.md").write_text("# Decisions\n\n## D4: Four\n\n- Status: active\n")
    assert record(project, "Five").id == "D5"
    assert "<!-- ccstate: next-id=6 -->" in text_of(project).splitlines()[:3]


def test_an_empty_file_gets_the_marker_and_the_entry(project: Path) -> None:
    (project / "DECISIONS.md").write_text("")
    record(project, "D5: not an ID of ours")
    assert text_of(project) == (
        "<!-- ccstate: next-id=2 -->\n\n## D1: D5: not an ID of ours\n\n- Status: active\n"
        "- Date: 2026-03-01\n\n**Decision:** We do d5: not an id of ours.\n"
    )
    assert decisions.parse_log(text_of(project)).decisions()[0].title == "D5: not an ID of ours"


def test_hand_text_elsewhere_is_kept_byte_for_byte(project: Path) -> None:
    messy = (CASES / "hand" / "messy.md").read_text()
    (project / "DECISIONS.md").write_text(messy)
    record(project, "Four")
    marker = "<!-- ccstate: next-id=5 -->"  # the one line rewritten, besides the new entry
    expected = messy.replace("<!-- ccstate:   next-id=4   -->", marker).rstrip()
    assert text_of(project).startswith(expected + "\n\n## D4: Four\n")


def test_supersede_marks_both_sides(project: Path) -> None:
    record(project, "Old")
    record(project, "New")
    decisions_edit.supersede(project, state(project), 1, 2)
    log = decisions.parse_log(text_of(project))
    assert log.find(1)[0].decision.status_text == "superseded by D2"
    assert log.find(2)[0].decision.supersedes == (1,)


def test_revert_keeps_the_id_and_brings_back_what_it_superseded(project: Path) -> None:
    record(project, "Old")
    record(project, "New", supersedes=[1])
    assert decisions_edit.revert(project, state(project), 2) == [1]
    log = decisions.parse_log(text_of(project))
    assert [d.status_text for d in log.decisions()] == ["active", "reverted"]
    assert record(project, "Next").id == "D3"


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda p: record(p, "X", supersedes=[9]), "D9 is not in the file (highest ID: D2)"),
        (lambda p: record(p, "X", supersedes=[1]), "D1 is superseded by D2; it cannot be "),
        (
            lambda p: decisions_edit.supersede(p, state(p), 2, 1),
            "D2 can only be superseded by a newer decision (got D1)",
        ),
        (
            lambda p: decisions_edit.revert(p, state(p), 1),
            "D1 is superseded by D2; only an active decision can be reverted",
        ),
    ],
    ids=["dangling", "not-active", "older", "revert-superseded"],
)
def test_invalid_changes_are_refused_and_change_nothing(
    project: Path, action: object, message: str
) -> None:
    record(project, "Old")
    record(project, "New", supersedes=[1])
    before = text_of(project)
    with pytest.raises(CcstateError, match=re.escape(message)):
        action(project)  # type: ignore[operator]
    assert text_of(project) == before


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"title": "two\nlines"}, "the title must be one non-empty line"),
        ({"decision": "  "}, "--decision must say what was decided"),
        ({"context": "ok\n## D9: sneaky"}, "--context line 2 ('## D9: sneaky') would not read"),
        ({"consequences": "**Decision:** x"}, "--consequences line 1 ('**Decision:** x')"),
        ({"decision": "```\nopen fence"}, "close every ``` code fence"),
    ],
)
def test_text_that_would_not_read_back_is_refused(kw: dict[str, str], message: str) -> None:
    args = {"title": "T", "decision": "D", **kw}
    title, text = args.pop("title"), args.pop("decision")
    with pytest.raises(CcstateError, match=re.escape(message)):
        decisions_edit.new_decision(1, title, text, date="2026-03-01", **args)


def test_a_file_with_errors_is_refused_naming_the_line(project: Path) -> None:
    bad = CASES / "bad" / "stray-text.md"
    (project / "DECISIONS.md").write_text(bad.read_text())
    with pytest.raises(CcstateError) as info:
        record(project, "X")
    assert str(info.value) == (
        f"{project / 'DECISIONS.md'}:9: unexpected text in D1: put it under **Context:**, "
        "**Decision:** or **Consequences:**, or write a field as '- Status: active'; edit it by "
        "hand ('ccstate decisions lint --fix' cannot), then rerun (`ccstate decisions lint` lists "
        "every problem)"
    )


GARBAGE = "Notes from the planning call\n\n## Cache\n\nwe said sqlite, maybe\n"


def test_a_garbage_file_never_sends_the_user_to_a_fix_that_refuses(project: Path) -> None:
    """`decide` names what `lint --fix` cannot repair; `lint --fix` then agrees."""
    path = project / "DECISIONS.md"
    path.write_text(GARBAGE)
    code, out, err = invoke("decide", "T", "--decision", "x", "-C", str(project))
    assert (code, out) == (1, "")
    assert err == (
        f"Error: {path}:3: the entry '## Cache' has no '- Status:' line; add one, e.g. "
        "'- Status: active'; edit it by hand ('ccstate decisions lint --fix' cannot), then "
        "rerun; 2 more error(s) (`ccstate decisions lint` lists every problem)\n"
    )
    code, out, err = invoke("decisions", "lint", "--fix", "-C", str(project))
    assert code == 1 and "--fix cannot repair this, edit it by hand" in err
    assert path.read_text() == GARBAGE


def test_a_file_whose_errors_fix_can_repair_points_to_it(project: Path) -> None:
    path = project / "DECISIONS.md"
    path.write_text((CASES / "bad" / "malformed-id.md").read_text())
    code, _, err = invoke("decide", "T", "--decision", "x", "-C", str(project))
    assert code == 1
    assert "('ccstate decisions lint --fix' numbers it); then rerun (`ccstate" in err
    assert invoke("decisions", "lint", "--fix", "-C", str(project))[0] == 0
    assert invoke("decide", "T", "--decision", "x", "-C", str(project))[0] == 0


def test_an_unknown_status_is_never_listed_as_active(project: Path) -> None:
    path = project / "DECISIONS.md"
    path.write_text(
        "# Decisions\n\n## D1: Use tabs\n\n- Status: bogus\n- Date: 2026-01-05\n\n"
        "## D2: Use SQLite\n\n- Status: active\n- Date: 2026-01-06\n"
    )
    code, out, err = invoke("decisions", "--all", "-C", str(project))
    assert (code, out) == (
        0,
        "D2  2026-01-06  active                  Use SQLite\n"
        "D1  2026-01-05  'bogus' (not a status)  Use tabs\n",
    )
    assert err.startswith(f"warning: {path}:5: status 'bogus' in D1 is not one of: active, ")
    assert invoke("decisions", "-C", str(project))[1] == "D2  2026-01-06  Use SQLite\n"
    assert (
        json.loads(invoke("decisions", "--all", "--json", "-C", str(project))[1])[1]["status"]
        == "unknown"
    )
    from ccstate.decisions import capsule

    log = decisions.parse_log(path.read_text())
    assert capsule.capsule_lines(capsule.summarize(log), 10)[1:] == ["  - D2: Use SQLite"]


# --------------------------------------------------------------------------- concurrency

WORKER = """
import os, sys, time
from ccstate.cli import cli
project, go, worker, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
while not os.path.exists(go):
    time.sleep(0.001)
for i in range(count):
    cli.main(["decide", f"W{worker}-{i}", "--decision", "x", "-C", project],
             standalone_mode=False)
"""


def spawn(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv, cwd=cwd, env=hook_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def check_unique_and_complete(project: Path, outputs: list[str], titles: set[str]) -> None:
    printed = [line.split()[1] for out in outputs for line in out.splitlines()]
    log = decisions.parse_log(text_of(project))
    numbers = sorted(d.number for d in log.decisions())
    assert numbers == list(range(1, len(titles) + 1))
    assert sorted(printed, key=lambda s: int(s[1:])) == [f"D{n}" for n in numbers]
    assert {d.title for d in log.decisions()} == titles
    assert log.next_id == len(titles) + 1
    assert decisions_lint.lint_log(log) == []


def test_four_decide_processes_at_once_get_unique_ids_and_lose_nothing(
    project: Path, tmp_path: Path
) -> None:
    procs = [
        spawn([sys.executable, "-m", "ccstate", "decide", f"P{w}", "--decision", "x"], project)
        for w in range(4)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], outs
    check_unique_and_complete(project, [o for o, _ in outs], {f"P{w}" for w in range(4)})


def test_four_processes_racing_in_a_loop_get_unique_ids(project: Path, tmp_path: Path) -> None:
    go, count = tmp_path / "go", 8
    procs = [
        spawn([sys.executable, "-c", WORKER, str(project), str(go), str(w), str(count)], project)
        for w in range(4)
    ]
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], outs
    titles = {f"W{w}-{i}" for w in range(4) for i in range(count)}
    check_unique_and_complete(project, [o for o, _ in outs], titles)


def test_twenty_writers_with_different_state_homes_lose_nothing(
    project: Path, tmp_path: Path
) -> None:
    """#12 item 6: the lock sits beside what it protects (the project's DECISIONS.md), so
    writers whose CCSTATE_HOME differ still exclude each other."""
    # Each writer is the CLI (`main`, as `python -m ccstate` runs it), started once its imports
    # are done: what contends is the lock, not twenty interpreters starting on a busy machine
    # (cold starts under CI's load kept the last writers past the lock's 15 s).
    go = tmp_path / "go"
    barrier = (
        "import os, sys, time\n"
        "from ccstate.cli import load_all_commands, main\n"
        "load_all_commands()\n"
        "while not os.path.exists(sys.argv[1]):\n"
        "    time.sleep(0.001)\n"
        "sys.argv = ['ccstate', *sys.argv[2:]]\n"
        "main()\n"
    )
    procs = []
    for w in range(20):
        argv = [sys.executable, "-c", barrier, str(go), "decide", f"H{w}", "--decision", "x"]
        env = hook_env(CCSTATE_HOME=str(tmp_path / f"home{w}"))
        procs.append(
            subprocess.Popen(
                argv,
                cwd=project,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    time.sleep(1.0)  # most are waiting at the barrier by now; a late one joins the race later
    go.touch()
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0] * 20, outs
    printed = [o.strip() for o, _ in outs]
    assert len(set(printed)) == 20, printed
    check_unique_and_complete(project, printed, {f"H{w}" for w in range(20)})


def test_a_killed_writers_temp_file_is_swept_and_no_lock_file_is_left(project: Path) -> None:
    """#12 item 8: a `decide` killed mid-write leaves `.DECISIONS.md.<pid>.<n>.tmp`; the next
    writer (holding the lock, so no live writer owns it) removes it. No lock file either."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    stale = project / ".DECISIONS.md.4242.123456.tmp"
    stale.write_text("half a file")
    decisions_edit.record(project, state(project), "T", "x", date="2026-01-01")
    assert sorted(p.name for p in project.iterdir() if p.name != ".ccstate") == [
        ".git",
        "DECISIONS.md",
    ]
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status.split() == ["??", "DECISIONS.md"]


# --------------------------------------------------------------------------- lint and fix


@pytest.mark.parametrize("case", inputs("lint"), ids=lambda p: p.stem)
def test_lint_findings(case: Path) -> None:
    found = decisions_lint.lint_log(decisions.parse_log(case.read_text()))
    golden(case.with_suffix(".expected.txt"), problems_text(found))


@pytest.mark.parametrize("case", inputs("fix"), ids=lambda p: p.stem)
def test_fix_repairs_merges_without_losing_an_entry(case: Path) -> None:
    text = case.read_text()
    fixed = decisions_lint.fix_text(text)
    golden(case.with_suffix(".expected.md"), fixed.text)
    golden(case.with_suffix(".changes.expected.txt"), "".join(c + "\n" for c in fixed.changes))
    log = decisions.parse_log(fixed.text)
    assert [p for p in decisions_lint.lint_log(log) if p.level == "error"] == []
    titles = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(log.entries) == len(titles)  # nothing dropped
    numbers = [d.number for d in log.decisions()]
    assert len(set(numbers)) == len(numbers)
    assert decisions_lint.fix_text(fixed.text).changes == ()  # idempotent


def test_fix_points_references_at_the_entry_they_meant() -> None:
    fixed = decisions_lint.fix_text((CASES / "fix" / "git-conflict.md").read_text())
    by_title = {d.title: d for d in decisions.parse_log(fixed.text).decisions()}
    assert by_title["Base two"].superseded_by == by_title["Feat A"].number == 5
    assert by_title["Feat A"].superseded_by == by_title["Feat A2"].number == 6
    assert by_title["Feat A2"].supersedes == (5,)
    assert by_title["Feat A2"].decision == "fa2, see D5"
    assert by_title["Main X"].number == 3


def test_fix_refuses_what_it_cannot_repair() -> None:
    with pytest.raises(CcstateError, match=r"^x\.md:8: a second '- Status:' line in D1; keep one"):
        decisions_lint.fix_text((CASES / "bad" / "conflict.md").read_text(), "x.md")


# --------------------------------------------------------------------------- CLI


def test_cli_decide_prints_the_entry_and_where_it_went(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["decide", "Use tabs", "--decision", "Tabs.", "--date", "2026-03-01", "-C", str(project)]
    path = project / "DECISIONS.md"
    assert invoke(*args) == (0, f"Recorded D1 ({path}): Use tabs\n", "")
    monkeypatch.chdir(project)
    assert invoke(*args[:-2], "--supersedes", "d1") == (
        0,
        "Recorded D2 (DECISIONS.md): Use tabs\nD1 is now superseded by D2\n",
        "",
    )
    assert "- Status: superseded by D2" in text_of(project)


def test_cli_decide_dates_today_by_default(project: Path) -> None:
    before = datetime.date.today().isoformat()
    invoke("decide", "T", "--decision", "x", "-C", str(project))
    date = decisions.parse_log(text_of(project)).decisions()[0].date
    assert date in {before, datetime.date.today().isoformat()}


def test_cli_decide_rejects_bad_input(project: Path) -> None:
    code, out, err = invoke("decide", "T", "--decision", "x", "--supersedes", "X", "-C", ".")
    assert (code, out) == (2, "")
    assert "'X' is not a decision ID; use D<n>, e.g. D3" in err
    code, _, err = invoke("decide", "T", "--decision", "x", "--date", "3 March", "-C", ".")
    assert (code, err) == (
        2,
        "Error: --date: '3 March' is not a date; use YYYY-MM-DD, e.g. 2026-03-01\n",
    )
    assert not (project / "DECISIONS.md").exists()


def test_cli_index_show_supersede_revert(project: Path) -> None:
    (project / "DECISIONS.md").write_text((CASES / "canonical" / "log.md").read_text())
    c = ["-C", str(project)]
    assert invoke("decisions", *c) == (
        0,
        "D5  2026-01-10  Cite decisions by ID\n"
        "D4  2026-01-09  Use SQLite for the usage cache\n"
        "D1  2026-01-05  Store handoffs as JSON under .ccstate/\n",
        "",
    )
    code, out, _ = invoke("decisions", "--all", *c)
    assert code == 0 and out.splitlines()[2:4] == [
        "D3  2026-01-08  reverted          Hooks import only the standard library",
        "D2  2026-01-07  superseded by D4  Use PostgreSQL for the usage cache",
    ]
    code, out, _ = invoke("decisions", "--json", *c)
    assert [d["id"] for d in json.loads(out)] == ["D5", "D4", "D1"]
    assert invoke("decisions", "show", "D2", *c) == (
        0,
        "## D2: Use PostgreSQL for the usage cache\n\n- Status: superseded by D4\n"
        "- Date: 2026-01-07\n\n**Context:** We wanted SQL over the usage records.\n\n"
        "**Decision:** Run a local PostgreSQL for the cache.\n",
        "",
    )
    assert json.loads(invoke("decisions", *c, "show", "5", "--json")[1])["title"] == (
        "Cite decisions by ID"
    )
    assert invoke("decisions", "supersede", "D1", "--by", "D5", *c) == (
        0,
        "D1 is now superseded by D5\n",
        "",
    )
    assert invoke("decisions", "revert", "D4", *c) == (
        0,
        "D4 reverted\nD2 is active again (D4 had superseded it)\n",
        "",
    )
    assert invoke("decisions", "show", "D9", *c) == (
        1,
        "",
        f"Error: {project / 'DECISIONS.md'}: D9 is not in the file (highest ID: D5)\n",
    )


def test_cli_index_when_there_is_nothing(project: Path) -> None:
    expected = 'No decisions yet; record one with: ccstate decide "Title" --decision "..."\n'
    assert invoke("decisions", "-C", str(project)) == (0, expected, "")
    assert invoke("decisions", "--json", "-C", str(project)) == (0, "[]\n", "")


def test_cli_index_warns_about_a_broken_file_but_still_lists(project: Path) -> None:
    (project / "DECISIONS.md").write_text((CASES / "bad" / "malformed-id.md").read_text())
    code, out, err = invoke("decisions", "-C", str(project))
    assert (code, out) == (0, "D1  -           Use tabs\n")
    assert err.startswith(f"warning: {project / 'DECISIONS.md'}:9: heading '## D2 - Use spaces'")


def test_cli_lint_exit_codes_and_text(project: Path) -> None:
    path = project / "DECISIONS.md"
    path.write_text((CASES / "lint" / "clean.md").read_text())
    assert invoke("decisions", "lint", "-C", str(project)) == (0, f"{path}: no problems\n", "")
    path.write_text((CASES / "lint" / "marker-low.md").read_text())
    code, out, _ = invoke("decisions", "lint", "-C", str(project))
    assert code == 1
    assert out == (
        f"{path}:3: error: next-id=2 but D3 exists; 'ccstate decisions lint --fix' sets it to 4\n"
        f"{path}:5: error: D1 is superseded by D3, which is reverted; set D1 '- Status: active' "
        "(a revert brings back what it superseded)\n"
        "2 error(s), 0 warning(s)\n"
    )


def test_cli_lint_fix_repairs_a_git_merge(project: Path) -> None:
    path = project / "DECISIONS.md"
    path.write_text((CASES / "fix" / "git-conflict.md").read_text())
    assert invoke("decide", "X", "--decision", "x", "-C", str(project))[0] == 1
    code, out, err = invoke("decisions", "lint", "--fix", "-C", str(project))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "fixed: lines 3-7: merge conflict resolved by keeping both sides",
        "fixed: lines 28-51: merge conflict resolved by keeping both sides",
        "fixed: D3 ('Feat A') is now D5",
        "fixed: D4 ('Feat A2') is now D6",
        "fixed: references to renumbered decisions updated in D2, D5, D6",
        "fixed: next-id marker set to 7",
        f"{path}: no problems",
    ]
    assert invoke("decide", "X", "--decision", "x", "-C", str(project)) == (
        0,
        f"Recorded D7 ({path}): X\n",
        "",
    )


def test_cli_lint_without_a_file(project: Path) -> None:
    path = project / "DECISIONS.md"
    assert invoke("decisions", "lint", "-C", str(project)) == (
        0,
        f"{path}: not found; nothing to check\n",
        "",
    )


def test_cli_group_project_option_reaches_subcommands(project: Path) -> None:
    record(project, "One")
    assert invoke("decisions", "-C", str(project), "show", "D1")[0] == 0


def test_init_creates_decisions_md_once_and_never_replaces_it(project: Path) -> None:
    code, out, _ = invoke("init", "-C", str(project))
    assert code == 0 and "create  DECISIONS.md  (numbered decision log, header only)" in out
    assert text_of(project) == decisions.template_text()
    (project / "DECISIONS.md").write_text("# mine\n")
    code, out, _ = invoke("init", "--force", "-C", str(project))
    assert "skip  DECISIONS.md  (exists (your decisions; never replaced" in out
    assert text_of(project) == "# mine\n"
