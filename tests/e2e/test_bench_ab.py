"""bench/ab.py: one scenario through the real CLI, both variants; the table and its update in
docs/BENCHMARKS.md."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def _load_bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_ab", REPO / "bench" / "ab.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


ab = _load_bench()


def test_repeated_reads_cost_less_with_ccstate(claude_bin: Path, tmp_path: Path) -> None:
    scenario = next(s for s in ab.SCENARIOS if s.name == "repeated-reads")
    # run_variant itself checks that `ccstate report` counts what the fake served
    without = ab.run_variant(scenario, False, claude_bin, tmp_path)
    with_ = ab.run_variant(scenario, True, claude_bin, tmp_path)
    assert without.calls == with_.calls == 10
    assert with_.prompt < without.prompt and with_.cost < without.cost
    table = ab.rows({"repeated-reads": {"without": without, "with": with_}})
    assert [r[1] for r in table] == ["without", "with", "reduction"]
    assert table[2][3] == f"{ab.reduction(without.prompt, with_.prompt):.1%}"


def test_update_doc_replaces_only_the_marked_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(f"intro\n{ab.START}\nold\n{ab.END}\noutro\n")
    monkeypatch.setattr(ab, "DOC", doc)
    ab.update_doc("| new |")
    assert doc.read_text() == f"intro\n{ab.START}\n| new |\n{ab.END}\noutro\n"
    doc.write_text("no markers")
    with pytest.raises(SystemExit, match="no <!-- ab-table:start"):
        ab.update_doc("x")


def test_the_benchmarks_page_holds_the_markers() -> None:
    text = ab.DOC.read_text()
    assert text.count(ab.START) == 1 and text.count(ab.END) == 1
