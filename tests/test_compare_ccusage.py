"""`ccstate report` and ccusage count the same tokens on the public and modern corpora
(issues #7, #24.2).

Needs ../shared/transcripts/public (or modern) and npm (ccusage is installed once into the e2e
cache, outside the repository). Runs bench/compare_ccusage.py's comparison; ~2 s once installed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

from helpers import MODERN, PUBLIC, corpus_absent

# Read before conftest repoints HOME: ccusage is installed once into the real e2e cache.
E2E_CACHE = os.environ.get("CCSTATE_E2E_CACHE") or os.path.expanduser("~/.cache/ccstate-e2e")
REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "bench" / "compare_ccusage.py"


def _load_script():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("compare_ccusage", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("corpus", [PUBLIC, MODERN], ids=["public", "modern"])
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed: no ccusage")
def test_tokens_equal_ccusage_session_by_session(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both corpora: mostly 1.0.x, and 2.0.26-2.1.146 (1-hour cache writes, api_error
    retries, `<synthetic>` rate-limit records, attachments, queue operations)."""
    if not corpus.is_dir():
        pytest.skip(corpus_absent(corpus))
    monkeypatch.setenv("CCSTATE_E2E_CACHE", E2E_CACHE)
    sys.modules.pop("ccusage_setup", None)  # it reads the cache location when imported
    compare = _load_script()
    try:
        result = compare.compare(corpus.resolve(), tmp_path)
    except (FileNotFoundError, RuntimeError) as exc:  # npm present but the install failed
        pytest.skip(f"ccusage {compare.CCUSAGE_VERSION} could not be installed: {exc}")
    differing = [r["session"] for r in result["sessions"] if not r["equal"]]
    assert differing == [], compare.render(result)
    assert result["tokens_equal"]
    totals = result["totals"]
    assert totals["ccstate"]["output"] == totals["ccusage"]["output"] > 0
    assert len(result["sessions"]) == len(list(corpus.glob("*.jsonl")))
