"""The `run:` steps of GitHub Actions workflows, per file and job (pure but for PyYAML).

What CI runs on a push or a pull request is what the project considers its checks: those
steps' test, lint, format, build, docs and set-up commands are kept. Workflows run only on
other events (issues, a schedule, a release) and steps that do other work (`gh`, `git`,
`echo`, deploys) say nothing about how to check a change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ccstate.scaffold.found import Command, Skipped, clip, kind_of

MAX_STEPS = 8  # per workflow file
CHANGE_EVENTS = {"push", "pull_request", "pull_request_target", "merge_group"}
KEPT_KINDS = {"test", "lint", "format", "build", "docs", "install"}
_NOT_A_CHECK = (
    "gh ",
    "git ",
    "echo ",
    "cd ",
    "ls",
    "cat ",
    "curl ",
    "wget ",
    "export ",
    "sudo ",
    "apt-get ",
    "apt ",
    "brew ",
    "choco ",
    "printf ",
    "find ",
    "mkdir ",
    "rm ",
    "cp ",
    "mv ",
)
# A step whose lines hold shell control flow is a script to read, not a command to type.
_SCRIPT = re.compile(r"^(?:if|then|else|elif|fi|for|while|until|do|done|case|esac|set)\b")


def workflow(text: str, source: str) -> tuple[list[Command], Skipped | None]:
    """Each distinct `run:` line of a workflow, with its job and step name."""
    try:
        import yaml
    except ModuleNotFoundError:
        return [], Skipped(source, "not read (PyYAML is not installed here)")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        first = (str(exc).strip().splitlines() or ["YAML error"])[0]
        return [], Skipped(source, f"not read ({first}); fix it and rerun")
    jobs = data.get("jobs") if isinstance(data, Mapping) else None
    if not isinstance(jobs, Mapping) or not _on_change(data):
        return [], None
    found: dict[str, Command] = {}
    for job, spec in jobs.items():
        for step in _steps(spec):
            name = str(step.get("name") or "")
            lines = _run_lines(step.get("run"))
            if any(_SCRIPT.match(line) for line in lines):
                continue
            for line in lines:
                kind = kind_of(line, name if len(lines) == 1 else "")
                if kind in KEPT_KINDS and not line.startswith(_NOT_A_CHECK) and "${{" not in line:
                    where = f"{source}, job {job}"
                    found.setdefault(line, Command(kind, line, where, clip(name, 60)))
    return list(found.values())[:MAX_STEPS], None


def _on_change(data: Mapping[Any, Any]) -> bool:
    """Whether the workflow runs on a push or a pull request (YAML 1.1 reads `on:` as True)."""
    on = data.get("on", data.get(True))
    events = {on} if isinstance(on, str) else set(on) if isinstance(on, (list, Mapping)) else set()
    return bool(events & CHANGE_EVENTS)


def _steps(spec: Any) -> list[Mapping[str, Any]]:
    steps = spec.get("steps") if isinstance(spec, Mapping) else None
    return [s for s in steps if isinstance(s, Mapping)] if isinstance(steps, list) else []


def _run_lines(run: Any) -> list[str]:
    """A step's commands, one per line; continuation lines joined; `${{ }}` expressions kept."""
    if not isinstance(run, str):
        return []
    lines, current = [], ""
    for raw in run.splitlines():
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        current = f"{current} {text}".strip() if current else text
        if current.endswith("\\"):
            current = current[:-1].rstrip()
            continue
        lines.append(clip(current, 120))
        current = ""
    if current:
        lines.append(clip(current, 120))
    return lines
