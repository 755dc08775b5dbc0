"""PostToolUse digests through the hook process (docs/OUTPUTS.md): JSON in, JSON out, in each
tool's own output shape, with the original kept byte for byte."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from helpers import FIXTURES, hook_env, make_payload, run_hook

VITEST = (FIXTURES / "outputs" / "vitest-3-failures.txt").read_text()
HANDLE = re.compile(r"Complete output: (\S+\.txt) - Read it for anything left out\.\]\Z")


def heartbeat(project: Path) -> dict:
    return json.loads((project / ".ccstate" / "heartbeat" / "PostToolUse.json").read_text())


def tool(project: Path, name: str, response: object, **tool_input: object) -> dict:
    return make_payload(
        "PostToolUse",
        project,
        tool_name=name,
        tool_input=tool_input,
        tool_use_id="toolu_100",
        tool_response=response,
    )


def bash(project: Path, stdout: str, **extra: object) -> dict:
    response = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False, **extra}
    return tool(project, "Bash", response, command="npm test")


def test_a_noisy_test_run_becomes_a_digest_in_bashs_shape(git_project: Path) -> None:
    code, out, _raw, err = run_hook("PostToolUse", bash(git_project, VITEST), cwd=git_project)
    assert (code, err) == (0, "")
    specific = out["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "updatedToolOutput"}
    replaced = specific["updatedToolOutput"]
    assert set(replaced) == {"stdout", "stderr", "interrupted"}
    assert (replaced["stderr"], replaced["interrupted"]) == ("", False)
    digest = replaced["stdout"]
    assert len(digest) < len(VITEST) / 3  # 120 tests here; the e2e run of 600 lines: < 1/4
    assert "      Tests  3 failed | 117 passed (120)" in digest.split("\n")
    path = HANDLE.search(digest)
    assert path is not None and Path(path.group(1)).read_text() == VITEST  # byte for byte
    assert f"digest of {VITEST.count(chr(10)) + 1} lines" in digest
    assert Path(path.group(1)).parent == git_project / ".ccstate" / "out"
    assert stat.S_IMODE(os.stat(path.group(1)).st_mode) == 0o600
    detail = heartbeat(git_project)["detail"]
    assert (detail["digest"], detail["original_chars"]) == ("lines", len(VITEST))


def test_the_same_output_gives_the_same_digest(git_project: Path) -> None:
    first = run_hook("PostToolUse", bash(git_project, VITEST), cwd=git_project)[2]
    second = run_hook("PostToolUse", bash(git_project, VITEST), cwd=git_project)[2]
    assert first == second
    assert len(list((git_project / ".ccstate" / "out").iterdir())) == 1


def test_small_outputs_and_switched_off_digests_pass_untouched(git_project: Path) -> None:
    assert run_hook("PostToolUse", bash(git_project, "ok\n" * 10), cwd=git_project)[1] is None
    off = hook_env(CCSTATE_DIGEST="0")
    assert run_hook("PostToolUse", bash(git_project, VITEST), cwd=git_project, env=off)[1] is None
    (git_project / ".ccstate.yaml").write_text("outputs:\n  bash: false\n")
    assert run_hook("PostToolUse", bash(git_project, VITEST), cwd=git_project)[1] is None
    assert not (git_project / ".ccstate" / "out").exists()


def test_a_persisted_output_is_digested_from_the_whole_file(git_project: Path) -> None:
    full = VITEST * 4  # over 30,000 characters: Claude Code cut stdout and kept the whole
    persisted = git_project / "persisted.txt"
    persisted.write_text(full)
    payload = bash(git_project, full[:30_000], persistedOutputPath=str(persisted))
    out = run_hook("PostToolUse", payload, cwd=git_project)[1]
    replaced = out["hookSpecificOutput"]["updatedToolOutput"]
    assert "persistedOutputPath" not in replaced
    path = HANDLE.search(replaced["stdout"])
    assert path is not None and Path(path.group(1)).read_text() == full
    assert replaced["stdout"].count("⎯ Failed Tests 3 ⎯") >= 1
    assert "      Tests  3 failed | 117 passed (120)" in replaced["stdout"]  # from the tail


def test_json_lines_and_minified_lines_are_digested_through_the_hook(git_project: Path) -> None:
    for name, how in (("session-log.jsonl", "jsonl"), ("curl-minified.txt", "lines")):
        text = (FIXTURES / "outputs" / name).read_text()
        out = run_hook("PostToolUse", bash(git_project, text), cwd=git_project)[1]
        digest = out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
        assert "chars of this line left out]" in digest and len(digest) < len(text) / 2
        path = HANDLE.search(digest)
        assert path is not None and Path(path.group(1)).read_text() == text
        assert heartbeat(git_project)["detail"]["digest"] == how


def test_grep_content_keeps_grep_shape_with_one_heading_per_file(git_project: Path) -> None:
    (git_project / "src").mkdir()
    for n in range(3):
        (git_project / "src" / f"mod_{n}.py").write_text("value = 1\n")  # Grep found them
    names = [a + b for a in ("amber", "birch", "cedar") for b in "klmnopqrstuvwxyzabcdefghij"]
    rows = [
        f"{git_project}/src/mod_{i // 30}.py:{i}:    {name} = compute({name!r}, {i})"
        for i, name in enumerate(names[:78] + names[:12])
    ]
    response = {
        "mode": "content",
        "numFiles": 0,
        "filenames": [],
        "content": "\n".join(rows),
        "numLines": 90,
    }
    out = run_hook("PostToolUse", tool(git_project, "Grep", response, pattern="x"), cwd=git_project)
    replaced = out[1]["hookSpecificOutput"]["updatedToolOutput"]
    assert set(replaced) == {"mode", "numFiles", "filenames", "content", "numLines"}
    assert replaced["mode"] == "content"
    first = f"{git_project}/src/mod_0.py\n0:    amberk = compute('amberk', 0)"
    assert replaced["content"].startswith(first)


def test_a_uniform_grep_is_said_once_and_keeps_the_cap_claude_code_applied(
    git_project: Path,
) -> None:
    (git_project / "src").mkdir()
    for n in range(3):
        (git_project / "src" / f"mod_{n}.py").write_text("value = 1\n")
    rows = [f"{git_project}/src/mod_{i // 30}.py:{i}:    value = compute({i})" for i in range(90)]
    response = {
        "mode": "content",
        "numFiles": 0,
        "filenames": [],
        "content": "\n".join(rows),
        "numLines": 90,
        "appliedLimit": 90,
    }
    out = run_hook("PostToolUse", tool(git_project, "Grep", response, pattern="x"), cwd=git_project)
    replaced = out[1]["hookSpecificOutput"]["updatedToolOutput"]
    assert set(replaced) == {"mode", "numFiles", "filenames", "content", "numLines", "appliedLimit"}
    lines = replaced["content"].split("\n")
    assert lines[0] == rows[0] and "89 more matches like the one above" in lines[1]
    assert lines[-1].startswith("[ccstate: digest of 90 lines") and len(lines) == 3


def test_an_mcp_result_becomes_updated_mcp_tool_output(git_project: Path) -> None:
    items = [
        {"id": i, "url": f"https://api.github.com/i/{i}", "title": f"t{i}", "body": None}
        for i in range(80)
    ]
    response = [{"type": "text", "text": json.dumps(items, indent=2)}]
    payload = tool(git_project, "mcp__github__list_issues", response)
    out = run_hook("PostToolUse", payload, cwd=git_project)[1]["hookSpecificOutput"]
    assert set(out) == {"hookEventName", "updatedMCPToolOutput"}
    [block] = out["updatedMCPToolOutput"]
    assert block["type"] == "text" and block["text"].startswith('[{"id":0,"title":"t0"}')


def test_unsure_results_pass_untouched(git_project: Path) -> None:
    binary = bash(git_project, "\x00\x01" * 2000)
    image = bash(git_project, VITEST, isImage=True)
    background = bash(git_project, VITEST, backgroundTaskId="b1")
    blocks = [{"type": "text", "text": VITEST}, {"type": "image", "source": {}}]
    mixed = tool(git_project, "mcp__x__y", blocks)
    files = tool(git_project, "Grep", {"mode": "files_with_matches", "filenames": ["/a"] * 400})
    for payload in (binary, image, background, mixed, files):
        assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")
    bad = git_project / "bad.txt"
    bad.write_bytes(b"\xff\xfe" * 20_000)  # a persisted output that is not UTF-8
    payload = bash(git_project, VITEST, persistedOutputPath=str(bad))
    assert run_hook("PostToolUse", payload, cwd=git_project)[1] is None
    assert heartbeat(git_project)["detail"]["digest"] == "persisted output unreadable"
