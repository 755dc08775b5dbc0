"""A scripted session of 34 tool calls that mixes every read-ledger pattern (issue #3).

Used by `test_ledger.py::test_scripted_session_sends_fewer_input_tokens` and by
`bench/bench_ledger_e2e.py`. The same fixed script runs with and without ccstate; what the
model is sent is measured from the request bodies: tiktoken (`ccstate.tokens.count_tokens`) over
the JSON of each agent request's `messages`, summed over requests.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from fake_api import Step, text, tool_use

AGENT = {
    "description": "Review core.py",
    "prompt": "SUB-TASK: read core.py and report",
    "subagent_type": "general-purpose",
    "run_in_background": False,
}


def _code(name: str, n: int) -> str:
    return "".join(
        f"def {name}_{i:03d}(request, *, timeout=30):  # handles case {i} of {name}\n"
        for i in range(1, n + 1)
    )


def _notes(n: int) -> str:
    return "".join(
        f"- note {i:03d}: a design remark long enough to look like prose\n" for i in range(1, n + 1)
    )


def make_files(root: Path) -> dict[str, Path]:
    files = {
        "core": root / "core.py",
        "utils": root / "utils.py",
        "notes": root / "notes.md",
        "copy": root / "core_copy.py",
    }
    files["core"].write_text(_code("core", 200))
    files["utils"].write_text(_code("util", 150))
    files["notes"].write_text(_notes(300))
    files["copy"].write_text(_code("core", 200))  # same text, another path
    return files


def script(files: dict[str, Path]) -> list[Step]:
    """The tool calls, in order; edits match the file text at their point in the script."""
    core, utils, notes, copy = (str(files[k]) for k in ("core", "utils", "notes", "copy"))

    def read(path: str, **kw: int) -> Step:
        return tool_use("Read", {"file_path": path, **kw})

    def bash(command: str) -> Step:
        return tool_use("Bash", {"command": command, "description": "run"})

    def edit(path: str, old: str, new: str) -> Step:
        return tool_use("Edit", {"file_path": path, "old_string": old, "new_string": new})

    line = "def core_120(request, *, timeout=30):  # handles case 120 of core\n"
    note = "- note 042: a design remark long enough to look like prose\n"
    steps: list[Step] = [
        read(core),  # 1 full
        read(utils),  # 2 full
        read(core),  # 3 identical
        read(notes, offset=1, limit=100),  # 4 full
        read(notes, offset=1, limit=200),  # 5 unseen
        read(notes, offset=1, limit=300),  # 6 unseen
        read(notes, offset=50, limit=100),  # 7 identical
        edit(core, line, line + "    return None  # early exit\n"),  # 8
        read(core),  # 9 diff
        bash(f"sed -i 's/case 77 of util/case SEVENTY-SEVEN of util/' {utils}"),  # 10
        read(utils),  # 11 changed line only
        read(copy),  # 12 full: another path
        read(core),  # 13 diff again
        bash(f"cat {utils}"),  # 14 a Bash re-print (counted)
        read(utils),  # 15 identical
        bash("ls"),  # 16
        read(core, offset=100, limit=50),  # 17
        edit(utils, "case 10 of util\n", "case 10 of util\n    pass  # edited\n"),  # 18
        read(utils),  # 19 diff
        read(notes),  # 20 identical but for the last line
        read(core),  # 21 diff
        read(core),  # 22 escape hatch: full
        read(core),  # 23 identical
        bash(f"head -n 20 {core}"),  # 24 a Bash re-print
        read(utils, offset=10, limit=20),  # 25
        edit(notes, note, note.replace("design", "DESIGN")),  # 26
        read(notes, offset=1, limit=100),  # 27 the changed line
        read(copy),  # 28 identical
        read(utils),  # 29
        read(core, offset=1, limit=30),  # 30 identical
        bash("git status --short"),  # 31
        read(notes),  # 32
        tool_use("Agent", AGENT),  # 33 a subagent: its own context
        read(core),  # 34 main thread again
    ]
    return steps


def full_script(files: dict[str, Path]) -> list[Step]:
    """Main-thread steps plus the subagent's (routed by `when`), then the final answers."""
    from fake_api import is_main_thread, is_subagent

    main = [Step(s.reply, is_main_thread) for s in script(files)] + [
        text("MAIN DONE", when=is_main_thread)
    ]
    sub = [
        tool_use("Read", {"file_path": str(files["core"])}, when=is_subagent),
        tool_use("Read", {"file_path": str(files["core"])}, when=is_subagent),
        text("SUB DONE", when=is_subagent),
    ]
    return main + sub


def tool_calls(files: dict[str, Path]) -> int:
    return len(script(files)) + 2  # the subagent's two Reads


def input_tokens(requests: list[dict[str, Any]]) -> int:
    """Sum over agent requests of tiktoken(JSON of the request's `messages`)."""
    from ccstate.tokens import count_tokens

    return sum(
        count_tokens(json.dumps(r.get("messages") or [], ensure_ascii=False))[0] for r in requests
    )


def expected_reads(files: dict[str, Path], originals: dict[str, str]) -> list[list[str]]:
    """The file's lines at each main-thread Read of `script`, by replaying its edits on
    `originals` (path -> text before the run)."""
    current = dict(originals)
    out: list[list[str]] = []
    for step in script(files):
        call = step.reply.blocks[0]  # type: ignore[union-attr]
        args = call.input
        if call.name == "Read":
            out.append(current[args["file_path"]].split("\n"))
        elif call.name == "Edit":
            path = args["file_path"]
            current[path] = current[path].replace(args["old_string"], args["new_string"], 1)
        elif call.name == "Bash" and args["command"].startswith("sed -i"):
            _sed, _i, expr, path = shlex.split(args["command"])
            _s, old, new, _g = expr.split("/")
            current[path] = current[path].replace(old, new)
    return out
