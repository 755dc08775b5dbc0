"""Build a lint fixture (tests/fixtures/claude_md/<case>/) into a temporary project + HOME."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from ccstate import paths

CASES_DIR = Path(__file__).resolve().parent / "fixtures" / "claude_md"
CASES = sorted(p.name for p in CASES_DIR.iterdir() if (p / "project").is_dir())
SUFFIX = ".fixture"  # CLAUDE.md.fixture -> CLAUDE.md (see fixtures/claude_md/README.md)


def copy_tree(source: Path, target: Path) -> None:
    for path in sorted(source.rglob("*")):
        if path.is_dir():
            continue
        rel = path.relative_to(source)
        name = rel.name[: -len(SUFFIX)] if rel.name.endswith(SUFFIX) else rel.name
        dest = target / rel.parent / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)


def build_case(case: str, root: Path, home: Path) -> Path:
    """Copy case `case` to `root/project` (and its HOME parts to `home`); return the project."""
    source = CASES_DIR / case
    project = root / "project"
    copy_tree(source / "project", project)
    if (source / "home").is_dir():
        copy_tree(source / "home", home)
    project = project.resolve()
    if (source / "memory.md").exists():
        memory = Path(paths.auto_memory_path_str(str(project), {"HOME": str(home)}))
        memory.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / "memory.md", memory)
    if (source / "approve-external").exists():
        flag = {"hasClaudeMdExternalIncludesApproved": True}
        (home / ".claude.json").write_text(json.dumps({"projects": {str(project): flag}}))
    return project


def normalise(report: dict[str, Any], project: Path) -> dict[str, Any]:
    """The report with machine-specific parts replaced: project path, memory slug."""
    text = json.dumps({k: v for k, v in report.items() if k != "project"}, sort_keys=True)
    text = text.replace(paths.project_slug(str(project)), "<slug>")
    text = re.sub(re.escape(os.fspath(project)), "<project>", text)
    return json.loads(text)
