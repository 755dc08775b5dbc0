"""Recall in the real Claude Code CLI (issue #17): a later session asks, through Bash, what an
earlier one did, and gets hits naming that session's transcript file and line."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_runner import read_transcript, transcript_path
from fake_api import Body, ToolCall, respond, system_texts, text, tool_results, tool_use

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
SECRET = "ghp_" + "E2Erecall0000000000000000000000000000000"


def first_session(project: Path) -> list[Any]:
    """Rename the greeting, fail a check with a planted token in its output, conclude."""
    return [
        tool_use("Read", {"file_path": str(project / "app.py")}),
        tool_use(
            "Edit",
            {
                "file_path": str(project / "app.py"),
                "old_string": "hello",
                "new_string": "howdy partner",
            },
        ),
        tool_use("Bash", {"command": f"echo 'ERROR greeting_lint: {SECRET}' && exit 3"}),
        text("Switched the greeting to 'howdy partner'; greeting_lint still fails."),
    ]


def tool_result_text(body: Body) -> str:
    """The text of the one tool result the model is answering."""
    (result,) = tool_results(body).values()
    return result


def line_of_result(records: list[dict[str, Any]], tool: str) -> int:
    """The transcript line (1-based) of the result of the session's `tool` call."""
    ids = {
        b["id"]
        for r in records
        if r.get("type") == "assistant"
        for b in r["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == tool
    }
    for number, record in enumerate(records, start=1):
        content = record.get("message", {}).get("content")
        if (
            record.get("type") == "user"
            and isinstance(content, list)
            and any(isinstance(b, dict) and b.get("tool_use_id") in ids for b in content)
        ):
            return number
    raise AssertionError(f"no {tool} result in the transcript")


def line_of_call(records: list[dict[str, Any]], tool: str) -> int:
    """The transcript line (1-based) of the session's `tool` call (where a recall moment of a
    tool starts: it spans the call to the result)."""
    for number, record in enumerate(records, start=1):
        content = record.get("message", {}).get("content")
        calls = content if record.get("type") == "assistant" and isinstance(content, list) else []
        if any(
            isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == tool
            for b in calls
        ):
            return number
    raise AssertionError(f"no {tool} call in the transcript")


def unwrapped(text: str) -> list[str]:
    """`recall`'s lines with a long hit's continuation lines (indented under its REF) joined
    back: where a line wraps depends on the width and on how long the paths are."""
    lines: list[str] = []
    for line in text.splitlines():
        if lines and line.startswith("   ") and line.strip():
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines


def test_a_later_session_recalls_the_earlier_edit_with_file_and_line(
    claude, fake_api, project: Path, claude_home: Path
) -> None:
    fake_api.set_script(first_session(project))
    _, first = claude("make the greeting friendlier", plugin_dir=REPO)
    assert first is not None and first["result"].startswith("Switched the greeting")
    sid = first["session_id"]
    records = read_transcript(transcript_path(claude_home, project, sid))
    edit_line = line_of_call(records, "Edit")  # the change itself
    assert edit_line < line_of_result(records, "Edit")

    python = shlex.quote(sys.executable)
    asks = [
        f"{python} -m ccstate recall 'howdy greeting' --limit 3",
        # #38: a sentence, as a user asks it, finds what session 1 did
        f"{python} -m ccstate recall 'what did we change in app.py to make the greeting nicer?'",
        # and a question about work no session did gets only weak hits, or nothing
        f"{python} -m ccstate recall 'how did we set up the greeting service behind an nginx "
        "ingress with certbot?'",
    ]
    seen: list[str] = []

    def next_ask(n: int) -> Any:
        def step(body: Body) -> Any:
            seen.append(tool_result_text(body))
            return ToolCall("Bash", {"command": asks[n]}) if n < len(asks) else "Recalled it."

        return respond(step)

    fake_api.set_script([tool_use("Bash", {"command": asks[0]}), *map(next_ask, (1, 2, 3))])
    _, second = claude("what did we change in the greeting last time?", plugin_dir=REPO)
    assert second is not None and second["result"] == "Recalled it.", second
    output, sentence, nothing = seen
    ref = f"{sid[:8]}:{edit_line}"  # the earlier session's line, as `recall show` takes it
    (line,) = [ln for ln in unwrapped(output) if f" {ref} " in ln]
    assert " edit " in line and "**howdy**" in line and " strong [" in line, output
    assert f" {ref} edit " in sentence, sentence
    assert " strong [" not in nothing and (
        " weak [" in nothing or nothing.startswith("Nothing relevant")
    ), nothing

    # The capsule told session 2 that recall exists (one line, nothing recalled unasked).
    first_request = fake_api.agent_requests()[-len(asks) - 1]
    lines = [ln for t in system_texts(first_request) for ln in t.splitlines()]
    (capsule,) = [ln for ln in lines if ln.startswith("- recall:")]
    assert capsule.startswith("- recall: 1 past session(s) indexed")
    assert "howdy" not in json.dumps(first_request.get("system"))

    index = project / ".ccstate" / "recall" / "index.sqlite"
    assert SECRET.encode() not in index.read_bytes()
    assert "[REDACTED:github-token]" in output or SECRET not in output


def test_recall_show_prints_the_moment_in_context(
    claude, fake_api, project: Path, claude_home: Path
) -> None:
    fake_api.set_script(first_session(project))
    _, first = claude("make the greeting friendlier", plugin_dir=REPO)
    assert first is not None
    sid = first["session_id"]
    records = read_transcript(transcript_path(claude_home, project, sid))
    line = line_of_result(records, "Bash")  # a line read in the transcript names the moment too
    show = f"{shlex.quote(sys.executable)} -m ccstate recall show {sid[:8]}:{line}"
    seen: list[str] = []
    fake_api.set_script(
        [
            tool_use("Bash", {"command": show}),
            respond(lambda body: seen.append(tool_result_text(body)) or "ok"),
        ]
    )
    claude("show me that failing check", plugin_dir=REPO)
    (output,) = seen
    call = line_of_call(records, "Bash")
    assert f">> command {sid[:8]}:{call}" in output and "greeting_lint" in output
    assert SECRET not in output and "[REDACTED:github-token]" in output


def test_what_a_tool_printed_is_recalled_as_an_output_moment(
    claude, fake_api, project: Path, claude_home: Path
) -> None:
    """#27.2: a fact that lives only in a tool's output (a runbook the agent Read) comes back
    in a later session, at the Read's call line, with a secret beside it redacted; a question
    naming something no session mentions says so."""
    token = "ghp_" + "E2Eoutput00000000000000000000000000000"
    runbook = project / "docs" / "RUNBOOK.txt"
    runbook.parent.mkdir()
    runbook.write_text(
        "Staging runbook\n"
        "Staging deploys go to region eu-west-3 on port 8443.\n"
        f"deploy bot: {token}\n"
        "Rollback: flyctl releases rollback v41\n",
        encoding="utf-8",
    )
    fake_api.set_script(
        [tool_use("Read", {"file_path": str(runbook)}), text("Read the staging runbook.")]
    )
    _, first = claude("read the staging runbook", plugin_dir=REPO)
    assert first is not None and first["result"] == "Read the staging runbook."
    sid = first["session_id"]
    records = read_transcript(transcript_path(claude_home, project, sid))
    read_line = line_of_call(records, "Read")

    python = shlex.quote(sys.executable)
    asks = [
        # (one hit: a longer JSON would come back as ccstate's own output digest)
        f"{python} -m ccstate recall 'which region does staging deploy to' --json --limit 1",
        f"{python} -m ccstate recall 'what Sentry setup does staging have'",
    ]
    seen: list[str] = []
    fake_api.set_script(
        [
            tool_use("Bash", {"command": asks[0]}),
            respond(
                lambda body: (
                    seen.append(tool_result_text(body)) or ToolCall("Bash", {"command": asks[1]})
                )
            ),
            respond(lambda body: seen.append(tool_result_text(body)) or "Recalled it."),
        ]
    )
    _, second = claude("where does staging deploy to?", plugin_dir=REPO)
    assert second is not None and second["result"] == "Recalled it.", second
    hits = json.loads(seen[0])["hits"]
    (hit, *_rest) = hits
    assert (hit["kind"], hit["session"], hit["line"]) == ("output", sid, read_line), hits
    assert "eu-west-3" in hit["text"] and "RUNBOOK.txt" in hit["title"]
    assert token not in seen[0] and "[REDACTED:github-token]" in hit["text"]
    assert seen[1].startswith("Nothing recalled for 'what Sentry setup does staging have'")
    assert "no moment mentions 'Sentry'" in " ".join(seen[1].split())  # wrapped at the width
    index = project / ".ccstate" / "recall" / "index.sqlite"
    assert token.encode() not in index.read_bytes()


def test_recall_with_the_model_on_and_with_the_hooks_on_a_bare_python(
    claude, fake_api, project: Path, claude_home: Path, bare_python: Path, tmp_path: Path
) -> None:
    """#27 with `recall.embedding_model` set. Before the plugin's venv exists, the hooks run on
    a bare python3 without numpy: SessionEnd still indexes the session (BM25) and says
    semantic ranking is off. Later, `ccstate recall` with the model on finds what shares no
    word with the question and still finds the edit; where numpy is missing it answers with
    BM25 and says so in one line."""
    import os
    import sqlite3

    from ccstate import store
    from helpers import make_static_model

    pytest.importorskip("numpy")  # the model side (the test venv's interpreter)
    make_static_model(project / "model")
    (project / ".ccstate.yaml").write_text("recall:\n  embedding_model: model\n")
    script = [
        tool_use(
            "Edit",
            {"file_path": str(project / "app.py"), "old_string": "hello", "new_string": "howdy"},
        ),
        text("Added exponential backoff to the webhook client; the greeting says howdy now."),
    ]
    fake_api.set_script(script)
    # (a bare python3 has no yaml: the hooks read these plain lines themselves, `plainyaml`)
    data = claude_home / ".claude" / "plugins" / "data" / "ccstate-inline"
    data.mkdir(parents=True)
    bare = {"PATH": f"{bare_python.parent}{os.pathsep}{os.environ['PATH']}"}
    with store.file_lock(data / "venv.build", timeout=1):  # the venv is not built yet
        _, first = claude("harden the webhook client", plugin_dir=REPO, env_extra=bare)
    assert first is not None and first["result"].startswith("Added exponential backoff")
    sid = first["session_id"]
    beat = json.loads((project / ".ccstate" / "heartbeat" / "SessionEnd.json").read_text())
    detail = beat["detail"]
    assert Path(detail["python"]).parent == bare_python.parent
    assert "moments from" in detail["recall"], detail  # BM25 indexing went on
    assert detail["recall_semantic"].startswith("off: recall.embedding_model needs numpy")
    summary = json.loads((project / ".ccstate" / "recall" / "summary.json").read_text())
    assert summary["sessions"] == 1

    python = shlex.quote(sys.executable)
    shim = tmp_path / "no-numpy"  # an interpreter where numpy is not installed
    (shim / "numpy").mkdir(parents=True)
    (shim / "numpy" / "__init__.py").write_text("raise ImportError('numpy is not installed')\n")
    asks = [
        f"{python} -m ccstate recall retry --json --limit 1",  # short: no digest of it
        f"{python} -m ccstate recall 'howdy greeting' --limit 3",
        f"PYTHONPATH={shlex.quote(str(shim))} {python} -m ccstate recall 'howdy greeting'",
    ]
    seen: list[str] = []

    def next_ask(n: int) -> Any:
        def step(body: Body) -> Any:
            seen.append(tool_result_text(body))
            return ToolCall("Bash", {"command": asks[n]}) if n < len(asks) else "Recalled."

        return respond(step)

    fake_api.set_script([tool_use("Bash", {"command": asks[0]}), *map(next_ask, (1, 2, 3))])
    _, second = claude("what did we do to the webhook client?", plugin_dir=REPO)
    assert second is not None and second["result"] == "Recalled.", second
    semantic, bm25_and_model, bm25_alone = seen
    hits = json.loads(semantic)["hits"]  # stdout only: nothing on stderr
    assert [h["session"] for h in hits] == [sid], hits  # and no word of "retry" in it
    assert "exponential backoff" in hits[0]["text"]
    con = sqlite3.connect(project / ".ccstate" / "recall" / "index.sqlite")
    assert con.execute("SELECT count(*) FROM vecs").fetchone()[0] > 0
    con.close()
    records = read_transcript(transcript_path(claude_home, project, sid))
    edit = f"{sid[:8]}:{line_of_call(records, 'Edit')}"
    assert edit in bm25_and_model and "semantic ranking is off" not in bm25_and_model
    assert edit in bm25_alone
    assert (
        "recall: semantic ranking is off, BM25 alone answers: recall.embedding_model needs numpy"
        in bm25_alone
    )
