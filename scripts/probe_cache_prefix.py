#!/usr/bin/env python3
"""What changes the cached prefix at a new user turn in the real Claude Code CLI?

    python scripts/probe_cache_prefix.py            # every scenario; a Markdown table
    python scripts/probe_cache_prefix.py -s effort  # one scenario

Each scenario plays a short session in the pinned `claude` (2.1.328) against the fake API
with the prompt-cache simulator (tests/e2e), several user turns in one process
(`--input-format stream-json`) or across `--resume`, with something done between two turns.
For the first request of each later turn it compares the request with the previous one of
the same session (tests/e2e/cache_audit.py): did it keep extending what that one had sent and
cached, or did it change an earlier block (which), and which request parameters changed
(model, thinking, effort). docs/REPORT.md quotes the table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests" / "e2e"), str(REPO / "src"), str(REPO / "bench")]

import cache_audit  # noqa: E402
import claude_runner  # noqa: E402
from cache_sim import CacheSim  # noqa: E402
from fake_api import FakeAnthropic, Reply, Step, Thinking, ToolCall, text, tool_use  # noqa: E402

PARAMS = ("model", "thinking", "output_config", "context_management", "max_tokens")


@dataclass
class Turn:
    prompt: str
    steps: Callable[[Path], list[Any]] = lambda _p: [text("ok")]
    before: Callable[[Path], None] | None = None
    resume: bool = False  # a new process: --resume the session
    plain_run: bool = False  # `claude -p PROMPT --resume` (slash commands such as /compact)


@dataclass
class Scenario:
    name: str
    what: str
    turns: list[Turn]
    plugin: Callable[[Path], Path | None] = lambda _w: None
    notes: list[str] = field(default_factory=list)


def _read(project: Path) -> list[Any]:
    return [tool_use("Read", {"file_path": str(project / "app.py")}), text("read it")]


def _thinking(project: Path) -> list[Any]:
    call = ToolCall("Read", {"file_path": str(project / "app.py")})
    return [Step(Reply((Thinking("Read it first."), call))), Step(Reply((Thinking("Done."), "ok")))]


def _background(project: Path) -> list[Any]:
    bash = {"command": "sleep 1; echo finished", "description": "bg", "run_in_background": True}
    return [tool_use("Bash", bash), text("started")]


def _hook_plugin(work: Path) -> Path:
    plugin = work / "ups-plugin"
    script = plugin / "context.sh"
    claude_runner.write_plugin(
        plugin,
        "changing-context",
        {"UserPromptSubmit": [claude_runner.command_hook(f"sh {script}")]},
    )
    output = (
        '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"at %s"}}'
    )
    script.write_text(f"printf '{output}' \"$(date +%s%N)\"\n")
    return plugin


def _stamped_ccstate(work: Path) -> Path:
    return cache_audit.stamped_capsule_copy(work / "ccstate-copy")


def _write(name: str, body: str) -> Callable[[Path], None]:
    return lambda project: (project / name).write_text(body)


SCENARIOS = [
    Scenario("plain", "nothing between the turns", [Turn("read app.py", _read), Turn("go on")]),
    Scenario(
        "claude-md",
        "CLAUDE.md edited between the turns",
        [Turn("read app.py", _read), Turn("go on", before=_write("CLAUDE.md", "# New rules\n"))],
    ),
    Scenario(
        "file-changed",
        "a file the model read changed on disk between the turns",
        [Turn("read app.py", _read), Turn("go on", before=_write("app.py", "x = 2\n"))],
    ),
    Scenario("ultrathink", "the prompt says ultrathink", [Turn("read", _read), Turn("ultrathink")]),
    Scenario(
        "effort",
        "/effort high between the turns",
        [Turn("read app.py", _read), Turn("/effort high", lambda _p: []), Turn("go on")],
    ),
    Scenario(
        "model",
        "/model claude-sonnet-4-5 between the turns",
        [Turn("read", _read), Turn("/model claude-sonnet-4-5", lambda _p: []), Turn("go on")],
    ),
    Scenario("thinking", "replies carry thinking blocks", [Turn("read", _thinking), Turn("go on")]),
    Scenario(
        "background",
        "a background Bash command finished between the turns",
        [Turn("start it", _background), Turn("go on", before=lambda _p: time.sleep(3))],
    ),
    Scenario(
        "hook-context",
        "a UserPromptSubmit hook adds context that changes every turn (another plugin)",
        [Turn("read app.py", _read), Turn("go on")],
        plugin=_hook_plugin,
    ),
    Scenario(
        "resume", "the session resumed (--resume)", [Turn("read", _read), Turn("go", resume=True)]
    ),
    Scenario(
        "resume-capsule",
        "resumed with a SessionStart context that changed (ccstate copy with a timestamp)",
        [Turn("read app.py", _read), Turn("go on", resume=True)],
        plugin=_stamped_ccstate,
    ),
    Scenario(
        "compact",
        "/compact between the turns",
        [
            Turn("read app.py", _read),
            Turn("/compact", lambda _p: [], plain_run=True),
            Turn("go on", resume=True),
        ],
    ),
]


def play(scenario: Scenario, claude_bin: Path, work: Path) -> tuple[list[Any], list[int]]:
    """The scenario's agent requests, and the index of the first request of each turn."""
    home, project = work / "home", work / "project"
    home.mkdir(parents=True)
    project.mkdir()
    (project / "app.py").write_text("".join(f"x{i} = {i}\n" for i in range(300)))
    (project / "CLAUDE.md").write_text("# Rules\n\nRun pytest.\n")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", "init", "-q"], cwd=project, env=env, check=True)
    plugin = scenario.plugin(work)
    if plugin is not None and (plugin / "src" / "ccstate").is_dir():
        claude_runner.provision_plugin_runtime(home, plugin)
    starts: list[int] = []
    session: str | None = None
    with FakeAnthropic(usage=CacheSim().usage) as api:
        kw: dict[str, Any] = {"cwd": project, "home": home, "api_url": api.url}
        kw["plugin_dir"] = plugin
        for group in _processes(scenario.turns):
            resume = session if group[0].resume or group[0].plain_run else None
            for turn in group:
                api.extend(turn.steps(project))
            if group[0].plain_run:
                run = claude_runner.run_claude(claude_bin, group[0].prompt, resume=resume, **kw)
                if run.proc.returncode != 0:
                    raise SystemExit(f"{scenario.name}: {run.describe()}")
                continue

            def between(index: int, group: list[Turn] = group) -> None:
                if group[index].before is not None:
                    group[index].before(project)  # type: ignore[misc]
                starts.append(len(api.agent_requests()))

            results = claude_runner.run_claude_turns(
                claude_bin, [t.prompt for t in group], resume=resume, between=between, **kw
            )
            session = session or str(results[0]["session_id"])
        return api.agent_requests(), starts


def _processes(turns: list[Turn]) -> list[list[Turn]]:
    """Turns grouped by process: a resume or a plain run starts a new one."""
    groups: list[list[Turn]] = []
    for turn in turns:
        if not groups or turn.resume or turn.plain_run or groups[-1][-1].plain_run:
            groups.append([])
        groups[-1].append(turn)
    return groups


def judge(bodies: list[Any], starts: list[int]) -> list[str]:
    """For the first request of each turn after the first: what changed before it."""
    breaks = {b.request: b for b in cache_audit.prefix_breaks(bodies)}
    out = []
    for index in sorted(set(starts[1:]) - {starts[0]}):
        if index >= len(bodies):
            continue  # a last turn without a model call
        previous = _previous(bodies, index)
        changed = [
            f"{k}: {json.dumps(bodies[previous].get(k))} -> {json.dumps(bodies[index].get(k))}"
            for k in PARAMS
            if previous is not None and bodies[previous].get(k) != bodies[index].get(k)
        ]
        found = breaks.get(index)
        if found is None:
            prefix = "kept (only appended)"
        else:
            where = found.before.split(":", 1)[0]
            prefix = f"changed at block {found.block} ({where}: {_gist(found.before)})"
        out.append(f"{prefix}; params {', '.join(changed) if changed else 'unchanged'}")
    return out


def _previous(bodies: list[Any], index: int) -> int | None:
    key = cache_audit.context_of(bodies[index])
    return next(
        (j for j in range(index - 1, -1, -1) if cache_audit.context_of(bodies[j]) == key), None
    )


def _gist(block: str) -> str:
    try:
        data = json.loads(block.split(":", 1)[1])
    except (ValueError, IndexError):
        return block[:60]
    text_ = data.get("text") if isinstance(data, dict) else None
    return json.dumps((text_ or json.dumps(data))[:70])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-s", "--scenario", action="append", choices=[s.name for s in SCENARIOS])
    args = parser.parse_args(argv)
    import ab  # bench/ab.py: the pinned CLI, installed on first use

    claude_bin = ab.find_claude()
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    print(f"claude {claude_runner.CLAUDE_VERSION}, fake API with the cache simulator\n")
    print("| scenario | between the turns | the next turn's first request |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="ccstate-probe-") as work:
        for scenario in chosen:
            bodies, starts = play(scenario, claude_bin, Path(work) / scenario.name)
            for verdict in judge(bodies, starts):
                print(f"| {scenario.name} | {scenario.what} | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
