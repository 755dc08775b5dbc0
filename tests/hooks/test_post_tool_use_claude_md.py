"""PostToolUse after an edit of an instruction file: one line when it breaks the budget."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import hook_env, make_payload, run_hook

ALLOWED_TOP = {"continue", "stopReason", "suppressOutput", "systemMessage", "hookSpecificOutput"}


def edit_payload(project: Path, path: Path, old: str, new: str, tool: str = "Edit") -> dict:
    tool_input = {"file_path": str(path), "old_string": old, "new_string": new}
    if tool == "Write":
        tool_input = {"file_path": str(path), "content": new}
    if tool == "MultiEdit":
        tool_input = {"file_path": str(path), "edits": [{"old_string": old, "new_string": new}]}
    return make_payload(
        "PostToolUse",
        project,
        tool_name=tool,
        tool_input=tool_input,
        tool_use_id="toolu_edit",
        tool_response={"filePath": str(path)},
    )


def context_of(project: Path, payload: dict) -> str | None:
    code, parsed, raw, err = run_hook("PostToolUse", payload, cwd=project)
    assert (code, err) == (0, "")
    if parsed is None:
        assert raw == ""
        return None
    assert set(parsed) <= ALLOWED_TOP and raw.count("\n") == 0
    out = parsed["hookSpecificOutput"]
    assert set(out) == {"hookEventName", "additionalContext"}
    assert out["hookEventName"] == "PostToolUse"
    return out["additionalContext"]


def add_import(project: Path, tool: str = "Edit") -> dict:
    (project / "docs").mkdir(exist_ok=True)
    (project / "docs" / "big.md").write_text("# Big\n\n" + "word " * 2000 + "\n")
    index = project / "CLAUDE.md"
    old = index.read_text() if index.exists() else ""
    new = old + "\nReference: @docs/big.md\n"
    index.write_text(new)
    return edit_payload(project, index, "", "\nReference: @docs/big.md\n", tool)


def test_new_import_gets_one_line_priced_with_the_chars_estimate(git_project: Path) -> None:
    (git_project / "CLAUDE.md").write_text("# Project\n")
    line = context_of(git_project, add_import(git_project))
    assert line == (
        # docs/big.md holds 10,008 characters: 2,502 tokens by the chars/4 estimate
        "ccstate: the new @docs/big.md (~2,502 tokens) in CLAUDE.md loads into every session "
        "(chars/4 estimate); prefer a plain pointer with a one-line gist (`ccstate lint --fix`)."
    )
    beat = json.loads((git_project / ".ccstate/heartbeat/PostToolUse.json").read_text())
    assert beat["detail"]["lint"] == "warned"


def test_the_same_state_again_says_nothing(git_project: Path) -> None:
    (git_project / "CLAUDE.md").write_text("# Project\n")
    payload = add_import(git_project)
    assert context_of(git_project, payload) is not None
    assert context_of(git_project, payload) is None  # the cache already knows this import


def test_write_and_multiedit_payloads(git_project: Path) -> None:
    (git_project / "CLAUDE.md").write_text("# Project\n")
    assert "@docs/big.md" in (context_of(git_project, add_import(git_project, "Write")) or "")
    project2 = git_project / "sub"
    project2.mkdir()
    (project2 / ".git").mkdir()
    (project2 / "CLAUDE.md").write_text("# Sub\n")
    assert "@docs/big.md" in (context_of(project2, add_import(project2, "MultiEdit")) or "")


def test_over_budget_edit_gets_one_line(git_project: Path) -> None:
    index = git_project / "CLAUDE.md"
    added = "".join(f"- rule {i}\n" for i in range(230))
    index.write_text("# Project\n" + added)
    line = context_of(git_project, edit_payload(git_project, index, "", added))
    assert line == (
        # 2,430 characters: 608 tokens by the chars/4 estimate
        "ccstate: CLAUDE.md is over its always-loaded budget: 231 lines (max 200), ~608 tokens "
        "(chars/4 estimate; max 2,000); move detail into a topic file (`ccstate split CLAUDE.md`)."
    )
    index.write_text(index.read_text().replace("- rule 5\n", "- rule five\n"))
    assert "over its always-loaded budget" in (
        context_of(git_project, edit_payload(git_project, index, "- rule 5", "- rule five")) or ""
    )
    index.write_text(index.read_text().replace("- rule five\n", ""))
    assert context_of(git_project, edit_payload(git_project, index, "- rule five\n", "")) is None


def test_both_problems_share_one_line_and_rules_files_count(git_project: Path) -> None:
    rules = git_project / ".claude" / "rules"
    rules.mkdir(parents=True)
    (git_project / "docs").mkdir()
    (git_project / "docs" / "api.md").write_text("# API\n\nEndpoints.\n")
    rule = rules / "api.md"
    rule.write_text("# API rules\n\nSee @docs/api.md and @docs/missing.md\n")
    line = context_of(
        git_project, edit_payload(git_project, rule, "", "See @docs/api.md and @docs/missing.md")
    )
    assert line is not None and "\n" not in line
    assert "@../../docs/api.md" not in line
    assert line.startswith("ccstate: @docs/api.md, @docs/missing.md in .claude/rules/api.md")


def test_existing_imports_are_not_blamed_on_an_unrelated_edit(git_project: Path) -> None:
    (git_project / "docs").mkdir()
    (git_project / "docs" / "a.md").write_text("# A\n\nText.\n")
    index = git_project / "CLAUDE.md"
    index.write_text("# Project\n\n@docs/a.md\n\nTypo fixed here.\n")
    assert context_of(git_project, edit_payload(git_project, index, "Typo", "Typo fixed")) is None


def test_other_edits_bail_out_before_loading_the_lint(git_project: Path) -> None:
    argv = [sys.executable, "-X", "importtime", "-m", "ccstate.hooks", "PostToolUse"]
    for dedupe in ("0", "1"):
        for name in ("app.py", "notes.md", "docs/CLAUDE.md.bak"):
            payload = edit_payload(git_project, git_project / name, "a", "b")
            code, _parsed, raw, err = run_hook(
                "PostToolUse",
                payload,
                cwd=git_project,
                env=hook_env(CCSTATE_DEDUPE=dedupe),
                argv=argv,
            )
            assert (code, raw) == (0, "")
            assert "ccstate.instructions" not in err
            # with the ledger off the edit is still noted for the code index (#41), and
            # nothing of the ledger is loaded; with it on, the ledger records it (#24)
            assert ("ccstate.ledger.writes" in err) == (dedupe == "1")
            touched = git_project / ".ccstate" / "repo" / "touched"
            assert str(git_project / name) in touched.read_text().splitlines()


def test_notebook_edit_and_missing_file_path_are_ignored(git_project: Path) -> None:
    payload = make_payload(
        "PostToolUse",
        git_project,
        tool_name="NotebookEdit",
        tool_input={"notebook_path": str(git_project / "CLAUDE.md")},
        tool_response={},
    )
    assert context_of(git_project, payload) is None


def test_session_start_capsule_mentions_lint_errors_in_one_line(git_project: Path) -> None:
    (git_project / "CLAUDE.md").write_text("# P\n\nSee @docs/gone.md\n")
    payload = make_payload("SessionStart", git_project, source="startup")
    outputs = []
    for _ in range(2):
        code, parsed, _raw, err = run_hook("SessionStart", payload, cwd=git_project)
        assert (code, err) == (0, "")
        outputs.append(parsed["hookSpecificOutput"]["additionalContext"])
    assert outputs[0] == outputs[1]  # byte-identical for identical state
    lint_lines = [line for line in outputs[0].splitlines() if "lint" in line]
    assert lint_lines == ["- CLAUDE.md lint: 1 error(s) (dead-pointer); `ccstate lint` shows them"]
    (git_project / "CLAUDE.md").write_text("# P\n")
    code, parsed, _raw, _err = run_hook("SessionStart", payload, cwd=git_project)
    assert (code, parsed) == (0, None)  # the lint line was all the capsule had to say
