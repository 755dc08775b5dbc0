"""A venv made the way users get ccstate (#24.6): `python -m venv`, then a plain
`pip install <copy of the tree>` as install.sh does it (not editable, no test tools), so the
benches time the hooks and commands users run, not the test venv's editable install.

Imported by bench/bench_scale.py (what it times by default); docs/BENCHMARKS.md and
docs/MOMENTS.md time hooks from it.

One venv per source tree: it lives under `~/.cache/ccstate-bench/plain-<key>/venv`, where the
key hashes the interpreter and every file install.sh copies (the top-level files and `src/`),
so an edit to the tree builds a fresh one and an unchanged tree reuses it. Standard library.

    python bench/plain_venv.py            # build (or find) it, print its python
    python bench/plain_venv.py --root /tmp/main-tree
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ccstate-bench"
_SKIP = ("__pycache__", ".egg-info")


def source_files(root: Path) -> list[Path]:
    """What install.sh stages: the top-level files of the tree and everything under src/
    (links followed), bytecode and egg-info left out."""
    files = [p for p in sorted(root.iterdir()) if p.is_file()]
    for path in sorted((root / "src").rglob("*")):
        if path.is_file() and not any(part.endswith(_SKIP) for part in path.parts):
            files.append(path)
    return files


def tree_key(root: Path, python: str) -> str:
    digest = hashlib.sha256(os.path.realpath(python).encode())
    for path in source_files(root):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def ensure(root: Path = REPO, python: str = sys.executable, *, quiet: bool = True) -> Path:
    """The python of the plain-install venv of `root`, built with `python` when missing."""
    home = CACHE / f"plain-{tree_key(root, python)}"
    venv_python = home / "venv" / "bin" / "python"
    if (home / "ready").exists() and venv_python.exists():
        return venv_python
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    run = {"check": True, "capture_output": quiet}
    subprocess.run([python, "-m", "venv", str(home / "venv")], **run)  # type: ignore[call-overload]
    with tempfile.TemporaryDirectory(prefix="ccstate-plain-") as stage:
        for path in source_files(root):
            target = Path(stage) / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        pip = [str(venv_python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, stage], **run)  # type: ignore[call-overload]
    (home / "ready").write_text(f"{root}\n")
    return venv_python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=REPO, help="the tree to install")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to use")
    args = parser.parse_args(argv)
    print(ensure(args.root.resolve(), args.python, quiet=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
