"""The CLAUDE.md lint against the real Claude Code CLI: what it prices is what the model gets."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fake_api import system_texts, text, tool_use

from ccstate import tokens
from ccstate.instructions import loaded as instructions
from claude_md_cases import CASES, build_case

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
HEADER = re.compile(
    r"\n?Contents of (.+?) \((?:project instructions, checked into the codebase|user's private "
    r"project instructions, not checked in|user's auto-memory, persists across conversations)"
    r"\):\n\n"
)


def instruction_blocks(request: dict) -> dict[str, str]:
    """{path: text} of each instruction file in the first user message of a request."""
    first = request["messages"][0]["content"][0]["text"]
    parts = HEADER.split(first.removesuffix("\n</system-reminder>"))
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def git_init(project: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)


def ccstate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ccstate", *args], cwd=cwd, capture_output=True, text=True
    )


@pytest.mark.parametrize("case", CASES)
def test_loaded_set_is_what_the_real_cli_sends(
    case: str, claude, fake_api, claude_home: Path, tmp_path: Path
) -> None:
    """Every golden case: same files, same text (frontmatter, comments, MEMORY.md head)."""
    project = build_case(case, tmp_path / "case", claude_home)
    git_init(project)
    fake_api.set_script([text("ok")])
    claude("hello", cwd=project)
    sent = instruction_blocks(fake_api.agent_requests()[0])
    mine = instructions.compute(str(project), {"HOME": str(claude_home)}).files
    assert sorted(sent) == sorted(f.path for f in mine)
    for f in mine:
        assert sent[f.path].rstrip() == f.text.rstrip(), f.path


LINK_REFS = (
    "# P\n\n<!-- a comment -->\n\nSee [the docs][docs] and [api].\n\n"
    '[docs]: https://example.org/docs\n[api]: ./docs/api.md "API"\n\nEnd.\n'
)


def test_link_reference_definitions_beside_a_comment_block(
    claude, fake_api, project: Path, claude_home: Path, claude_version: str
) -> None:
    """2.1.330 fixed link reference definitions being dropped from a CLAUDE.md that holds an
    HTML comment block. ccstate prices what 2.1.330+ sends; 2.1.328 sends those lines less."""
    (project / "CLAUDE.md").write_text(LINK_REFS)
    fake_api.set_script([text("ok")])
    claude("hello")
    sent = instruction_blocks(fake_api.agent_requests()[0])[str(project / "CLAUDE.md")]
    (mine,) = instructions.compute(str(project), {"HOME": str(claude_home)}).files
    assert mine.text == (
        "# P\n\nSee [the docs][docs] and [api].\n\n"
        '[docs]: https://example.org/docs\n[api]: ./docs/api.md "API"\n\nEnd.\n'
    )
    if tuple(map(int, claude_version.split("."))) >= (2, 1, 330):
        assert sent.rstrip() == mine.text.rstrip()
    else:
        assert sent.rstrip() == "# P\n\nSee [the docs][docs] and [api].\n\nEnd."


def big_topic(title: str, sentences: int) -> str:
    lines = [f"# {title}", "", f"What the {title.lower()} notes cover, in detail.", ""]
    lines += [
        f"- {title} rule {i}: handlers validate input, log with the request id, and return "
        f"typed results; see the module docstring before changing step {i}."
        for i in range(sentences)
    ]
    return "\n".join(lines) + "\n"


def test_fix_shrinks_the_first_request_by_what_lint_priced(claude, fake_api, project: Path) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "architecture.md").write_text(big_topic("Architecture", 80))
    (project / "docs" / "testing.md").write_text(big_topic("Testing", 50))
    (project / "CLAUDE.md").write_text(
        "# Demo\n\nA demo service.\n\nArchitecture: @docs/architecture.md\n\n@docs/testing.md\n"
    )
    fake_api.set_script([text("before"), text("after")])
    claude("hello")
    report = json.loads(ccstate("lint", "--json", cwd=project).stdout)
    priced = sum(f["tokens"] for f in report["findings"] if f["rule"] == "import")
    fixed = ccstate("lint", "--fix", cwd=project)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    claude("hello")
    before, after = fake_api.agent_requests()
    shrink = _tokens(before) - _tokens(after)
    print(f"\nlint priced the two @imports at {priced:,} tokens (tiktoken cl100k_base)")
    print(f"first request shrank by {shrink:,} tokens (tiktoken over the request JSON)")
    assert "docs/architecture.md" not in "".join(instruction_blocks(after))
    assert "`docs/architecture.md`" in instruction_blocks(after)[str(project / "CLAUDE.md")]
    assert priced > 3000
    # Lint prices each file's text; the request also loses the two "Contents of <path> (...)"
    # header lines (~36 tokens each here) and the JSON escaping of the text, and CLAUDE.md
    # gains the two one-line gists: measured +4.4 % on this project.
    assert 0.95 * priced <= shrink <= 1.08 * priced


def _tokens(request: dict) -> int:
    return tokens.count_tokens(json.dumps(request, ensure_ascii=False))[0]


def test_edit_adding_an_import_warns_the_model_in_one_line(claude, fake_api, project: Path) -> None:
    index = project / "CLAUDE.md"
    index.write_text("# Demo\n\nA demo service.\n")
    (project / "docs").mkdir()
    (project / "docs" / "big.md").write_text(big_topic("Reference", 40))
    edit = {"file_path": str(index), "old_string": "A demo service.", "new_string": "@docs/big.md"}
    fake_api.set_script(
        [tool_use("Read", {"file_path": str(index)}), tool_use("Edit", edit), text("edited")]
    )
    _, result = claude("import the reference", plugin_dir=REPO)
    assert result is not None and result["result"] == "edited"
    after_edit = "\n".join(system_texts(fake_api.agent_requests()[2]))
    hints = [x for x in after_edit.splitlines() if "PostToolUse:Edit hook additional context" in x]
    assert len(hints) == 1
    (line,) = hints
    assert line.startswith(
        "PostToolUse:Edit hook additional context: ccstate: the new @docs/big.md (~"
    )
    assert "(chars/4 estimate)" in line and "`ccstate lint --fix`" in line


def test_capsule_mentions_lint_errors_in_one_line(claude, fake_api, project: Path) -> None:
    (project / "CLAUDE.md").write_text("# Demo\n\nSee @docs/gone.md for the runbook.\n")
    fake_api.set_script([text("ok")])
    claude("hello", plugin_dir=REPO)
    capsule = "\n".join(system_texts(fake_api.agent_requests()[0]))
    lines = [line for line in capsule.splitlines() if "CLAUDE.md lint" in line]
    assert lines == ["- CLAUDE.md lint: 1 error(s) (dead-pointer); `ccstate lint` shows them"]
