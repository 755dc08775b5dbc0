"""`ccstate handoff write|note|show`: exact output, exit codes and errors."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ccstate import paths
from ccstate.cli import cli
from helpers import FIXTURES

CASE = FIXTURES / "handoff" / "session.jsonl"
SID = "5e55104e-0000-4000-8000-00000000c0de"


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def rehomed(project: Path, tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text(CASE.read_text().replace("/work/demo", str(project)))
    return path


def recorded(project: Path, home: Path, tmp_path: Path) -> Path:
    """The session's transcript where Claude Code keeps it; its folder."""
    folder = home / ".claude" / "projects" / paths.project_slug(project)
    folder.mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_text(rehomed(project, tmp_path).read_text())
    return folder


def test_write_from_a_transcript_then_show(git_project: Path, tmp_path: Path) -> None:
    transcript = rehomed(git_project, tmp_path)
    code, out, err = invoke(
        "handoff", "write", "--transcript", str(transcript), "-C", str(git_project)
    )
    md = f".ccstate/handoff/branches/main/{SID}.md"
    assert (code, err) == (0, "")
    assert out.startswith(f"Wrote {md} (~") and out.endswith(" tokens)\n")
    again = invoke("handoff", "write", "--transcript", str(transcript), "-C", str(git_project))
    assert again[1].startswith(f"Unchanged {md} (~")
    code, out, err = invoke("handoff", "show", "-C", str(git_project))
    assert (code, err) == (0, "")
    assert out == (git_project / md).read_text()
    code, out, _ = invoke("handoff", "show", "--json", "-C", str(git_project))
    assert json.loads(out)["meta"]["session"] == SID
    code, out, _ = invoke("handoff", "show", "--list", "-C", str(git_project))
    head = (git_project / ".git" / "refs" / "heads" / "main").read_text()[:7]
    assert out.endswith(f"  {SID}  main  {head}  manual\n")


def test_write_finds_the_sessions_transcript_by_id(
    git_project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    folder = recorded(git_project, isolated_home, tmp_path)
    env = {"CLAUDE_CODE_SESSION_ID": SID}
    code, out, err = invoke("handoff", "write", "-C", str(git_project), env=env)
    assert (code, err) == (0, "")
    assert out.startswith(f"Wrote .ccstate/handoff/branches/main/{SID}.md")
    code, out, err = invoke(
        "handoff", "write", "-C", str(git_project), env={"CLAUDE_CODE_SESSION_ID": "nope"}
    )
    assert (code, out) == (1, "")
    assert err == f"Error: no transcript for session nope in {folder}; pass --transcript FILE\n"


def test_note_attaches_to_the_session_and_shows_in_the_handoff(
    git_project: Path, tmp_path: Path
) -> None:
    code, out, err = invoke(
        "handoff",
        "note",
        "run the e2e suite",
        "-C",
        str(git_project),
        env={"CLAUDE_CODE_SESSION_ID": SID},
    )
    assert (code, out, err) == (
        0,
        "Noted (1 note) for session 5e55104e (it goes into the next handoff written)\n",
        "",
    )
    invoke(
        "handoff",
        "write",
        "--transcript",
        str(rehomed(git_project, tmp_path)),
        "-C",
        str(git_project),
    )
    code, out, _ = invoke("handoff", "note", "then the changelog", "-C", str(git_project))
    md = f".ccstate/handoff/branches/main/{SID}.md"
    assert (code, out) == (0, f"Noted (2 notes) for session 5e55104e: {md}\n")
    shown = invoke("handoff", "show", "-C", str(git_project))[1]
    assert "- run the e2e suite [note 1]\n- then the changelog [note 2]\n" in shown


def test_errors_name_the_fix(git_project: Path) -> None:
    state = git_project / ".ccstate"
    assert invoke("handoff", "show", "-C", str(git_project)) == (
        1,
        "",
        f"Error: no handoff in {state} yet and no session given; pass --session ID "
        "(inside Claude Code $CLAUDE_CODE_SESSION_ID is used)\n",
    )
    assert invoke("handoff", "show", "--session", "zzz", "-C", str(git_project)) == (
        1,
        "",
        "Error: no handoff for session zzz; see 'ccstate handoff show --list'\n",
    )
    code, out, err = invoke("handoff", "note", " ", "--session", "s", "-C", str(git_project))
    assert (code, out) == (1, "")
    fix = 'ccstate handoff note "run the e2e tests"'
    assert err == f"Error: the note is empty; pass the next step as text: {fix}\n"


def test_the_short_ids_ccstate_prints_are_accepted(
    git_project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """The capsule, progress log and `note` print sessions as their first 8 characters."""
    recorded(git_project, isolated_home, tmp_path)
    short = SID[:8]
    code, out, err = invoke("handoff", "write", "--session", short, "-C", str(git_project))
    md = f".ccstate/handoff/branches/main/{SID}.md"
    assert (code, err) == (0, "")
    assert out.startswith(f"Wrote {md} (~")
    code, out, err = invoke("handoff", "show", "--session", short, "-C", str(git_project))
    assert (code, err) == (0, "")
    assert out == (git_project / md).read_text()
    code, out, _ = invoke("handoff", "note", "next", "--session", short, "-C", str(git_project))
    assert (code, out) == (0, f"Noted (1 note) for session {short}: {md}\n")
    assert json.loads((git_project / md).with_suffix(".json").read_text())["meta"]["session"] == SID


def test_a_short_id_that_fits_several_sessions_asks_for_more(git_project: Path) -> None:
    starts = git_project / ".ccstate" / "handoff" / "starts"
    starts.mkdir(parents=True)
    for sid in ("5e55104e-aaaa", "5e55104e-bbbb"):
        (starts / f"{sid}.json").write_text("{}")
    code, out, err = invoke("handoff", "show", "--session", "5e55104e", "-C", str(git_project))
    assert (code, out) == (1, "")
    assert err == (
        "Error: session '5e55104e' is the start of 2 sessions (5e55104e-aaa…, 5e55104e-bbb…); "
        "pass more of its id\n"
    )


def test_list_with_no_handoff_says_so(git_project: Path) -> None:
    assert invoke("handoff", "show", "--list", "-C", str(git_project)) == (
        0,
        "No handoffs in .ccstate/handoff yet: one is written at compaction, and at session end "
        "unless the session only read and talked; 'ccstate handoff write' writes one now\n",
        "",
    )
    assert invoke("handoff", "show", "--list", "--json", "-C", str(git_project))[1] == "[]\n"
