"""`ccstate init` and `ccstate init --remove`: plan the files (pure), then apply the plan.

A second run plans nothing to change. User content is never overwritten
without `--force`; `.claude/settings.json` is merged, keeping every key and hook.
`--remove` takes out exactly ccstate's hooks and deletes the files `init` created only
while they still hold what `init` wrote; the machine-local state dir is kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from ccstate import paths, store
from ccstate.errors import CcstateError
from ccstate.install import wiring

Action = Literal["create", "update", "delete", "skip"]


@dataclass(frozen=True)
class Step:
    path: Path
    action: Action
    reason: str
    content: str | None = None  # what to write for create/update
    preview: bool = False  # `init --dry-run` prints the content (it depends on the project)


def template_text(name: str) -> str:
    folder = resources.files("ccstate").joinpath("templates")
    return folder.joinpath(name).read_text(encoding="utf-8")


def plan_init(project: Path, environ: Mapping[str, str], *, force: bool = False) -> list[Step]:
    """What `init` would do in `project`, without touching the disk."""
    return [
        _plan_config(project, force),
        _plan_settings(project, environ),
        _plan_state_dir(project, environ),
        _plan_decisions(project),
        *_plan_pointer_layout(project),
    ]


def plan_remove(project: Path, environ: Mapping[str, str]) -> list[Step]:
    """What `init --remove` would do: ccstate's hooks out, untouched scaffolding deleted."""
    steps = [
        _plan_unwire(paths.project_settings_path(project)),
        _plan_unwire(paths.local_settings_path(project)),
    ]
    from ccstate.scaffold import detect

    topic_dir, _limits = _layout_settings(project)
    index, topic = project / "CLAUDE.md", project / topic_dir / "workflow.md"
    index_text, topic_text = _layout_texts(project, topic_dir, detect.detect(project).commands)
    legacy_index, legacy_topic = _legacy_texts(project, topic_dir)
    written = [
        (paths.config_path(project), (template_text("ccstate.yaml"),), "your settings"),
        (paths.decisions_path(project), (template_text(paths.DECISIONS_NAME),), "decisions"),
        (index, (index_text, legacy_index), "your instructions"),
        (topic, (topic_text, legacy_topic), "your notes"),
    ]
    steps += [_plan_unscaffold(path, text, what) for path, text, what in written]
    state = paths.state_dir(project, environ)
    if state.exists():
        steps.append(
            Step(state, "skip", "kept: handoffs, ledger and logs of this machine (git ignores it)")
        )
    return [step for step in steps if step.action != "skip" or step.path.exists()]


def statusline_target(project: Path, environ: Mapping[str, str], *, user: bool) -> Path:
    """The settings file `init --statusline` writes: the project's, or with --user the user's."""
    if user:
        return paths.user_claude_dir(environ) / "settings.json"
    return paths.project_settings_path(project)


def plan_statusline(
    project: Path,
    environ: Mapping[str, str],
    *,
    user: bool = False,
    refresh: int = wiring.STATUSLINE_REFRESH_S,
) -> tuple[list[Step], list[str]]:
    """`init --statusline`: ccstate's `statusLine` where none is set (docs/MOMENTS.md), and
    the lines to print. Someone else's status line, in the target file or in a scope that
    would win over it (the project's local settings, the user's), is never replaced: the
    lines then say what to add to it."""
    path = statusline_target(project, environ, user=user)
    rerun = "ccstate init --statusline" + (" --user" if user else "")
    current = _read_settings(path, rerun)
    others = [] if user else [paths.local_settings_path(project)]
    if not user:
        others.append(paths.user_claude_dir(environ) / "settings.json")
    for other in others:
        theirs = _read_settings(other, rerun).get("statusLine")
        if theirs is not None and not wiring.is_our_statusline(theirs):
            return _foreign_statusline(other, theirs, path)
    wanted, foreign = wiring.with_statusline(current, refresh)
    if foreign is not None:
        return _foreign_statusline(path, current.get("statusLine"), path)
    if wanted == current:
        return [Step(path, "skip", "ccstate's status line is set (up to date)")], []
    why = f"statusLine: {wiring.STATUSLINE_SCRIPT}, refreshInterval {refresh} s"
    content = json.dumps(wanted, indent=2) + "\n"
    return [Step(path, "update" if path.exists() else "create", why, content)], []


def _foreign_statusline(where: Path, value: object, target: Path) -> tuple[list[Step], list[str]]:
    command = value.get("command") if isinstance(value, dict) else None
    shown = command if isinstance(command, str) else json.dumps(value)
    why = f"not changed: {where} sets a status line already ({shown})"
    lines = [
        f"ccstate's status line is not set: {where} has its own statusLine.",
        f"To add ccstate's part to it, {wiring.statusline_addition(shown)[0]}",
        *wiring.statusline_addition(shown)[1:],
    ]
    return [Step(target, "skip", why)], lines


def plan_remove_statusline(
    project: Path, environ: Mapping[str, str], *, user: bool = False
) -> list[Step]:
    """`init --remove --statusline`: ccstate's status line out of the project's (and its local)
    settings, or with --user the user's; someone else's stays."""
    if user:
        targets = [statusline_target(project, environ, user=True)]
    else:
        targets = [paths.project_settings_path(project), paths.local_settings_path(project)]
    steps = []
    for path in targets:
        current = _read_settings(path, "ccstate init --remove --statusline")
        steps.append(_unwire_step(path, current, wiring.without_statusline(current), "status line"))
    return [step for step in steps if step.action != "skip" or step.path.exists()]


def apply_plan(steps: list[Step], project: Path) -> None:
    for step in steps:
        if step.action == "delete":
            step.path.unlink(missing_ok=True)
            _remove_empty_parents(step.path.parent, stop=project)
        elif step.action == "skip" or step.content is None:
            continue
        elif step.path.name == ".gitignore":
            store.ensure_state_dir(step.path.parent)
        else:
            store.atomic_write_text(step.path, step.content)


def _remove_empty_parents(folder: Path, stop: Path) -> None:
    """`.claude/`, `docs/claude/` and `docs/` go too once `--remove` has emptied them."""
    while folder != stop and stop in folder.parents and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _plan_config(project: Path, force: bool) -> Step:
    path = paths.config_path(project)
    content = template_text("ccstate.yaml")
    if not path.exists():
        return Step(path, "create", "project settings with the defaults", content)
    if force and path.read_text(encoding="utf-8") != content:
        return Step(path, "update", "--force: replaced with the template", content)
    return Step(path, "skip", "exists (kept as is; --force replaces it)")


def _read_settings(path: Path, rerun: str) -> dict[str, object]:
    try:
        return wiring.read_settings(path)
    except ValueError as exc:
        msg = f"{exc}; fix the JSON or move the file aside, then rerun '{rerun}'"
        raise CcstateError(msg) from exc


def _plan_settings(project: Path, environ: Mapping[str, str]) -> Step:
    path = paths.project_settings_path(project)
    current = _read_settings(path, "ccstate init")
    enabled_in = wiring.plugin_enabled(project, environ)
    if enabled_in:
        wanted = wiring.remove_ours(current)
        why = f"the ccstate plugin is enabled in {enabled_in}: hooks come from the plugin"
    else:
        wanted = wiring.merge_settings(current)
        why = "hooks for " + ", ".join(e for e, _m, _t in wiring.HOOK_SPECS)
        why += f", run as `{wiring.HOOK_SCRIPT}` from PATH"
    if wanted == current:
        return Step(path, "skip", f"up to date ({why})")
    content = json.dumps(wanted, indent=2) + "\n"
    return Step(path, "update" if path.exists() else "create", why, content)


def _plan_unwire(path: Path) -> Step:
    current = _read_settings(path, "ccstate init --remove")
    wanted = wiring.without_statusline(wiring.remove_ours(current))
    return _unwire_step(path, current, wanted, "hooks")


def _unwire_step(
    path: Path, current: dict[str, object], wanted: dict[str, object], what: str
) -> Step:
    """The step taking ccstate's hooks and/or status line out of one settings file."""
    if wanted == current:
        return Step(path, "skip", f"no ccstate {what} in it")
    removed = [
        name
        for name, gone in (
            ("hooks", bool(wiring.wired_events(current)) and not wiring.wired_events(wanted)),
            ("status line", "statusLine" in current and "statusLine" not in wanted),
        )
        if gone
    ]
    parts = " and ".join(removed) or what
    if not wanted:
        return Step(path, "delete", f"it held only ccstate's {parts}")
    content = json.dumps(wanted, indent=2) + "\n"
    return Step(
        path, "update", f"ccstate's {parts} removed; every other key and hook kept", content
    )


def _plan_unscaffold(path: Path, written: tuple[str, ...], what: str) -> Step:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return Step(path, "skip", "absent")
    if text in [w for w in written if w]:
        return Step(path, "delete", "unchanged since 'ccstate init' wrote it")
    return Step(path, "skip", f"kept: it holds {what} (changed since 'ccstate init')")


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
    """CLAUDE.md's first lines and `workflow.md` from what the project's files say (#39);
    never replaces the user's files, and writes no file it would leave empty.

    An existing CLAUDE.md is the user's, kept even with --force; when it is over the lint
    budget the step says to run `ccstate split`. The empty scaffold an older ccstate wrote
    (untouched since) is filled in. A source that does not parse is a step of its own.
    """
    from ccstate.scaffold import detect

    topic_dir, limits = _layout_settings(project)
    index, topic = project / "CLAUDE.md", project / topic_dir / "workflow.md"
    if not index.exists() and (project / ".claude" / "CLAUDE.md").exists():
        index = project / ".claude" / "CLAUDE.md"  # Claude Code loads either as the project's
    found = detect.detect(project)
    steps = [Step(project / s.source, "skip", s.reason) for s in found.skipped]
    index_text, topic_text = _layout_texts(project, topic_dir, found.commands)
    legacy_index, legacy_topic = _legacy_texts(project, topic_dir)
    steps.append(_plan_index(index, index_text, legacy_index, limits, topic_dir))
    if _read(topic) == legacy_topic:
        why = "the empty template an older ccstate wrote"
        if topic_text:
            why += ", filled with the commands found"
            steps.append(Step(topic, "update", why, topic_text, preview=True))
        else:
            steps.append(Step(topic, "delete", f"{why}; no command found to put in it"))
    elif topic.exists():
        steps.append(Step(topic, "skip", "exists (kept as is)"))
    elif not topic_text:
        steps.append(Step(topic, "skip", "not created: no command found beyond CLAUDE.md's"))
    elif index.exists() and _read(index) != legacy_index:
        why = f"not created: your CLAUDE.md is kept; 'ccstate split' fills {topic_dir}/"
        steps.append(Step(topic, "skip", why))
    else:
        why = "the commands found; CLAUDE.md points here"
        steps.append(Step(topic, "create", why, topic_text, preview=True))
    return steps


def _plan_index(
    index: Path, text: str, legacy: str, limits: tuple[int, int], topic_dir: str
) -> Step:
    rel = index.name if index.parent.name != ".claude" else ".claude/CLAUDE.md"
    if index.exists() and _read(index) == legacy:
        if text:
            why = "the empty template an older ccstate wrote, filled"
            return Step(index, "update", why, text, preview=True)
        return Step(index, "delete", "the empty template an older ccstate wrote; nothing to say")
    if index.exists():
        return Step(index, "skip", _existing_index(index, rel, limits, topic_dir))
    if not text:
        why = "not created: no README paragraph and no test command to put in it"
        return Step(index, "skip", why)
    return Step(index, "create", "what the project is and how to test it", text, preview=True)


def _layout_texts(project: Path, topic_dir: str, commands: list[Any]) -> tuple[str, str]:
    """(CLAUDE.md, workflow.md) as init writes them now; '' for a file it would not write."""
    from ccstate.scaffold import readme, render

    topic = f"{topic_dir}/workflow.md"
    more = render.holds_more(commands)
    index = render.index_text(
        project.name, readme.first_paragraph(project), commands, topic if more else ""
    )
    return index, render.topic_text(commands) if more else ""


def _legacy_texts(project: Path, topic_dir: str) -> tuple[str, str]:
    """The empty scaffold ccstate wrote before #39, as it was written for this project."""
    index = template_text("claude-index.md").replace("{{project}}", project.name)
    return index.replace("{{topic_dir}}", topic_dir), template_text("claude-topic.md")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _layout_settings(project: Path) -> tuple[str, tuple[int, int]]:
    """(lint.topic_dir, (root line budget, root token budget)); defaults on a broken config."""
    from ccstate.config import Config, load_config
    from ccstate.errors import ConfigError

    try:
        settings = load_config(project)
    except ConfigError:  # init still wires a project with a broken config; doctor reports it
        settings = Config()
    topic_dir = str(settings.get("lint.topic_dir")).strip("/") or "docs/claude"
    limits = (int(settings.get("lint.root_max_lines")), int(settings.get("lint.root_max_tokens")))
    return topic_dir, limits


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
