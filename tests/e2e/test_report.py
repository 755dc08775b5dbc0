"""`ccstate report` over transcripts the real CLI wrote, with the cache simulator on (#7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cache_audit import report_json
from cache_sim import CacheSim
from claude_runner import read_transcript
from fake_api import ToolCall, text, tool_use, tool_uses

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def test_report_counts_what_the_api_served_once_per_response(
    claude, fake_api, project: Path, claude_home: Path, tmp_path: Path
) -> None:
    sim = CacheSim()
    served: list[dict] = []

    def usage(body: dict, reply: object) -> dict:
        used = sim.usage(body, reply)
        if body.get("tools"):
            served.append(used)
        return used

    fake_api.usage = usage
    # a decision, so the capsule has something to say (#43: none on a fresh project)
    (project / "DECISIONS.md").write_text("# Decisions\n\n## D1: Use spaces\n\n- Status: active\n")
    big = project / "big.py"
    big.write_text("".join(f"value_{i} = {i} * 2  # a line of code\n" for i in range(300)))
    readme = project / "README.md"
    fake_api.set_script(
        [
            # one response, two tool calls: Claude Code writes it as two assistant records
            tool_uses(
                ToolCall("Read", {"file_path": str(big)}),
                ToolCall("Read", {"file_path": str(readme)}),
            ),
            tool_use("Read", {"file_path": str(big)}),
            text("read them"),
        ]
    )
    _, result = claude("read big.py and the README", plugin_dir=REPO)
    assert result is not None and result["result"] == "read them"

    records = read_transcript(next((claude_home / ".claude" / "projects").rglob("*.jsonl")))
    assistant_ids = [r["message"]["id"] for r in records if r.get("type") == "assistant"]
    assert len(assistant_ids) == 4 and len(set(assistant_ids)) == 3  # a split response

    data = report_json(claude_home, tmp_path)
    tokens = data["total"]["tokens"]
    assert tokens["api_calls"] == len(served) == 3
    assert tokens["input"] == sum(u["input_tokens"] for u in served)
    assert tokens["cache_write"] == sum(u["cache_creation_input_tokens"] for u in served)
    assert tokens["cache_read"] == sum(u["cache_read_input_tokens"] for u in served)
    assert tokens["output"] == sum(u["output_tokens"] for u in served)
    # the simulated cache: each call reads what the previous one wrote
    assert served[1]["cache_read_input_tokens"] > 0 and tokens["cache_hit_ratio"] > 0.5

    ccstate = data["total"]["ccstate"]
    assert ccstate["injections"] == 1  # the SessionStart capsule
    assert ccstate["notices"] == 1 and ccstate["saved_tokens"] > 0  # the identical re-read
    reads = data["total"]["context"]["reads"]
    assert reads["first"]["count"] == 2 and reads["ccstate"]["count"] == 1
