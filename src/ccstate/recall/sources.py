"""What recall reads for a project: its transcripts (subagents included), handoffs, progress
logs and DECISIONS.md."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ccstate import paths


@dataclass(frozen=True)
class Source:
    path: Path
    kind: str  # transcript | handoff | progress | decisions
    session: str = ""
    agent: str = ""


def transcripts_folder(project: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """`~/.claude/projects/<slug>`: where Claude Code keeps this project's transcripts."""
    return paths.user_claude_dir(environ) / "projects" / paths.project_slug(project)


def transcript_source(path: Path) -> Source:
    """A transcript file as a source: a main session, or a subagent's (`<session>/subagents/`)."""
    if path.parent.name == "subagents":
        return Source(path, "transcript", path.parent.parent.name, path.stem)
    return Source(path, "transcript", path.stem)


def project_sources(
    project: Path, state: Path, environ: Mapping[str, str] = os.environ
) -> list[Source]:
    """Every file recall indexes for this project, biggest transcripts first."""
    folder_ = transcripts_folder(project, environ)
    found = sorted(folder_.rglob("*.jsonl")) if folder_.is_dir() else []
    found.sort(key=_size, reverse=True)
    return [transcript_source(p) for p in found] + state_sources(project, state)


def state_sources(project: Path, state: Path) -> list[Source]:
    """The handoffs, the progress logs and DECISIONS.md."""
    base = state / "handoff"
    out = [Source(p, "handoff", p.stem) for p in sorted(base.glob("branches/*/*.md"))]
    logs = [base / "progress.md", *sorted(base.glob("archive/progress.*.md"))]
    out += [Source(p, "progress") for p in logs if p.is_file()]
    decisions = paths.decisions_path(project)
    if decisions.is_file():
        out.append(Source(decisions, "decisions"))
    return out


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
