#!/usr/bin/env python3
"""What the real Claude Code CLI does around a compaction, checked per pinned version (#26).

    python scripts/probe_compaction.py                  # both pinned versions, every probe
    python scripts/probe_compaction.py --version 2.1.332 --probe thresholds

`hooks`: a throwaway plugin whose hooks (SessionStart, UserPromptSubmit, PreCompact,
PostCompact, PostToolUse) log their stdin and print a marker; a manual `/compact <args>` and an
auto-compaction against the fake API (tests/e2e). It prints the event order, the PreCompact and
PostCompact payload fields, where PreCompact's stdout lands in the summariser's request, what
PostCompact's output does, and which later hook's context reaches the first request after the
compaction. `thresholds`: a session whose reported context jumps from 5,000 tokens to N, under
each setting; whether Claude Code compacted before its next request tells where the threshold is.
docs/COMPACTION.md quotes the output.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests" / "e2e"), str(REPO / "src")]

import claude_runner  # noqa: E402
from fake_api import FakeAnthropic, find_text, last_user_text, text, tool_use  # noqa: E402

from ccstate.install.wiring import TESTED_CLAUDE  # noqa: E402

EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "PostCompact", "PostToolUse")
SUMMARY = "<analysis>probe analysis</analysis>\n<summary>PROBE-SUMMARY</summary>"
# The hook: log the payload, print this event's marker (a counter tells runs of one event apart).
DUMP = r"""
import json, os, sys
event = sys.argv[1]
raw = sys.stdin.read()
log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "events.jsonl")
with open(log, "a") as fh:
    fh.write(json.dumps({"event": event, "payload": json.loads(raw or "{}")}) + "\n")
n = sum(1 for _ in open(log))
mark = f"MARK-{event}-{n}"
if event == "PreCompact":
    print(f"STEER-{n} line one\nSTEER-{n} line two")
elif event == "PostCompact":
    print(os.environ.get("PROBE_POSTCOMPACT", "").replace("MARK", mark))
else:
    ctx = {"hookEventName": event, "additionalContext": mark}
    print(json.dumps({"hookSpecificOutput": ctx}))
"""
POSTCOMPACT_OUTPUTS = {
    "plain text": "MARK",
    "JSON additionalContext": json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PostCompact", "additionalContext": "MARK"}}
    ),
    "JSON systemMessage": json.dumps({"systemMessage": "MARK"}),
}


def claude_bin(version: str) -> Path:
    cache = Path(os.environ.get("CCSTATE_E2E_CACHE") or Path.home() / ".cache" / "ccstate-e2e")
    found = cache / f"claude-{version}" / "node_modules" / "@anthropic-ai" / "claude-code"
    path = found / "bin" / "claude.exe"
    if not path.is_file():
        raise SystemExit(f"{path} missing: run `bash scripts/test.sh tests/e2e -k harness` once")
    return path


class World:
    """A HOME, a git project and the probe plugin in a temp dir, and a fake API."""

    def __init__(self, work: Path, postcompact: str = "", summary: str = SUMMARY) -> None:
        self.work, self.home, self.project = work, work / "home", work / "project"
        self.home.mkdir(parents=True)
        self.project.mkdir()
        (self.project / "app.py").write_text("print('hi')\n")
        (self.project / "README.md").write_text("# readme\n")
        env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        subprocess.run(["git", "init", "-q"], cwd=self.project, env=env, check=True)
        (work / "dump.py").write_text(DUMP)
        hooks = {e: [claude_runner.command_hook(f"python3 {work / 'dump.py'} {e}")] for e in EVENTS}
        self.plugin = claude_runner.write_plugin(work / "plugin", "probe", hooks)
        self.env = {"PROBE_POSTCOMPACT": postcompact}
        self.api = FakeAnthropic(compaction=summary)

    def run(self, binary: Path, prompt: str, **kw: Any) -> claude_runner.ClaudeRun:
        kw.setdefault("env_extra", {})
        kw["env_extra"] = {**self.env, **kw["env_extra"]}
        return claude_runner.run_claude(
            binary, prompt, cwd=self.project, home=self.home, api_url=self.api.url,
            plugin_dir=self.plugin, **kw,
        )  # fmt: skip

    def events(self) -> list[dict[str, Any]]:
        log = self.work / "events.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def requests(self) -> list[tuple[str, dict[str, Any]]]:
        kinds = ("agent", "compaction")
        return [(r.kind, r.body or {}) for r in self.api.all_requests() if r.kind in kinds]


def usage(tokens: int) -> dict[str, int]:
    return {"input_tokens": tokens, "output_tokens": 10}


def _order(events: list[dict[str, Any]]) -> str:
    names = []
    for e in events:
        p = e["payload"]
        sub = p.get("source") or p.get("trigger") or ""
        names.append(f"{e['event']}({sub})" if sub else e["event"])
    return " → ".join(names)


def _fields(events: list[dict[str, Any]], name: str) -> str:
    common = {"session_id", "transcript_path", "cwd", "hook_event_name", "prompt_id"}
    found = [e["payload"] for e in events if e["event"] == name]
    if not found:
        return "(did not fire)"
    keys = sorted(set(found[-1]) - common)
    return ", ".join(f"{k}={json.dumps(found[-1][k])[:70]}" for k in keys)


def _where(requests: list[tuple[str, dict[str, Any]]], needle: str) -> str:
    hits = [f"#{i} {kind}" for i, (kind, body) in enumerate(requests) if find_text(body, needle)]
    return ", ".join(hits) or "nowhere"


def probe_manual(binary: Path, work: Path, postcompact: str) -> dict[str, str]:
    """`/compact <args>` in a resumed session, then a resumed turn with a tool call."""
    world = World(work, postcompact)
    with world.api:
        world.api.set_script([tool_use("Read", {"file_path": str(world.project / "app.py")})])
        first = world.run(binary, "work one").result
        assert first is not None, "first run failed"
        sid = first["session_id"]
        world.run(binary, "/compact USER-ARGS-42", resume=sid)
        world.api.set_script(
            [tool_use("Read", {"file_path": str(world.project / "README.md")}), text("done")]
        )
        world.run(binary, "after compact", resume=sid)
        events, requests = world.events(), world.requests()
    compaction = next(body for kind, body in requests if kind == "compaction")
    tail = last_user_text(compaction)
    at = tail.find("Additional Instructions:")
    instruction = _instruction(compaction)
    marks = {e["event"]: n for n, e in enumerate(events, 1)}
    start, prompt = marks["SessionStart"], marks["UserPromptSubmit"]
    pc = [n for n, e in enumerate(events, 1) if e["event"] == "PostCompact"]
    steer = [n for n, e in enumerate(events, 1) if e["event"] == "PreCompact"]
    return {
        "order": _order(events),
        "PreCompact": _fields(events, "PreCompact"),
        "PostCompact": _fields(events, "PostCompact"),
        "instructions tail": json.dumps(tail[at : at + 120]) if at >= 0 else "(not found)",
        "instruction tokens (tiktoken, without the additional ones)": str(instruction),
        "PreCompact stdout after": _where(requests, f"STEER-{steer[0]} line two") if steer else "",
        "PostCompact output after": _where(requests, f"MARK-PostCompact-{pc[0]}") if pc else "",
        "SessionStart(resume) ctx": _where(requests, f"MARK-SessionStart-{start}"),
        "UserPromptSubmit ctx": _where(requests, f"MARK-UserPromptSubmit-{prompt}"),
        "requests": " ".join(f"#{i}:{kind}" for i, (kind, _b) in enumerate(requests)),
    }  # fmt: skip


def _instruction(body: dict[str, Any]) -> int:
    """Tokens of the summarisation instruction Claude Code appends as the last user message's
    last text block, without its "Additional Instructions:" part (report/compactions.py)."""
    from fake_api import COMPACTION_MARKER

    from ccstate.tokens import count_tokens

    texts = [
        str(b.get("text") or "")
        for m in body["messages"]
        for b in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}])
    ]
    block = next(t for t in reversed(texts) if COMPACTION_MARKER in t)
    head, _sep, rest = block.partition("Additional Instructions:")
    reminder = rest[rest.find("REMINDER:") :] if "REMINDER:" in rest else ""
    return int(count_tokens(head + reminder)[0])


def probe_auto(binary: Path, work: Path, postcompact: str) -> dict[str, str]:
    """Auto-compaction inside a turn (`--autocompact 100000`), a tool call after it, then a
    second user turn in the same process."""
    world = World(work, postcompact)
    app, readme = str(world.project / "app.py"), str(world.project / "README.md")
    with world.api:
        world.api.set_script(
            [
                tool_use("Read", {"file_path": app}, usage=usage(5_000)),
                tool_use("Read", {"file_path": readme}, usage=usage(30_000)),
                tool_use("Read", {"file_path": app}, usage=usage(75_000)),
                tool_use("Read", {"file_path": readme}),
                text("turn one done"),
                text("turn two done"),
            ]
        )
        claude_runner.run_claude_turns(
            binary, ["read files", "second turn"], cwd=world.project, home=world.home,
            api_url=world.api.url, plugin_dir=world.plugin,
            env_extra={**world.env, "CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"},
        )  # fmt: skip
        events, requests = world.events(), world.requests()
    numbered = list(enumerate(events, 1))
    post = next(n for n, e in numbered if e["event"] == "PostCompact")
    later_tool = next(n for n, e in numbered if e["event"] == "PostToolUse" and n > post)
    later_prompt = next(n for n, e in numbered if e["event"] == "UserPromptSubmit" and n > post)
    compact_start = next(n for n, e in numbered if e["event"] == "SessionStart" and n > 1)
    steer = next(n for n, e in numbered if e["event"] == "PreCompact")
    return {
        "order": _order(events),
        "PreCompact": _fields(events, "PreCompact"),
        "PostCompact": _fields(events, "PostCompact"),
        "PreCompact stdout after": _where(requests, f"STEER-{steer} line two"),
        "PostCompact output after": _where(requests, f"MARK-PostCompact-{post}"),
        "SessionStart(compact) ctx": _where(requests, f"MARK-SessionStart-{compact_start}"),
        "PostToolUse ctx after": _where(requests, f"MARK-PostToolUse-{later_tool}"),
        "UserPromptSubmit ctx after": _where(requests, f"MARK-UserPromptSubmit-{later_prompt}"),
        "requests": " ".join(f"#{i}:{kind}" for i, (kind, _b) in enumerate(requests)),
    }


# --------------------------------------------------------------------------- thresholds

THRESHOLD_CASES: list[tuple[str, dict[str, str], list[str], tuple[int, int]]] = [
    # (setting, env, extra args, (a context just under, one just over the expected threshold))
    ("nothing set (claude-opus-5-5: 1M window)", {}, [], (950_000, 975_000)),
    ("--autocompact 100000", {}, ["--autocompact", "100000"], (60_000, 70_000)),
    ("CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000", {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"},
     [], (60_000, 70_000)),
    ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50", {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}, [],
     (480_000, 500_000)),
    ("CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000 + CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50",
     {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}, [],
     (35_000, 45_000)),
    ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=95 (above the default)",
     {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "95"}, [],
     (60_000, 70_000)),
    ("settings autoCompactWindow: 100000", {"__settings__": '{"autoCompactWindow": 100000}'}, [],
     (60_000, 70_000)),
    ("CLAUDE_CODE_MAX_CONTEXT_TOKENS=100000", {"CLAUDE_CODE_MAX_CONTEXT_TOKENS": "100000"}, [],
     (60_000, 70_000)),
    ("DISABLE_AUTO_COMPACT=1 + window 100000",
     {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000", "DISABLE_AUTO_COMPACT": "1"}, [],
     (60_000, 70_000)),
]  # fmt: skip


def compacted_at(
    binary: Path, work: Path, tokens: int, env: dict[str, str], args: list[str]
) -> str:
    """'compacted' when Claude Code compacted after a call reporting `tokens` of context."""
    world = World(work)
    settings = env.pop("__settings__", None)
    if settings:
        (world.home / ".claude").mkdir(parents=True, exist_ok=True)
        (world.home / ".claude" / "settings.json").write_text(settings)
    app = str(world.project / "app.py")
    with world.api:
        world.api.set_script(
            [
                tool_use("Read", {"file_path": app}, usage=usage(5_000)),
                tool_use("Read", {"file_path": app}, usage=usage(tokens)),
                text("done", usage=usage(tokens + 500)),
            ]
        )
        world.run(binary, "read", env_extra=env, extra_args=args)
        kinds = [kind for kind, _b in world.requests()]
    return "compacted" if "compaction" in kinds else "no"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="append", choices=TESTED_CLAUDE)
    parser.add_argument("--probe", action="append", choices=("hooks", "thresholds"))
    args = parser.parse_args(argv)
    versions = args.version or list(TESTED_CLAUDE)
    probes = args.probe or ["hooks", "thresholds"]
    with tempfile.TemporaryDirectory(prefix="ccstate-compaction-probe-") as tmp:
        work = Path(tmp)
        for version in versions:
            binary = claude_bin(version)
            print(f"\n## claude {version}\n")
            if "hooks" in probes:
                for k, (label, output) in enumerate(POSTCOMPACT_OUTPUTS.items()):
                    for mode, fn in (("manual", probe_manual), ("auto", probe_auto)):
                        found = fn(binary, work / f"{version}-{mode}-{k}", output)
                        print(f"### {mode} compaction, PostCompact prints {label}\n")
                        for key, value in found.items():
                            print(f"- {key}: {value}")
                        print()
            if "thresholds" in probes:
                print("| setting | context after the jump | compacted? |")
                print("|---|---:|---|")
                for n, (label, env, extra, (under, over)) in enumerate(THRESHOLD_CASES):
                    for tokens in (under, over):
                        folder = work / f"{version}-t{n}-{tokens}"
                        verdict = compacted_at(binary, folder, tokens, dict(env), extra)
                        print(f"| {label} | {tokens:,} | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
