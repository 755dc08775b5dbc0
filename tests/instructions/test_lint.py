"""The CLAUDE.md lint: golden reports per rule and per real-world layout, rules, cache, capsule."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ccstate import config, tokens
from ccstate.instructions import cache as claude_md_cache
from ccstate.instructions import lint as claude_md
from ccstate.instructions import loaded as instructions
from ccstate.instructions import status
from claude_md_cases import CASES, CASES_DIR, build_case, normalise

UPDATE = os.environ.get("CCSTATE_UPDATE_GOLDEN") == "1"


def run_lint(project: Path, home: Path, *, full: bool = True) -> claude_md.Report:
    settings = config.load_config(project)
    environ = {"HOME": str(home)}
    return claude_md.lint(str(project), settings, environ, tokens.count_tokens, full=full)


@pytest.fixture(autouse=True)
def _tiktoken() -> None:
    ok, why = tokens.encoding_available()
    if not ok:
        pytest.skip(f"golden token counts need the offline cl100k_base encoding: {why}")


@pytest.mark.parametrize("case", CASES)
def test_golden_report(case: str, tmp_path: Path, isolated_home: Path) -> None:
    project = build_case(case, tmp_path, isolated_home)
    got = normalise(run_lint(project, isolated_home).to_json(), project)
    expected_path = CASES_DIR / case / "expected.json"
    if UPDATE:
        expected_path.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
    assert got == json.loads(expected_path.read_text())


def test_every_rule_fires_in_some_golden_case() -> None:
    fired = set()
    for case in CASES:
        expected = json.loads((CASES_DIR / case / "expected.json").read_text())
        fired |= {f["rule"] for f in expected["findings"]}
    rule_ids = {
        "root-lines", "root-tokens", "import", "import-not-loaded", "dead-pointer",
        "orphan-topic", "vague-pointer", "scoped-rule", "nested-claude-md", "memory-head",
    }  # fmt: skip
    assert fired == rule_ids
    assert len(claude_md.RULES) == 9  # root-lines and root-tokens share rule_root_size


def test_at_least_five_real_world_layouts_with_imports_and_their_source() -> None:
    real = [c for c in CASES if c.startswith("rw-")]
    assert len(real) >= 5
    for case in real:
        assert "public" in (CASES_DIR / case / "SOURCE.md").read_text() or case == "rw-docs-example"
        expected = json.loads((CASES_DIR / case / "expected.json").read_text())
        assert any(f["rule"] == "import" for f in expected["findings"]), case


def test_loaded_set_matches_what_claude_code_loaded(tmp_path: Path, isolated_home: Path) -> None:
    """The code-and-html case mirrors a run of the real CLI (docs/CLAUDE-MD.md#what-loads)."""
    project = build_case("code-and-html", tmp_path, isolated_home)
    loaded = instructions.compute(str(project), {"HOME": str(isolated_home)})
    names = [os.path.basename(f.path) for f in loaded.files]
    assert names == ["CLAUDE.md", "a.md", "b.md", "c.md", "l.md"]


def test_import_depth_and_cycles(tmp_path: Path, isolated_home: Path) -> None:
    project = build_case("imports", tmp_path, isolated_home)
    loaded = instructions.compute(str(project), {"HOME": str(isolated_home)})
    chain = [f for f in loaded.files if "chain" in f.path]
    assert [(os.path.basename(f.path), f.depth) for f in chain] == [
        ("c1.md", 1),
        ("c2.md", 2),
        ("c3.md", 3),
        ("c4.md", 4),
    ]
    statuses = {(os.path.basename(r.target), r.status) for r in loaded.imports}
    assert ("c5.md", "too-deep") in statuses
    assert ("style.md", "duplicate") in statuses
    assert ("logo.png", "not-text") in statuses


def test_import_cost_includes_nested_imports(tmp_path: Path, isolated_home: Path) -> None:
    project = build_case("imports", tmp_path, isolated_home)
    report = run_lint(project, isolated_home)
    per_file = {os.path.basename(f.path): n for f, n in report.files}
    (arch,) = [f for f in report.findings if f.rule == "import" and "architecture" in f.message]
    assert arch.tokens == per_file["architecture.md"] + per_file["glossary.md"]
    assert arch.level == "error"  # over lint.import_max_tokens (500)
    (style,) = [f for f in report.findings if f.rule == "import" and "style" in f.message]
    assert style.level == "warning" and style.tokens == per_file["style.md"]
    assert style.suggestion == "`docs/style.md` (Style: Format with ruff; keep functions short.)"


def test_memory_head_is_cut_like_claude_code() -> None:
    """Same arithmetic and warning as Claude Code 2.1.328 (checked in tests/e2e/test_lint.py)."""
    text = "\n".join(f"line {i}" for i in range(300))
    head, cut = instructions.memory_head(text)
    assert cut and head.split("\n")[199] == "line 199"
    assert head.split("\n")[200:] == [
        "",
        "> WARNING: MEMORY.md is 300 lines (limit: 200). Only part of it was loaded: 100 of 300 "
        'lines were cut off, starting at line 201 ("line 200"). Keep index entries to one line '
        "under ~200 chars; move detail into topic files.",
    ]
    long_lines = "\n".join("x" * 1000 for _ in range(40))
    head, cut = instructions.memory_head(long_lines)
    assert cut and head.startswith("x" * 1000 + "\n") and "(limit: 24.4KB)" in head
    assert head.count("\n" + "x" * 1000) == 23  # 24 lines of 1,001 chars fit in 25,000
    assert instructions.memory_head("short\n") == ("short", False)


def test_estimate_is_chars_over_four() -> None:
    assert claude_md.estimate("abcde") == (2, False)


def test_exit_worthy_errors_only_from_error_rules(tmp_path: Path, isolated_home: Path) -> None:
    project = build_case("clean", tmp_path, isolated_home)
    report = run_lint(project, isolated_home)
    assert report.findings == ()
    assert report.exact and report.tokenizer.startswith("tiktoken cl100k_base")


# ----------------------------------------------------------------------------- cache + capsule


def test_capsule_line_only_with_errors_and_from_the_cache(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = build_case("dead-pointers", tmp_path, isolated_home)
    state = project / ".ccstate"
    state.mkdir()
    lines = status.capsule_section(project, state, config.Config())
    assert lines == ["- CLAUDE.md lint: 2 error(s) (dead-pointer); `ccstate lint` shows them"]
    cached = json.loads((state / "cache" / "claude_md.json").read_text())
    assert cached["exact"] is False  # computed by the hook path: chars/4, no tiktoken
    assert claude_md_cache.is_fresh(cached, config.Config())
    # A fresh cache is read, not recomputed: a doctored count shows through.
    cached["errors"], cached["error_rules"] = 7, ["root-lines"]
    (state / "cache" / "claude_md.json").write_text(json.dumps(cached))
    assert status.capsule_section(project, state, config.Config()) == [
        "- CLAUDE.md lint: 7 error(s) (root-lines); `ccstate lint` shows them"
    ]


def test_cache_goes_stale_when_an_instruction_file_or_setting_changes(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = build_case("clean", tmp_path, isolated_home)
    state = project / ".ccstate"
    report = run_lint(project, isolated_home)
    data = claude_md_cache.write(str(state), report.to_cache())
    assert claude_md_cache.is_fresh(data, config.Config())
    strict = config.Config(values={**config.defaults(), "lint.root_max_lines": 3})
    assert not claude_md_cache.is_fresh(data, strict)
    (project / ".claude" / "rules").mkdir(parents=True)
    assert not claude_md_cache.is_fresh(data, config.Config())  # a new folder Claude reads
    data = claude_md_cache.write(str(state), run_lint(project, isolated_home).to_cache())
    (project / "docs" / "claude" / "workflow.md").write_text("# Workflow\n\nchanged\n")
    assert not claude_md_cache.is_fresh(data, config.Config())


def test_capsule_has_no_line_without_errors(tmp_path: Path, isolated_home: Path) -> None:
    project = build_case("imports", tmp_path, isolated_home)
    (project / ".ccstate.yaml").write_text("lint:\n  import_max_tokens: 100000\n")
    settings = config.load_config(project)
    assert status.capsule_section(project, project / ".ccstate", settings) == []
