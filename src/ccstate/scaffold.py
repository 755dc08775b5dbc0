"""`ccstate init`: plan the files (pure), then apply the plan.

A second run plans nothing to change. User content is never overwritten
without `--force`; `.claude/settings.json` is merged, keeping every key and hook.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from ccstate import paths, store, wiring
from ccstate.errors import CcstateError

Action = Literal["create", "update", "skip"]


@dataclass(frozen=True)
class Step:
    path: Path
    action: Action
    reason: str
    content: str | None = None  # what to write for create/update


def template_text(name: str) -> str:
    folder = resources.files("ccstate").joinpath("templates")
    return folder.joinpath(name).read_text(encoding="utf-8")


def plan_init(
    project: Path, python: str, environ: Mapping[str, str], *, force: bool = False
) -> list[Step]:
    """What `init` would do in `project`, without touching the disk."""
    return [
        _plan_config(project, force),
        _plan_settings(project, python, environ),
        _plan_state_dir(project, environ),
        _plan_decisions(project),
        *_plan_pointer_layout(project),
    ]


def apply_plan(steps: list[Step]) -> None:
    for step in steps:
        if step.action == "skip" or step.content is None:
            continue
        if step.path.name == ".gitignore":
            store.ensure_state_dir(step.path.parent)
        else:
            store.atomic_write_text(step.path, step.content)


def _plan_config(project: Path, force: bool) -> Step:
    path = paths.config_path(project)
    content = template_text("ccstate.yaml")
    if not path.exists():
        return Step(path, "create", "project settings with the defaults", content)
    if force and path.read_text(encoding="utf-8") != content:
        return Step(path, "update", "--force: replaced with the template", content)
    return Step(path, "skip", "exists (kept as is; --force replaces it)")


def _plan_settings(project: Path, python: str, environ: Mapping[str, str]) -> Step:
    path = paths.project_settings_path(project)
    try:
        current = wiring.read_settings(path)
    except ValueError as exc:
        raise CcstateError(
            f"{exc}; fix the JSON or move the file aside, then rerun 'ccstate init'"
        ) from exc
    enabled_in = wiring.plugin_enabled(project, environ)
    if enabled_in:
        wanted = wiring.remove_ours(current)
        why = f"the ccstate plugin is enabled in {enabled_in}: hooks come from the plugin"
    else:
        wanted = wiring.merge_settings(current, python)
        why = "hooks for " + ", ".join(e for e, _m, _t in wiring.HOOK_SPECS)
    if wanted == current:
        return Step(path, "skip", f"up to date ({why})")
    content = json.dumps(wanted, indent=2) + "\n"
    return Step(path, "update" if path.exists() else "create", why, content)


def _plan_state_dir(project: Path, environ: Mapping[str, str]) -> Step:
    ignore = paths.state_dir(project, environ) / ".gitignore"
    if ignore.exists():
        return Step(ignore, "skip", "state dir exists")
    return Step(ignore, "create", "machine-local state dir, ignored by git", store.STATE_GITIGNORE)


def _plan_decisions(project: Path) -> Step:
    """DECISIONS.md with the header only; an existing one is the team's, never replaced."""
    path = paths.decisions_path(project)
    if path.exists():
        return Step(path, "skip", "exists (your decisions; never replaced, not even by --force)")
    content = template_text(paths.DECISIONS_NAME)
    return Step(path, "create", "numbered decision log, header only", content)


def _plan_pointer_layout(project: Path) -> list[Step]:
    """An index CLAUDE.md and a first topic file (docs/CLAUDE-MD.md); never replaces one.

    An existing CLAUDE.md is the user's, kept even with --force; when it is over the
    lint budget the step says to run `ccstate split`.
    """
    from ccstate.config import Config, load_config
    from ccstate.errors import ConfigError

    try:
        settings = load_config(project)
    except ConfigError:  # init still wires a project with a broken config; doctor reports it
        settings = Config()
    topic_dir = str(settings.get("lint.topic_dir")).strip("/") or "docs/claude"
    index, topic = project / "CLAUDE.md", project / topic_dir / "workflow.md"
    if not index.exists() and (project / ".claude" / "CLAUDE.md").exists():
        index = project / ".claude" / "CLAUDE.md"  # Claude Code loads either as the project's
    if index.exists():
        limits = (settings.get("lint.root_max_lines"), settings.get("lint.root_max_tokens"))
        rel = index.relative_to(project).as_posix()
        steps = [Step(index, "skip", _existing_index(index, rel, limits, topic_dir))]
    else:
        text = template_text("claude-index.md").replace("{{project}}", project.name)
        text = text.replace("{{topic_dir}}", topic_dir)
        steps = [Step(index, "create", f"pointer-layout index; details go in {topic_dir}/", text)]
    if topic.exists():
        steps.append(Step(topic, "skip", "exists (kept as is)"))
    elif index.exists():
        why = f"not created: your CLAUDE.md is kept; 'ccstate split' fills {topic_dir}/"
        steps.append(Step(topic, "skip", why))
    else:
        text = template_text("claude-topic.md")
        steps.append(Step(topic, "create", "first topic file; CLAUDE.md points here", text))
    return steps


def _existing_index(index: Path, rel: str, limits: tuple[int, int], topic_dir: str) -> str:
    from ccstate import tokens

    text = index.read_text(encoding="utf-8", errors="replace")
    lines, (count, _exact) = len(text.splitlines()), tokens.count_tokens(text)
    if lines <= limits[0] and count <= limits[1]:
        return "exists (kept as is; never replaced, not even by --force)"
    return (
        f"exists, {lines} lines / {count:,} tokens, over the {limits[0]}-line / "
        f"{limits[1]:,}-token budget: run 'ccstate split {rel}' to move long sections "
        f"into {topic_dir}/"
    )
