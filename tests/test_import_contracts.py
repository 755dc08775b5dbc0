"""The import contracts in pyproject.toml (`lint-imports`, issue #11) hold, and catch a breach.

Each breach is planted in a copy of the package, so the check runs on the real contracts
against code that differs from ours by one import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, SRC

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
# pyproject.toml's contracts, and the no-cycles one again with annotation-only imports counted
CONFIGS = ("pyproject.toml", "importlinter-typing.toml")


def lint_imports(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *CONFIGS],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def planted(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess[str]:
    """lint-imports over a copy of src/ where `module` (a path under ccstate/) got `line`."""
    src = tmp_path / "src"
    shutil.copytree(SRC / "ccstate", src / "ccstate", ignore=shutil.ignore_patterns("__pycache__"))
    for config in CONFIGS:
        shutil.copy(REPO / config, tmp_path / config)
    target = src / "ccstate" / module
    target.write_text(target.read_text() + f"\n{line}\n")
    return lint_imports(src, tmp_path)


pytestmark = pytest.mark.skipif(
    not LINT_IMPORTS.exists(), reason="lint-imports is not installed (pip install -e '.[test]')"
)


def test_the_contracts_hold_on_this_tree() -> None:
    result = lint_imports(SRC, REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
    assert "2 import graphs" in result.stdout  # both configs were read


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        # a concern reaching up into a skin
        ("ledger/store.py", "from ccstate.cli import cli", "cli / hooks -> concern packages"),
        # the old claude_md <-> claude_md_cache cycle, planted again
        (
            "instructions/cache.py",
            "from ccstate.instructions import status",
            "No import cycles",
        ),
        # the cache <-> lint cycle that stayed in annotations (#24.7), planted again
        (
            "instructions/cache.py",
            "if TYPE_CHECKING:\n    from ccstate.instructions.lint import Report",
            "No import cycles, annotations included",
        ),
        # a concern that draws a table
        ("report/summary.py", "import rich", "Only cli/ imports click or rich"),
        # the hot path paying for a third-party import
        ("ledger/core.py", "import yaml", "import only what D1 allows"),
        ("hookio.py", "import dataclasses", "import only what D1 allows"),
    ],
)
def test_a_planted_breach_is_caught(tmp_path: Path, module: str, line: str, contract: str) -> None:
    result = planted(tmp_path, module, line)
    assert result.returncode == 1, result.stdout + result.stderr
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken


def _contracts(config: str) -> dict[str, dict]:
    tomllib = pytest.importorskip("tomllib")
    data = tomllib.loads((REPO / config).read_text())
    return {c["id"]: c for c in data["tool"]["importlinter"]["contracts"]}


def test_every_package_is_under_the_contracts() -> None:
    """A new package joins the layers, the no-cycles (both configs) and, below cli/, the
    no-click-or-rich contracts (#40: every package under an import-linter contract)."""
    packages = sorted(
        f"ccstate.{p.name}" for p in (SRC / "ccstate").iterdir() if (p / "__init__.py").is_file()
    )
    contracts = _contracts("pyproject.toml")
    layered = {
        name.strip()
        for layer in contracts["layers"]["layers"]
        for name in layer.replace("|", ":").split(":")
    }
    ui_free = set(contracts["no-ui-below-cli"]["source_modules"])
    typing = _contracts("importlinter-typing.toml")["no-cycles-typing"]["ancestors"]
    for package in packages:
        assert package in layered, package
        assert package in contracts["no-cycles"]["ancestors"], package
        assert package in typing, package
        assert package == "ccstate.cli" or package in ui_free, package
