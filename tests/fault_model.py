"""Fault injection for the read ledger (issue #12): a model-based checker.

`World` drives the real hook entry points (`python -m ccstate.hooks`, or the plugin launcher
`hooks/run.py`) as Claude Code would, through a sequence of steps: Reads (any window, main
thread or a subagent), edits and external changes, compactions (with their PreCompact and
SessionStart hooks and the transcript's `compact_boundary`), microcompactions (a transcript
record, no hook), resumes (a new Claude Code process), idle pauses; and faults on the hooks:
killed mid-run, the state dir unusable, the ledger's lock held past its timeout, the ledger
corrupted, the plugin venv broken, compaction hooks that never run.

The checker is independent of ccstate's state: from the payloads and hook outputs alone it keeps,
per context, the Reads whose results the context still holds (cleared by every compaction,
microcompaction, idle pause and resume, whatever the hooks did), and checks every notice,
omission and diff against them and the file as it is: a claim that the context holds lines it
does not hold, or holds them with other text, is a false notice.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import Any

from ccstate.compaction.steer import HEADER as STEER_HEADER
from helpers import SRC, plugin_with_venv_python

SID = "fa017000-0000-4000-8000-000000000012"
NOTICE = "[ccstate: not file content] "
_RANGE = re.compile(r" lines (\d+)-(\d+) of \d+: (unchanged|changed) since")
_SHAS = re.compile(r"\(sha256 ([0-9a-f]{8}) -> ([0-9a-f]{8})\)")
_OMITTED = re.compile(r"lines (\d+)-(\d+)")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
FILES = ("a.py", "b.py")
AGENTS = (None, None, "a0000000000000001")  # the main thread twice as often
FAULTS = ("none", "kill", "unwritable", "corrupt", "lock")
FAULT_WEIGHTS = [80, 7, 7, 4, 2]
WINDOWS = ((0, 0), (0, 0), (0, 0), (0, 25), (16, 20), (5, 60))  # (offset, limit); 0: none
CHANGES = ("replace", "insert", "delete", "rewrite")


@dataclass
class Delivery:
    path: str
    start: int
    lines: list[str]

    @property
    def end(self) -> int:
        return self.start + len(self.lines) - 1

    @property
    def sha8(self) -> str:
        return sha256("\n".join(self.lines).encode()).hexdigest()[:8]


@dataclass
class Figures:
    sequences: int = 0
    steps: int = 0
    reads: int = 0
    full: int = 0
    notices: int = 0  # identical + diff + unseen answers checked
    faults: dict[str, int] = field(default_factory=dict)
    epochs: dict[str, int] = field(default_factory=dict)
    false_notices: list[str] = field(default_factory=list)
    bad_exits: list[str] = field(default_factory=list)
    max_hook_s: float = 0.0

    def add(self, other: Figures) -> None:
        for name in ("sequences", "steps", "reads", "full", "notices"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in ((self.faults, other.faults), (self.epochs, other.epochs)):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        self.false_notices += other.false_notices
        self.bad_exits += other.bad_exits
        self.max_hook_s = max(self.max_hook_s, other.max_hook_s)


def _line(rng_value: int, n: int, tag: str) -> str:
    return f"def {tag}_{n:03d}(value={rng_value}):  # a line long enough to be worth a notice"


class World:
    """One Claude Code session in a fresh project, driven step by step."""

    def __init__(self, root: Path, *, launcher: bool = False) -> None:
        self.root = root
        self.project = root / "project"
        (self.project / ".git").mkdir(parents=True)
        self.state = self.project / ".ccstate"
        self.transcript = root / f"{SID}.jsonl"
        self.transcript.write_text("")
        self.files: dict[str, list[str]] = {}
        self.held: dict[str | None, list[Delivery]] = {agent: [] for agent in set(AGENTS)}
        self.figures = Figures(sequences=1)
        self.pid = 1000
        self.tool_no = 0
        self.launcher = launcher
        self.env = {**os.environ, "PYTHONPATH": str(SRC), "CLAUDE_PROJECT_DIR": str(self.project)}
        for name in list(self.env):
            if name.startswith("CCSTATE_"):
                del self.env[name]
        if launcher:
            self._broken_venv()
        for i, name in enumerate(FILES):
            self.write(name, [_line(i, n, name[0]) for n in range(1, 40 + 10 * i)])

    # -- the plugin launcher with a venv marked ready whose interpreter cannot start

    def _broken_venv(self) -> None:
        script = "#!/bin/sh\necho 'Fatal Python error: broken venv' >&2\nexit 1\n"
        _plugin, env = plugin_with_venv_python(self.root, script)
        self.env.update(CLAUDE_PLUGIN_ROOT=env["CLAUDE_PLUGIN_ROOT"])
        self.env.update(CLAUDE_PLUGIN_DATA=env["CLAUDE_PLUGIN_DATA"])
        del self.env["PYTHONPATH"]

    # -- the files

    def path(self, name: str) -> str:
        return str(self.project / name)

    def write(self, name: str, lines: list[str]) -> None:
        self.files[name] = list(lines)
        (self.project / name).write_text("\n".join(lines))

    def change(self, name: str, at: int, kind: str) -> None:
        """An edit or an external change (sed -i, a formatter, git checkout)."""
        self.figures.steps += 1
        lines = list(self.files[name])
        at = at % len(lines)
        if kind == "replace":
            lines[at] = lines[at].replace("value=", "value=1")
        elif kind == "insert":
            lines.insert(at, _line(at, 999, "new"))
        elif kind == "delete" and len(lines) > 5:
            del lines[at]
        else:  # rewrite: every line changes
            lines = [line + "  # reformatted" for line in lines]
        self.write(name, lines)

    # -- the transcript Claude Code writes

    def record(self, **fields: Any) -> None:
        with self.transcript.open("a") as fh:
            fh.write(json.dumps({"sessionId": SID, **fields}, separators=(",", ":")) + "\n")

    # -- hooks

    def hook(self, event: str, payload: dict[str, Any], fault: str = "none") -> str | None:
        """Run one hook as Claude Code does; its stdout when Claude Code would use it."""
        payload = {
            "session_id": SID,
            "transcript_path": str(self.transcript),
            "cwd": str(self.project),
            "hook_event_name": event,
            **payload,
        }
        hot = event == "PostToolUse"
        argv = [sys.executable, "-m", "ccstate.hooks", event]
        if self.launcher and not hot:
            argv = [sys.executable, str(self.root / "plugin" / "hooks" / "run.py"), event]
        env = {**self.env, "CLAUDE_PID": str(self.pid)}
        if fault != "none":
            self.figures.faults[fault] = self.figures.faults.get(fault, 0) + 1
        with self._fault(fault, payload.get("agent_id")):
            started = time.monotonic()
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=self.project,
            )
            if fault == "kill":
                assert proc.stdin is not None and proc.stdout is not None
                assert proc.stderr is not None
                proc.stdin.write(json.dumps(payload))
                proc.stdin.close()
                time.sleep(0.005 + (self.tool_no % 7) * 0.01)
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=60)
                out, err = proc.stdout.read(), proc.stderr.read()
                proc.stdout.close()
                proc.stderr.close()
            else:
                out, err = proc.communicate(json.dumps(payload), timeout=60)
            took = time.monotonic() - started
        self.figures.max_hook_s = max(self.figures.max_hook_s, took)
        if proc.returncode != 0:
            if fault != "kill":
                self.figures.bad_exits.append(f"{event}: exit {proc.returncode} {err[-300:]}")
            return None  # Claude Code ignores the output of a failed hook
        # PreCompact prints plain text, the block the summariser keeps (#26); others one JSON
        steer = event == "PreCompact" and out.startswith(STEER_HEADER)
        if err or (out and not steer and not (out.startswith("{") and out.count("\n") == 0)):
            self.figures.bad_exits.append(f"{event}: stray output {out[:200]!r} {err[-300:]!r}")
        return out or None

    def _fault(self, kind: str, agent: str | None) -> Any:
        """A context manager that injects `kind` around one hook run."""
        world = self

        class Fault:
            def __enter__(self) -> None:
                self.undo: list[Any] = []
                state, away = world.state, world.project / ".ccstate-away"
                if kind == "unwritable" and state.exists():
                    state.rename(away)
                    state.write_text("the state dir is not usable\n")
                    self.undo.append(lambda: (state.unlink(), away.rename(state)))
                elif kind == "corrupt":
                    folder = state / "ledger" / SID
                    for ledger in folder.glob("*.json") if folder.is_dir() else ():
                        ledger.write_text('{"schema_version": 2, "torn')
                elif kind == "lock":
                    name = f"agent-{agent}.json" if agent else "main.json"
                    lock = state / "ledger" / SID / f"{name}.lock"
                    lock.parent.mkdir(parents=True, exist_ok=True)
                    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    self.undo.append(lambda: os.close(fd))

            def __exit__(self, *exc: object) -> None:
                for undo in reversed(self.undo):
                    undo()

        return Fault()

    # -- steps

    def read(self, agent: str | None, name: str, offset: int, limit: int, fault: str) -> None:
        self.figures.steps += 1
        self.figures.reads += 1
        self.tool_no += 1
        lines = self.files[name]
        offset = 1 + offset % len(lines)
        limit = max(1, limit) if limit else 0
        part = lines[offset - 1 : offset - 1 + limit] if limit else lines[offset - 1 :]
        tool_input: dict[str, Any] = {"file_path": self.path(name)}
        if offset > 1:
            tool_input["offset"] = offset
        if limit:
            tool_input["limit"] = limit
        response = {
            "type": "text",
            "file": {
                "filePath": self.path(name),
                "content": "\n".join(part),
                "numLines": len(part),
                "startLine": offset,
                "totalLines": len(lines),
            },
        }
        tool_id = f"toolu_{self.tool_no:04d}"
        self.record(type="assistant", message={"content": [{"type": "tool_use", "id": tool_id}]})
        payload = {"tool_name": "Read", "tool_input": tool_input, "tool_use_id": tool_id}
        payload["tool_response"] = response
        if agent:
            payload["agent_id"] = agent
        out = self.hook("PostToolUse", payload, fault)
        self._check(agent, name, offset, part, out)
        self.record(
            type="user", message={"content": [{"type": "tool_result", "tool_use_id": tool_id}]}
        )

    def compact(self, pre_fault: str, start_fault: str, hooks: bool = True) -> None:
        """Auto-compaction of the main thread: PreCompact (maybe twice), the boundary record,
        SessionStart(compact). The summary replaces the main thread's Read results."""
        self.figures.steps += 1
        self._epoch("compaction" if hooks else "compaction without hooks")
        if hooks:
            self.hook("PreCompact", {"trigger": "auto", "custom_instructions": None}, pre_fault)
            if self.tool_no % 2:
                self.hook("PreCompact", {"trigger": "auto", "custom_instructions": None})
        self.record(type="system", subtype="compact_boundary", content="Conversation compacted")
        self.held[None] = []
        if hooks:
            self.hook("SessionStart", {"source": "compact"}, start_fault)

    def microcompact(self) -> None:
        """Claude Code clears old tool results of the main thread: a record, no hook."""
        self.figures.steps += 1
        self._epoch("microcompaction")
        self.record(type="system", subtype="microcompact_boundary", content="cleared")
        self.held[None] = []

    def resume(self, fault: str) -> None:
        """A new Claude Code process rebuilds every context from the transcript."""
        self.figures.steps += 1
        self._epoch("resume")
        self.pid += 1
        self.held = {agent: [] for agent in set(AGENTS)}
        self.hook("SessionStart", {"source": "resume"}, fault)

    def idle(self) -> None:
        """An hour without a request: the server may clear old tool results, and says nothing.
        The clock is the witness; moving every ledger's last event back stands for the hour."""
        self.figures.steps += 1
        self._epoch("idle")
        self.held = {agent: [] for agent in set(AGENTS)}
        folder = self.state / "ledger" / SID
        for ledger in folder.glob("*.json") if folder.is_dir() else ():
            try:
                data = json.loads(ledger.read_text())
                data["meta"]["last_seen"] = data["meta"].get("last_seen", time.time()) - 7200
                ledger.write_text(json.dumps(data))
            except (ValueError, KeyError, TypeError, OSError):
                continue

    def _epoch(self, kind: str) -> None:
        self.figures.epochs[kind] = self.figures.epochs.get(kind, 0) + 1

    # -- the checker

    def _check(
        self, agent: str | None, name: str, offset: int, part: list[str], out: str | None
    ) -> None:
        held = self.held[agent]
        path = self.path(name)
        where = f"{agent or 'main'} Read #{self.tool_no} {name}:{offset}+{len(part)}"
        if out is None:
            self.figures.full += 1
            held.append(Delivery(path, offset, list(part)))
            return
        spec = json.loads(out)["hookSpecificOutput"]
        file = spec["updatedToolOutput"]["file"]
        note = spec.get("additionalContext") or ""
        content, start = file["content"], file["startLine"]
        self.figures.notices += 1
        truth = self.files[name]
        if start == 0:
            match = _RANGE.search(content)
            if not content.startswith(NOTICE) or match is None:
                self.figures.false_notices.append(f"{where}: unparsable notice {content[:120]}")
                return
            first, last = int(match[1]), int(match[2])
            if (first, last) != (offset, offset + len(part) - 1):
                self.figures.false_notices.append(f"{where}: notice for lines {first}-{last}")
            if match[3] == "unchanged":
                self._claim_held(held, path, first, last, truth, where)
            else:
                self._check_diff(held, path, first, last, truth, note, where)
            return
        shown = content.split("\n")
        if shown != truth[start - 1 : start - 1 + len(shown)]:
            self.figures.false_notices.append(f"{where}: shown lines {start}+ are not the file's")
        held.append(Delivery(path, start, shown))
        omitted = note.split("Omitted: ", 1)[-1].split(", unchanged since", 1)[0]
        for a, b in _OMITTED.findall(omitted):
            self._claim_held(held, path, int(a), int(b), truth, where)

    def _claim_held(
        self, held: list[Delivery], path: str, first: int, last: int, truth: list[str], where: str
    ) -> None:
        """The context must hold every line first..last, as the file has it now."""
        for n in range(first, last + 1):
            if not any(
                d.path == path and d.start <= n <= d.end and d.lines[n - d.start] == truth[n - 1]
                for d in held
            ):
                self.figures.false_notices.append(
                    f"{where}: claims line {n} is held unchanged; the context "
                    + ("holds other text" if any(d.path == path for d in held) else "holds none")
                )
                return

    def _check_diff(
        self,
        held: list[Delivery],
        path: str,
        first: int,
        last: int,
        truth: list[str],
        note: str,
        where: str,
    ) -> None:
        """The diff must apply to a Read the context holds and give the file as it is."""
        shas = _SHAS.search(note)
        base = next(
            (d for d in held if shas and d.path == path and d.sha8 == shas[1] and d.start == first),
            None,
        )
        if base is None:
            self.figures.false_notices.append(f"{where}: diff against a Read the context lacks")
            return
        body = note.split(" (now)\n", 1)[-1]
        if apply_diff(base.lines, base.start, body) != truth[first - 1 : last]:
            self.figures.false_notices.append(f"{where}: the diff does not give the file")


def apply_diff(old: list[str], start: int, body: str) -> list[str]:
    """`old` (lines numbered from `start`) with unified diff hunks applied."""
    rows = body.split("\n") if body else []
    out: list[str] = []
    pos, i = 0, 0
    while i < len(rows):
        match = _HUNK.match(rows[i])
        if match is None:
            return ["<bad hunk header>"]
        old_len = int(match[2]) if match[2] is not None else 1
        begin = int(match[1]) - start + (0 if old_len else 1)
        out += old[pos:begin]
        pos = begin
        i += 1
        while i < len(rows) and not rows[i].startswith("@@"):
            tag, text = rows[i][:1], rows[i][1:]
            if tag in " -":
                if pos >= len(old) or old[pos] != text:
                    return ["<context mismatch>"]
                pos += 1
            if tag in " +":
                out.append(text)
            i += 1
    return out + old[pos:]


def run_steps(world: World, steps: list[tuple[Any, ...]]) -> Figures:
    """Apply generated steps: ("read", agent, file, offset, limit, fault), ("change", file,
    at, kind), ("compact", pre_fault, start_fault, hooks), ("micro",), ("resume", fault),
    ("idle",)."""
    for step in steps:
        kind, args = step[0], step[1:]
        if kind == "read":
            world.read(*args)
        elif kind == "change":
            world.change(*args)
        elif kind == "compact":
            world.compact(*args)
        elif kind == "micro":
            world.microcompact()
        elif kind == "resume":
            world.resume(*args)
        elif kind == "idle":
            world.idle()
    return world.figures


def random_steps(rng: Any, n: int, *, lock_faults: bool = True) -> list[tuple[Any, ...]]:
    """Steps for `run_steps` from a `random.Random` (bench/fault_figures.py); the hypothesis
    strategy in tests/hooks/test_fault_injection.py draws from the same distribution."""
    faults = [f for f in FAULTS if lock_faults or f != "lock"]
    weights = FAULT_WEIGHTS[: len(faults)]
    out: list[tuple[Any, ...]] = []
    for _ in range(n):
        roll = rng.random()
        if roll < 0.70:
            offset, limit = rng.choice(WINDOWS)
            fault = rng.choices(faults, weights)[0]
            out.append(("read", rng.choice(AGENTS), rng.choice(FILES), offset, limit, fault))
        elif roll < 0.88:
            kind = rng.choice(CHANGES)
            out.append(("change", rng.choice(FILES), rng.randrange(100), kind))
        elif roll < 0.94:
            pre, start = rng.choices(faults, weights)[0], rng.choices(faults, weights)[0]
            out.append(("compact", pre, start, rng.random() < 0.75))
        elif roll < 0.97:
            out.append(("micro",))
        elif roll < 0.99:
            out.append(("resume", rng.choices(faults, weights)[0]))
        else:
            out.append(("idle",))
    return out
