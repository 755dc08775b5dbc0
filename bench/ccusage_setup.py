"""Shared by compare_ccusage.py and bench_report.py: the corpus laid out as Claude Code keeps
it, and the pinned ccusage installed outside the repository.

Imported by bench/compare_ccusage.py, bench/bench_report.py, bench/report_timeline.py,
bench/bench_scale.py and bench/scale_fixtures.py; docs/REPORT.md describes the layout.

ccusage reads `$CLAUDE_CONFIG_DIR/projects/<slug>/<session>.jsonl` (it does not follow
symlinks), so the corpus is copied into a temporary HOME: `Owner__repo__<session>.jsonl`
becomes `<home>/.claude/projects/-corpus-Owner-repo/<session>.jsonl`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# ../shared beside the checkout (CCSTATE_SHARED names it elsewhere, e.g. for a git worktree)
CORPUS = Path(os.environ.get("CCSTATE_SHARED") or REPO / ".." / "shared") / "transcripts" / "public"
# 20.0.26 (npm latest when pinned) has no linux-x64 native package on the registry; 20.0.24
# is the newest release whose native binary installs. Bump both together with the docs.
CCUSAGE_VERSION = "20.0.24"
CACHE = Path(os.environ.get("CCSTATE_E2E_CACHE") or Path.home() / ".cache" / "ccstate-e2e")


def corpus_files(corpus: Path) -> Iterator[tuple[Path, str, str]]:
    """(file, project slug, session) for each `corpus/*.jsonl`: `Owner__repo__<session>.jsonl`
    belongs to the project `-corpus-Owner-repo`."""
    for source in sorted(corpus.glob("*.jsonl")):
        parts = source.stem.split("__")
        owner_repo, session = (
            ("-".join(parts[:-1]), parts[-1]) if len(parts) > 1 else ("", parts[0])
        )
        slug = "-corpus" + (("-" + re.sub(r"[^a-zA-Z0-9]", "-", owner_repo)) if owner_repo else "")
        yield source, slug, session


def layout(corpus: Path, home: Path) -> Path:
    """Copy `corpus/*.jsonl` into `home/.claude/projects/<slug>/<session>.jsonl`."""
    projects = home / ".claude" / "projects"
    for source, slug, session in corpus_files(corpus):
        target = projects / slug / f"{session}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return projects


def ccusage_bin(version: str = CCUSAGE_VERSION) -> Path:
    """The installed `ccusage` launcher, installed with npm into the cache on first use.

    Raises FileNotFoundError when npm is missing and RuntimeError when the install fails.
    """
    prefix = CACHE / f"ccusage-{version}"
    launcher = prefix / "node_modules" / ".bin" / "ccusage"
    if launcher.exists():
        return launcher
    npm = shutil.which("npm")
    if npm is None:
        raise FileNotFoundError("npm is not installed: cannot install ccusage")
    prefix.mkdir(parents=True, exist_ok=True)
    cmd = [npm, "install", "--prefix", str(prefix), f"ccusage@{version}", "--no-audit", "--no-fund"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0 or not launcher.exists():
        raise RuntimeError(f"`{' '.join(cmd)}` failed: {proc.stderr[-2000:]}")
    return launcher


def ccusage_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CCUSAGE"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), NO_COLOR="1")
    return env


def ccusage_command(launcher: Path) -> list[str]:
    """`ccusage claude session --json --offline`: Claude Code sessions, prices from the
    package (no network). 20.x's bare `session` also covers other agents' logs."""
    return [str(launcher), "claude", "session", "--json", "--offline"]


def ccstate_command(home: Path, *, cache: bool = True, python: str | None = None) -> list[str]:
    """`ccstate report <projects> --json` (`--no-cache`: a cold run): the `ccstate` console
    script beside this interpreter (or `python`), as users run it, else `python -m ccstate`."""
    cmd = [*ccstate_launch(python), "report", str(home / ".claude" / "projects"), "--json"]
    return cmd if cache else [*cmd, "--no-cache"]


def ccstate_launch(python: str | None = None) -> list[str]:
    """The `ccstate` console script beside this interpreter (or `python`), else
    `python -m ccstate`."""
    python = python or sys.executable
    script = Path(python).with_name("ccstate")
    return [str(script)] if script.is_file() else [python, "-m", "ccstate"]


def ccstate_env(work: Path) -> dict[str, str]:
    """The environment, with ccstate's scan cache in `work` (never the user's own), and bytecode
    caches on, as an installed ccstate has them (kept in `work`, not the checkout): with
    PYTHONDONTWRITEBYTECODE inherited, every run would compile ccstate from source (~0.15 s)."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("CCSTATE_HOME", "PYTHONDONTWRITEBYTECODE")
    }
    env["XDG_CACHE_HOME"] = str(work / "cache")
    env.setdefault("PYTHONPYCACHEPREFIX", str(work / "pycache"))
    return env
