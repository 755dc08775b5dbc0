#!/usr/bin/env python3
"""A/B bench: scripted sessions in the real Claude Code CLI, without and with ccstate.

Makes the A/B table of docs/BENCHMARKS.md (`--update-doc` writes it between its markers);
docs/OUTPUTS.md and docs/RECALL.md quote its scenarios.

    python bench/ab.py                      # every scenario; a table on stdout
    python bench/ab.py --markdown           # the table as Markdown (docs/BENCHMARKS.md)
    python bench/ab.py -s edit-reread --keep /tmp/ab   # one scenario, keep HOMEs/transcripts

Each scenario is a fixed script of tool calls (Read, Edit, Bash, /compact, a second session)
that the fake model (tests/e2e/fake_api.py) plays back to the real `claude` 2.1.328 binary,
once without ccstate and once with `--plugin-dir <repo>`. The fake simulates prompt caching
(tests/e2e/cache_sim.py: prefix match up to `cache_control` breakpoints, tiktoken counts), so
the usage it returns, and the transcripts Claude Code writes from it, look like real ones.

Per scenario and variant: API calls, uncached input, cache writes, cache reads, output,
the prompt size of the last call, and the simulated cost (ccstate's pricing table, the model
Claude Code asks for). The reduction compares the two. A consistency check runs
`ccstate report` over the transcripts and compares its totals with what the fake served.

The model follows its script whatever it receives, with two exceptions that are the point of
a handoff and of recall: in the second session of `handoff`, a model that is told where the
last session's handoff is reads that file instead of re-reading the project
(`_second_session`); in the second session of `recall`, a model told that recall exists asks
`ccstate recall` what the last session changed instead of re-reading three files
(`_recalling_session`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
E2E = REPO / "tests" / "e2e"
sys.path.insert(0, str(E2E))  # the e2e harness, imported by path
sys.path.insert(0, str(REPO / "src"))

import cache_sim  # noqa: E402
import claude_runner  # noqa: E402
import fake_api  # noqa: E402
from fake_api import Body, Reply, StepLike, ToolCall, respond, text, tool_use  # noqa: E402

from ccstate.report import pricing  # noqa: E402

CACHE = Path(os.environ.get("CCSTATE_E2E_CACHE") or Path.home() / ".cache" / "ccstate-e2e")


# --------------------------------------------------------------------------- the project


def _module(name: str, functions: int) -> str:
    """A deterministic Python module of about 10 lines per function."""
    out = [f'"""{name}: generated for the ccstate A/B bench."""', "", "import math", ""]
    for i in range(functions):
        out += [
            "",
            f"def {name}_step_{i}(value, scale={i + 1}):",
            f'    """Scale `value` by {i + 1} and fold it into a bounded range."""',
            f"    total_{i} = value * scale + {i * 7 % 13}",
            f"    if total_{i} > {100 + i}:",
            f"        total_{i} = math.fmod(total_{i}, {100 + i})",
            f"    result_{i} = round(total_{i} / (scale + 1), 3)",
            f"    return result_{i}",
        ]
    return "\n".join(out) + "\n"


def make_project(root: Path) -> Path:
    """A git repo with a few source files of realistic size (300-500 lines)."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(_module("app", 55))
    (root / "src" / "util.py").write_text(_module("util", 35))
    (root / "src" / "models.py").write_text(_module("models", 45))
    readme = ["# Demo service", "", "Scales values. Generated for the ccstate A/B bench.", ""]
    readme += [f"- step {i}: see `src/app.py` function `app_step_{i}`" for i in range(40)]
    (root / "README.md").write_text("\n".join(readme) + "\n")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.name", "Bench"],
        ["config", "user.email", "bench@example.org"],
        ["config", "commit.gpgsign", "false"],
        ["add", "-A"],
        ["commit", "-q", "-m", "initial"],
    ):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return root


# --------------------------------------------------------------------------- scenarios


@dataclass(frozen=True)
class Turn:
    """One `claude -p` run: a prompt and the model's script for it."""

    prompt: str
    steps: list[StepLike]
    new_session: bool = False  # else --resume the previous session
    may_leave: int = 0  # script steps allowed to stay unplayed (a responder's spare steps)


@dataclass(frozen=True)
class Scenario:
    name: str
    what: str
    turns: Callable[[Path], list[Turn]]


def _read(path: Path, **kw: int) -> StepLike:
    return tool_use("Read", {"file_path": str(path), **kw})


def _edit(path: Path, old: str, new: str) -> StepLike:
    return tool_use("Edit", {"file_path": str(path), "old_string": old, "new_string": new})


def _edit_reread(p: Path) -> list[Turn]:
    app = p / "src" / "app.py"
    steps: list[StepLike] = [_read(app)]
    for i in (3, 17, 29, 41):
        steps += [_edit(app, f"scale={i + 1}):", f"scale={i + 2}):"), _read(app)]
    return [
        Turn(
            "tune the scales in src/app.py, checking the file after each change",
            [*steps, text("Tuned four scales.")],
        )
    ]


def _pagination(p: Path) -> list[Turn]:
    app = p / "src" / "app.py"
    pages = [_read(app, offset=start, limit=120) for start in (1, 121, 241, 361)]
    steps = [*pages, _read(app), _read(app, offset=121, limit=120), text("Read it all.")]
    return [Turn("page through src/app.py, then look at it whole", steps)]


def _repeated_reads(p: Path) -> list[Turn]:
    util, models, readme = p / "src" / "util.py", p / "src" / "models.py", p / "README.md"
    steps = [
        _read(util),
        _read(models),
        _read(readme),
        tool_use("Bash", {"command": "git status --short", "description": "status"}),
        _read(util),
        _read(models),
        tool_use("Grep", {"pattern": "def util_step_1", "path": str(p / "src")}),
        _read(util),
        _read(readme),
        text("Compared them."),
    ]
    return [Turn("compare src/util.py and src/models.py with the README", steps)]


_HANDOFF_PATH = re.compile(r"- handoff \([^\n]*?\):[^\n]*?([^\s`:]+\.md)")


def _second_session(project: Path) -> Callable[[Body], Reply]:
    """Session 2's model: told where a handoff is, it reads that; else it re-reads the project."""
    files = [project / "src" / "app.py", project / "src" / "util.py", project / "src" / "models.py"]
    state = {"step": 0, "plan": None}

    def reply(body: Body) -> Reply:
        if state["plan"] is None:
            found = None
            for chunk in fake_api.system_texts(body):
                match = _HANDOFF_PATH.search(chunk)
                if match:
                    found = Path(match.group(1))
                    found = found if found.is_absolute() else project / found
                    break
            state["plan"] = [found] if found is not None and found.exists() else files
        plan: list[Path] = state["plan"]  # type: ignore[assignment]
        step = state["step"]
        state["step"] += 1
        if step < len(plan):
            return Reply((ToolCall("Read", {"file_path": str(plan[step])}),))
        return Reply(("Picked up where the last session stopped.",))

    return reply


def _three_reads_and_an_edit(p: Path) -> list[StepLike]:
    """Session 1 of `handoff` and `recall`: read app, util, models; change util_step_4."""
    util = p / "src" / "util.py"
    files = [p / "src" / "app.py", util, p / "src" / "models.py"]
    return [*(_read(f) for f in files), _edit(util, "scale=5):", "scale=6):")]


def _handoff(p: Path) -> list[Turn]:
    first = [
        *_three_reads_and_an_edit(p),
        tool_use("Bash", {"command": "git diff --stat", "description": "what changed"}),
        text("Changed util_step_4's scale; next: the same for app_step_4."),
    ]
    second = _second_session(p)
    steps: list[StepLike] = [respond(second) for _ in range(5)]
    return [
        Turn("change util_step_4's scale to 6, then stop", first, new_session=True),
        Turn("continue where the last session stopped", steps, new_session=True, may_leave=3),
    ]


def _recalling_session(project: Path) -> Callable[[Body], Reply]:
    """Session 2's model: told that recall exists, it asks it what session 1 changed (one
    Bash call); else it re-reads the three files to find out."""
    files = [project / "src" / "app.py", project / "src" / "util.py", project / "src" / "models.py"]
    question = "util_step_4 scale change"
    recall = f"{shlex.quote(sys.executable)} -m ccstate recall {shlex.quote(question)} --limit 3"
    state: dict[str, Any] = {"step": 0, "plan": None}

    def reply(body: Body) -> Reply:
        if state["plan"] is None:
            told = any("- recall:" in chunk for chunk in fake_api.system_texts(body))
            state["plan"] = (
                [ToolCall("Bash", {"command": recall, "description": "recall session 1"})]
                if told
                else [ToolCall("Read", {"file_path": str(f)}) for f in files]
            )
        plan: list[ToolCall] = state["plan"]
        step = state["step"]
        state["step"] += 1
        if step < len(plan):
            return Reply((plan[step],))
        return Reply(("util_step_4's scale went from 5 to 6 last session.",))

    return reply


def _recall(p: Path) -> list[Turn]:
    first = [*_three_reads_and_an_edit(p), text("Changed util_step_4's scale from 5 to 6.")]
    second = _recalling_session(p)
    steps: list[StepLike] = [respond(second) for _ in range(4)]
    return [
        Turn("change util_step_4's scale to 6", first, new_session=True),
        Turn(
            "what did the last session change in util_step_4?", steps, new_session=True, may_leave=2
        ),
    ]


def _compaction(p: Path) -> list[Turn]:
    app, util, models = p / "src" / "app.py", p / "src" / "util.py", p / "src" / "models.py"
    before = [
        _read(app),
        _read(util),
        _read(models),
        _edit(app, "scale=8):", "scale=9):"),
        text("Done with step 7."),
    ]
    after = [_read(app), _read(util), _read(app, offset=1, limit=60), text("Checked again.")]
    return [
        Turn("change app_step_7's scale to 9", before, new_session=True),
        Turn("/compact keep the scale changes", []),
        Turn("check app.py and util.py once more", after),
    ]


# A test run as a runner prints it: a line per test, the failures named in failing.txt with
# their details, a summary. The model "fixes" a failure by editing failing.txt.
_TEST_RUNNER = """
import pathlib
failing = pathlib.Path("failing.txt").read_text().split()
names = ("cart", "pricing", "users", "orders")
print("> shop@1.4.0 test")
print("> vitest run")
print()
for i in range(400):
    name = names[i % 4]
    mark = "\\u00d7" if f"{name}:{i}" in failing else "\\u2713"
    print(f" {mark} src/{name}.test.ts > {name} > case {i} computes the total {i % 9}ms")
print()
for key in failing:
    name, i = key.split(":")
    print(f" FAIL  src/{name}.test.ts > {name} > case {i} computes the total")
    print(f"AssertionError: expected {i} to be {int(i) + 1} // Object.is equality")
    print(f" \\u276f src/{name}.test.ts:{i}:18")
    print()
print(f"      Tests  {len(failing)} failed | {400 - len(failing)} passed (400)")
print("   Duration  2.31s")
"""

# A build as cargo prints it: downloads, a line per compiled crate, warnings, the result.
_BUILD = """
for i in range(160):
    print(f"  Downloaded crate_{i:03d} v1.{i % 9}.{i % 4}")
for i in range(160):
    print(f"   Compiling crate_{i:03d} v1.{i % 9}.{i % 4}")
for i in range(6):
    print(f"warning: unused variable: `tmp{i}`")
    print(f"  --> src/engine.rs:{40 + i * 7}:9")
    print("   |")
    print(f"{40 + i * 7} |     let tmp{i} = compute();")
    print("   |         ^^^^ help: if this is intentional, prefix it with an underscore")
    print()
print("warning: `engine` (lib) generated 6 warnings")
print("    Finished `dev` profile [unoptimized + debuginfo] target(s) in 41.07s")
"""


def _bash(command: str, what: str = "run") -> StepLike:
    return tool_use("Bash", {"command": command, "description": what})


def _test_fix_loop(p: Path) -> list[Turn]:
    (p / "run_tests.py").write_text(_TEST_RUNNER)
    failing = ["cart:40", "pricing:121", "users:302"]
    (p / "failing.txt").write_text(" ".join(failing) + "\n")
    run = _bash('python3 run_tests.py; echo "exit $?"', "run the tests")
    steps: list[StepLike] = [run]
    for n in range(len(failing)):
        left = failing[n + 1 :]
        old, new = " ".join(failing[n:]) + "\n", (" ".join(left) + "\n") if left else "\n"
        steps += [_edit(p / "failing.txt", old, new), run]
    return [Turn("fix the failing tests", [*steps, text("All tests pass.")])]


def _noisy_build(p: Path) -> list[Turn]:
    (p / "build.py").write_text(_BUILD)
    build = _bash('python3 build.py; echo "exit $?"', "build")
    app = p / "src" / "app.py"
    steps = [build, _edit(app, "scale=4):", "scale=5):"), build, build, text("Built.")]
    return [Turn("build the project, change app_step_3, build again", steps)]


def _shell_reads(p: Path) -> list[Turn]:
    """Auto mode: Claude Code tells the model to read files with cat, head and sed -n."""
    app, util, models = "src/app.py", "src/util.py", "src/models.py"
    steps: list[StepLike] = [
        _bash(f"cat {app}", "read"),
        _bash(f"sed -n '1,150p' {util}", "read"),
        _bash(f"head -n 120 {models}", "read"),
        _edit(p / app, "scale=8):", "scale=9):"),
        _bash(f"cat {app}", "check the edit"),
        _bash(f"sed -n '1,150p' {util}", "read again"),
        _bash(f"head -n 120 {models}", "read again"),
        _bash(f"cat {app}", "read again"),
        text("Checked."),
    ]
    return [Turn("review app.py, util.py and models.py", steps)]


SCENARIOS = [
    Scenario("edit-reread", "Read, then 4x (Edit, Read) of one 500-line file", _edit_reread),
    Scenario("pagination", "4 pages of 120 lines, the whole file, a page again", _pagination),
    Scenario("repeated-reads", "3 files read 2-3 times each, with Bash and Grep", _repeated_reads),
    Scenario("handoff", "session 1 reads 3 files and edits; a new session 2 resumes", _handoff),
    Scenario("compaction", "3 files read, Edit, /compact, then 3 reads", _compaction),
    Scenario(
        "test-fix-loop", "a 400-test run, then 3x (fix one failure, run again)", _test_fix_loop
    ),
    Scenario("noisy-build", "a 370-line build, an Edit, two builds again", _noisy_build),
    Scenario(
        "shell-reads",
        "cat, sed -n and head of 3 files, an Edit, the same reads again",
        _shell_reads,
    ),
    Scenario(
        "recall",
        "session 1 reads 3 files and edits; session 2 asks what changed: recall vs 3 re-reads",
        _recall,
    ),
]


# --------------------------------------------------------------------------- running


@dataclass
class Totals:
    calls: int = 0
    input: int = 0
    cache_write: int = 0
    cache_read: int = 0
    output: int = 0
    cost: float = 0.0
    last_prompt: int = 0
    agent_calls: list[dict[str, int]] = field(default_factory=list)
    models: set[str] = field(default_factory=set)

    @property
    def prompt(self) -> int:
        return self.input + self.cache_write + self.cache_read


class Meter:
    """The fake's usage hook: the cache simulator, plus a record of what it served."""

    def __init__(self, table: pricing.PricingTable) -> None:
        self.sim = cache_sim.CacheSim()
        self.table = table
        self.totals = Totals()

    def usage(self, body: Body, reply: Reply) -> dict[str, Any]:
        used = self.sim.usage(body, reply)
        t = self.totals
        t.calls += 1
        t.input += used["input_tokens"]
        t.cache_write += used["cache_creation_input_tokens"]
        t.cache_read += used["cache_read_input_tokens"]
        t.output += used["output_tokens"]
        split = used["cache_creation"]
        t.models.add(str(body.get("model") or ""))
        card = self.table.card(str(body.get("model") or ""))
        if card is not None:
            t.cost += pricing.request_cost(
                card,
                input=used["input_tokens"],
                cache_write_5m=split["ephemeral_5m_input_tokens"],
                cache_write_1h=split["ephemeral_1h_input_tokens"],
                cache_read=used["cache_read_input_tokens"],
                output=used["output_tokens"],
            )
        if body.get("tools") and not fake_api.is_compaction(body):
            t.last_prompt = (
                used["input_tokens"]
                + used["cache_creation_input_tokens"]
                + used["cache_read_input_tokens"]
            )
            t.agent_calls.append(used)
        return used


def run_variant(scenario: Scenario, with_ccstate: bool, claude_bin: Path, work: Path) -> Totals:
    variant = "with" if with_ccstate else "without"
    base = work / scenario.name / variant
    home = base / "home"
    home.mkdir(parents=True)
    project = make_project(base / "project")
    if with_ccstate:
        claude_runner.provision_plugin_runtime(home, REPO)
    meter = Meter(pricing.load_pricing())
    session: str | None = None
    with fake_api.FakeAnthropic(usage=meter.usage) as api:
        for turn in scenario.turns(project):
            api.set_script(turn.steps)
            run = claude_runner.run_claude(
                claude_bin,
                turn.prompt,
                cwd=project,
                home=home,
                api_url=api.url,
                plugin_dir=REPO if with_ccstate else None,
                resume=None if turn.new_session else session,
            )
            if run.proc.returncode != 0 or run.result is None:
                raise SystemExit(f"{scenario.name}/{variant}: claude failed\n{run.describe()}")
            session = str(run.result.get("session_id") or session)
            left = api.remaining_steps()
            if left > turn.may_leave or api.errors:
                raise SystemExit(
                    f"{scenario.name}/{variant}: script not played out ({left} steps left, "
                    f"errors {api.errors}); the CLI did not do what the scenario expects"
                )
    _check_report(scenario.name, variant, home, meter.totals)
    return meter.totals


def _check_report(name: str, variant: str, home: Path, served: Totals) -> None:
    """`ccstate report` over the transcripts must count what the fake served to the agent."""
    projects = home / ".claude" / "projects"
    proc = subprocess.run(
        [sys.executable, "-m", "ccstate", "report", str(projects), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{name}/{variant}: ccstate report failed: {proc.stderr}")
    got = json.loads(proc.stdout)["total"]["tokens"]
    want = {
        "input": sum(u["input_tokens"] for u in served.agent_calls),
        "cache_write": sum(u["cache_creation_input_tokens"] for u in served.agent_calls),
        "cache_read": sum(u["cache_read_input_tokens"] for u in served.agent_calls),
        "output": sum(u["output_tokens"] for u in served.agent_calls),
    }
    mine = {k: got[k] for k in want}
    if mine != want:
        raise SystemExit(f"{name}/{variant}: ccstate report {mine} != served {want}")


def find_claude() -> Path:
    """The pinned CLI from the e2e cache, installed with npm when missing."""
    install = CACHE / f"claude-{claude_runner.CLAUDE_VERSION}"
    binary = install / "node_modules" / claude_runner.PACKAGE / "bin" / "claude.exe"
    if not binary.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("npm is needed to install the pinned Claude Code CLI")
        spec = f"{claude_runner.PACKAGE}@{claude_runner.CLAUDE_VERSION}"
        subprocess.run(
            [npm, "install", "--prefix", str(install), spec, "--no-audit", "--no-fund"], check=True
        )
    return binary


# --------------------------------------------------------------------------- output


def reduction(without: float, with_: float) -> float:
    return (without - with_) / without if without else 0.0


def rows(results: dict[str, dict[str, Totals]]) -> list[list[str]]:
    out = []
    for name, pair in results.items():
        for variant in ("without", "with"):
            t = pair[variant]
            out.append(
                [
                    name,
                    variant,
                    str(t.calls),
                    f"{t.prompt:,}",
                    f"{t.input:,}",
                    f"{t.cache_write:,}",
                    f"{t.cache_read:,}",
                    f"{t.output:,}",
                    f"{t.last_prompt:,}",
                    f"${t.cost:.4f}",
                ]
            )
        a, b = pair["without"], pair["with"]
        out.append(
            [
                name,
                "reduction",
                "",
                _red(a.prompt, b.prompt),
                _red(a.input, b.input),
                _red(a.cache_write, b.cache_write),
                _red(a.cache_read, b.cache_read),
                "",
                _red(a.last_prompt, b.last_prompt),
                _red(a.cost, b.cost),
            ]
        )
    return out


def _red(without: float, with_: float) -> str:
    return f"{reduction(without, with_):.1%}" if without else "n/a"


HEADER = [
    "scenario",
    "ccstate",
    "calls",
    "prompt tokens",
    "uncached input",
    "cache write",
    "cache read",
    "output",
    "last prompt",
    "sim. cost",
]


def render(table: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        lines += ["| " + " | ".join(r) + " |" for r in table]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [HEADER, *table]) for i in range(len(HEADER))]

    def fmt(row: list[str]) -> str:
        cells = zip(row, widths, strict=True)
        return "  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(cells))

    return "\n".join([fmt(HEADER), *(fmt(r) for r in table)])


DOC = REPO / "docs" / "BENCHMARKS.md"
START, END = "<!-- ab-table:start (python bench/ab.py --update-doc) -->", "<!-- ab-table:end -->"


def update_doc(table: str) -> None:
    """Replace the text between the A/B markers in docs/BENCHMARKS.md."""
    text = DOC.read_text()
    head, found, rest = text.partition(START)
    _, found_end, tail = rest.partition(END)
    if not (found and found_end):
        raise SystemExit(f"{DOC.name} has no {START} ... {END} block")
    DOC.write_text(f"{head}{START}\n{table}\n{END}{tail}")


def _as_json(t: Totals) -> dict[str, Any]:
    keys = ("calls", "input", "cache_write", "cache_read", "output", "cost", "last_prompt")
    return {k: getattr(t, k) for k in keys} | {"prompt": t.prompt, "models": sorted(t.models)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-s", "--scenario", action="append", choices=[s.name for s in SCENARIOS])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--keep", type=Path, help="work here and keep HOMEs and transcripts")
    parser.add_argument(
        "--update-doc", action="store_true", help="put the Markdown table into docs/BENCHMARKS.md"
    )
    args = parser.parse_args(argv)
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    claude_bin = find_claude()
    work = args.keep or Path(tempfile.mkdtemp(prefix="ccstate-ab-"))
    started = time.monotonic()
    results: dict[str, dict[str, Totals]] = {}
    try:
        for scenario in chosen:
            results[scenario.name] = {
                "without": run_variant(scenario, False, claude_bin, work),
                "with": run_variant(scenario, True, claude_bin, work),
            }
            print(f"  {scenario.name}: done", file=sys.stderr)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(render(rows(results), args.markdown))
    models = sorted({m for pair in results.values() for t in pair.values() for m in t.models})
    footer = (
        f"{len(chosen)} scenario(s), claude {claude_runner.CLAUDE_VERSION}, model "
        f"{', '.join(models)} at ccstate's pricing.json prices; `ccstate report` on the "
        "transcripts matched the usage the fake served in every run."
    )
    print(f"\n{footer} {time.monotonic() - started:.0f} s.")
    if args.update_doc:
        update_doc(render(rows(results), True) + "\n\n" + footer)
    if args.json:
        data = {n: {v: _as_json(t) for v, t in p.items()} for n, p in results.items()}
        args.json.write_text(json.dumps(data, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
