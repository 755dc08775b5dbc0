"""`ccstate find` in the real Claude Code CLI (issue #41): after an Edit that adds a function,
a find for its name run by the model through Bash returns it; a file changed outside the
session (another editor, a `git pull`) is re-indexed before the next find answers."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_api import Body, ToolCall, respond, tool_results, tool_use

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
FIND = f"{shlex.quote(sys.executable)} -m ccstate find"
ADDED = 'def farewell_message(name):\n    return f"goodbye {name}"\n\n\ndef greet(name):'
EDIT = {"old_string": "def greet(name):", "new_string": ADDED}


def only_result(body: Body) -> str:
    (result,) = tool_results(body).values()
    return result


def test_find_returns_a_function_the_session_just_added_and_an_outside_change(
    claude, fake_api, project: Path
) -> None:
    helpers = project / "helpers.py"
    helpers.write_text("def slugify(text):\n    return text.lower()\n")
    subprocess.run(["git", "-C", str(project), "add", "helpers.py"], check=True)
    seen: list[str] = []

    def change_outside(body: Body) -> Any:
        seen.append(only_result(body))
        with helpers.open("a") as fh:  # not through Claude Code: nothing noted it
            fh.write("\n\ndef outside_invoice_total(lines):\n    return sum(lines)\n")
        return ToolCall("Bash", {"command": f"{FIND} outside_invoice_total --json"})

    def conclude(body: Body) -> Any:
        seen.append(only_result(body))
        return "Found both."

    fake_api.set_script(
        [
            tool_use("Read", {"file_path": str(project / "app.py")}),
            tool_use("Edit", {"file_path": str(project / "app.py"), **EDIT}),
            tool_use("Bash", {"command": f"{FIND} farewell_message", "description": "find it"}),
            respond(change_outside),
            respond(conclude),
        ]
    )
    _, result = claude(
        "add a farewell message next to the greeting",
        plugin_dir=REPO,
        env_extra={"CCSTATE_FIND": "1"},
    )
    assert result is not None and result["result"] == "Found both.", result
    after_edit, after_outside = seen
    first = after_edit.splitlines()
    assert first[1].startswith("1. app.py:1-2  function farewell_message: def farewell_message("), (
        after_edit
    )
    hits = json.loads(after_outside)["hits"]
    assert hits[0]["location"] == "helpers.py:5-6" and hits[0]["name"] == "outside_invoice_total"
    touched = project / ".ccstate" / "repo" / "touched"
    assert not touched.exists() or str(project / "app.py") not in touched.read_text()  # taken
    beat = json.loads((project / ".ccstate" / "heartbeat" / "PostToolUse.json").read_text())
    # the Edit's hook noted the path (the Bash calls' small outputs left no heartbeat)
    assert (beat["detail"]["tool_name"], beat["detail"]["find_noted"]) == ("Edit", True)
