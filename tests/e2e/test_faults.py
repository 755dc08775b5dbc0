"""The read ledger in the real CLI when the machinery around it fails (issue #12).

The plugin's venv is marked ready but its interpreter cannot start: PreCompact and
SessionStart(compact) used to hand over to it, fail, and leave the epoch open, so the Read
after the compaction was answered with a notice for text the summary had replaced. The model's
view is checked from the request bodies alone (ledger_check).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from fake_api import tool_use
from ledger_check import model_views, wrong_views

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
BIG = "".join(f"def handler_{i:03d}(request, *, timeout=30):  # route {i}\n" for i in range(1, 121))


def _broken_venv(claude_home: Path) -> Path:
    """The plugin data dir Claude Code gives `--plugin-dir` ccstate, with a ready marker whose
    interpreter exits 1 (as a venv whose base Python was removed does)."""
    data = claude_home / ".claude" / "plugins" / "data" / "ccstate-inline"
    python = data / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n")
    python.chmod(0o755)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
        "from ccstate.install import bootstrap; print(bootstrap.fingerprint(Path(sys.argv[2])))"
    )
    # the fingerprint as the hooks' own `python3` computes it (it includes its version)
    found = subprocess.run(
        [shutil.which("python3") or "python3", "-c", code, str(REPO / "src"), str(REPO)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (data / "venv.ready.json").write_text(json.dumps({"fingerprint": found, "python": str(python)}))
    return data


def test_after_a_compaction_with_a_broken_venv_the_next_read_is_full(
    claude, fake_api, project: Path, claude_home: Path
) -> None:
    big = project / "big.py"
    big.write_text(BIG)
    other = project / "app.py"
    data = _broken_venv(claude_home)
    read = {"file_path": str(big)}
    high = {"input_tokens": 75_000, "output_tokens": 10}
    fake_api.set_script(
        [
            tool_use("Read", read),
            tool_use("Read", read),
            tool_use("Read", {"file_path": str(other)}, usage=high),  # then auto-compaction
            tool_use("Read", read),
        ]
    )
    claude("read, compact, read", plugin_dir=REPO, extra_args=["--autocompact", "100000"])
    kinds = [r.kind for r in fake_api.all_requests() if r.kind in ("agent", "compaction")]
    assert "compaction" in kinds, kinds
    views = model_views(fake_api.agent_requests()[-1])
    assert views[-1].kind == "full", [v.kind for v in views]  # the summary replaced Read #1
    assert views[-1].text.startswith("1\tdef handler_001(")
    assert wrong_views(views, {str(big): BIG.split("\n")}) == []
    log = (project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert "plugin venv interpreter" in log and "ran in-process" in log
    assert (data / "venv.ready.json").exists()  # still marked ready: the launcher coped
