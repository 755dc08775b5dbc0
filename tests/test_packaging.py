"""The wheel ships every data file the package reads (templates, pricing.json, py.typed).

Built from a copy of the tree, so no build/ or *.egg-info lands in the checkout. An install
that is not editable (install.sh, the plugin venv) gets exactly this wheel's content.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from helpers import REPO, SRC


def build_wheel(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(SRC, tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, tree / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [
            *pip,
            "wheel",
            "--no-deps",
            "-w",
            str(tmp_path / "dist"),
            str(tree),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = (tmp_path / "dist").glob("ccstate-*.whl")
    return wheel


def test_the_wheel_holds_every_data_file_of_the_package(tmp_path: Path) -> None:
    shipped = set(zipfile.ZipFile(build_wheel(tmp_path)).namelist())
    data = sorted(
        p.relative_to(SRC).as_posix()
        for p in (SRC / "ccstate").rglob("*")
        if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts
    )
    assert "ccstate/report/pricing.json" in data  # the check below covers what moved in #11
    assert [name for name in data if name not in shipped] == []


def test_ccstate_hook_is_a_plain_script_that_imports_no_re(tmp_path: Path) -> None:
    """The hooks' entry point is our own script (#24.6): the console-script wrapper pip 23.x
    (Python 3.11's bundled pip) writes imports `re` before any ccstate code, on every tool
    call. pip points `#!python` at the venv's interpreter when it installs the wheel."""
    wheel = zipfile.ZipFile(build_wheel(tmp_path))
    (script,) = [n for n in wheel.namelist() if n.endswith(".data/scripts/ccstate-hook")]
    text = wheel.read(script).decode()
    assert text.startswith("#!python\n")
    assert "import re" not in text and "from ccstate.hooks.__main__ import main" in text
    entry_points = next(n for n in wheel.namelist() if n.endswith("entry_points.txt"))
    assert "ccstate-hook" not in wheel.read(entry_points).decode()
    assert "ccstate = ccstate.cli:main" in wheel.read(entry_points).decode()
