from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import read_payload, run_hook


def test_read_payload_is_parsed_into_the_heartbeat(git_project: Path) -> None:
    target = git_project / "app.py"
    payload = read_payload(git_project, target, "a\nb\n")
    payload["agent_id"] = "a235d80d2fdc9c84a"
    assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")
    beat = json.loads((git_project / ".ccstate" / "heartbeat" / "PostToolUse.json").read_text())
    assert beat["detail"] == {
        "python": sys.executable,
        "tool_name": "Read",
        "tool_use_id": "toolu_001",
        "agent_id": "a235d80d2fdc9c84a",
        "file_path": str(target),
        "response_type": "text",
        "start_line": 1,
        "num_lines": 3,
        "total_lines": 3,
        "content_chars": 4,
    }


def test_read_output_is_never_replaced_by_the_foundation(git_project: Path) -> None:
    target = git_project / "app.py"
    payload = read_payload(git_project, target, target.read_text())
    for _ in range(2):
        assert run_hook("PostToolUse", payload, cwd=git_project)[2] == ""
