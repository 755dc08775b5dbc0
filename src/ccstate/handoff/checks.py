"""A check passes only when ccstate can tell it ran (issue #42; pure).

`classify(command, output, status)` gives one Verdict per check tool the shell line runs
(tools.py), decided in this order:

1. the run was refused (a hook, a permission), or sent to the background;
2. the output says the tool is missing (`command not found`, `No module named black`, exit
   status 127) -> `not installed`; a runner without the script or target -> `did not run`;
3. the tool's own summary (outcomes.py) -> passed or FAILED, with its figure; a summary that
   says passed while the tool's own exit status says otherwise is FAILED;
4. a runner earlier in the same `&&` chain failed -> `did not run`;
5. the tool's own exit status: the line's when the tool ends it (or only `&&` follows it and
   the line passed), one echoed after it (`echo "exit=$?"`, `${PIPESTATUS[0]}`), or an
   `&& echo OK || echo FAIL` marker;
6. otherwise it ran and nothing tells how: `ran (status through a pipe)` when its output went
   into a pipe (`| tail` gives tail's status), `ran (status not shown)` after `;` or `||`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from ccstate.handoff import commands, outcomes, tools
from ccstate.handoff.commands import Simple
from ccstate.handoff.tools import Run

PASSED, FAILED, MISSING, NOT_RUN = "passed", "FAILED", "not installed", "did not run"
PIPED, HIDDEN = "ran (status through a pipe)", "ran (status not shown)"
BACKGROUND, UNFINISHED = "started in the background", "did not finish"
_STATUS_REF = re.compile(r"\$\?|\$\{?PIPESTATUS(?:\[(\d+)\])?\}?")
_EXIT_HEADER = re.compile(r"\AExit code (\d+)")
_LOOKUPS = frozenset({"command", "which", "type", "hash"})
# What npm and pnpm print before a script's output: `> name@1.0.0 lint` (then the command).
_QUIET = frozenset({"-s", "--silent", "-q", "--quiet", "--loglevel", "--reporter=silent"})
_SCRIPT_HEADER = re.compile(r"^> \S+@\S+ ([\w:.-]+)", re.M)


@dataclass(frozen=True)
class Status:
    """How the line ended: `code` (None: non-zero, number unknown), or cut short."""

    code: int | None = 0
    interrupted: bool = False
    background: bool = False


@dataclass(frozen=True)
class Verdict:
    tool: str  # "pytest", "make test", "npm run build"
    kind: str  # test | build | lint | type
    target: str  # paths or test ids it was pointed at ("" = the tool's default)
    outcome: str  # PASSED, FAILED, MISSING, NOT_RUN, PIPED, HIDDEN, BACKGROUND, UNFINISHED
    figure: str = ""  # from the summary: "817 tests OK", "2 failed, 10 passed", "exit 2"
    # the command that ran the tool, without what only shaped its output (`2>&1 | tail -3`),
    # after the `cd` that led to it: what to run again (raw: every writer redacts it)
    ran: str = field(default="", compare=False)

    @property
    def key(self) -> str:
        """Verdicts with the same key are the same check: the newest one stands."""
        return f"{self.tool} {self.target}".strip()

    @property
    def ok(self) -> bool | None:
        """True: passed; False: failed or missing; None: nothing proves either."""
        return {PASSED: True, FAILED: False, MISSING: False}.get(self.outcome)

    def text(self) -> str:
        """`817 tests OK`, `FAILED (2 failed, 10 passed)`, `not installed`."""
        if self.outcome == PASSED:
            return self.figure or PASSED
        return f"{self.outcome} ({self.figure})" if self.figure else self.outcome


@dataclass(frozen=True)
class Check:
    """A check as the handoff scan keeps it: the newest verdict for its key, the shell line
    that gave it (raw: every writer redacts it), where and when."""

    command: str
    verdict: Verdict
    line: int
    output: str = ""  # a failed or missing run's output (head, raw): the telling line
    time: str = ""  # the transcript's timestamp of the result

    @property
    def ok(self) -> bool | None:
        return self.verdict.ok


def status_of(text: str, *, is_error: bool, interrupted: bool, background: bool) -> Status:
    """The line's status from a Bash result: Claude Code marks a non-zero exit as an error
    and (1.0.8x and later) starts the text with `Exit code N`."""
    if not is_error:
        return Status(0, interrupted, background)
    match = _EXIT_HEADER.match(text)
    return Status(int(match.group(1)) if match else None, interrupted, background)


def is_check(command: str) -> bool:
    """Does the line run a check tool at all? (cheap callers: the bench, tests)"""
    return bool(tools.find_runs(commands.split(command)))


def classify(command: str, output: str, status: Status) -> list[Verdict]:
    """One verdict per check run in `command`, in order."""
    simples = commands.split(command)
    runs = tools.find_runs(simples)
    if not runs:
        return []
    text = outcomes.clean(output)
    verdicts: list[Verdict] = []
    for run in runs:
        outcome, figure = _decide(run, runs, verdicts, simples, text, status)
        ran = _ran(run, simples)
        verdicts.append(Verdict(run.tool, run.kind, run.target, outcome, figure, ran))
    return verdicts


def _ran(run: Run, simples: list[Simple]) -> str:
    """`cd web && npm test 2>&1 | tail -5` -> `cd web && npm test`."""
    parts = [shlex.join(simples[run.index].words)]
    before = simples[run.index - 1] if run.index else None
    if before is not None and before.joiner == "&&" and before.words[:1] == ("cd",):
        parts.insert(0, shlex.join(before.words))
    return " && ".join(parts)


def _decide(
    run: Run,
    runs: list[Run],
    before: list[Verdict],
    simples: list[Simple],
    text: str,
    status: Status,
) -> tuple[str, str]:
    body = _EXIT_HEADER.sub("", text, count=1).lstrip("\n")
    if outcomes.REFUSED.match(body):
        return NOT_RUN, "refused"
    if status.background and status.code == 0:
        return BACKGROUND, ""
    if outcomes.missing(run.names, text):
        return MISSING, ""
    if run.family == "any" and outcomes.no_script(text):
        return NOT_RUN, "no such script or target"
    own = _own_status(run.index, simples, text, status)
    found = _summary(run, runs, text)
    if found is not None:
        ok, figure = found
        if ok and own not in (None, 0):
            return FAILED, f"{figure}; exit {own}" if own != -1 else figure
        return (PASSED if ok else FAILED), figure
    if _chain_broken(run, runs, before, simples) or _script_silent(run, simples, text):
        return NOT_RUN, "an earlier step failed"
    if run.family == "any" and (inner := outcomes.inner_missing(text)):
        return MISSING, f"{inner} not found"
    return _by_status(run, simples, text, status, own)


def _by_status(
    run: Run, simples: list[Simple], text: str, status: Status, own: int | None
) -> tuple[str, str]:
    if own == 0:
        return PASSED, ""
    if own == 127 or (own is not None and own != 0 and _after_lookup(run, simples)):
        return MISSING, ""
    if own is not None:
        if status.interrupted:
            return UNFINISHED, ""
        if outcomes.crashed(text):
            return FAILED, "crashed"
        return FAILED, f"exit {own}" if own > 0 else ""
    if status.interrupted:
        return UNFINISHED, ""
    if run.family != "any" and outcomes.crashed(text):
        return FAILED, "crashed"
    return (PIPED if simples[run.index].joiner == "|" else HIDDEN), ""


def _summary(run: Run, runs: list[Run], text: str) -> tuple[bool, str] | None:
    """The run's own summary: from the whole output when no other run of the line prints
    summaries alike; else, for a package script, from its part of the output."""
    script = _script_name(run)
    heads = [(m.start(), m.group(1)) for m in _SCRIPT_HEADER.finditer(text)] if script else []
    if any(name == f"post{script}" for _pos, name in heads):
        return True, f"post{script} ran"  # npm runs a post-script only when the script passed
    if len(_same_family(run, runs)) == 1:
        return outcomes.summary(run.family, text)
    start = next((pos for pos, name in heads if name == script), None)
    if start is None:
        return None
    others = {_script_name(r) for r in runs if r is not run} - {""}
    others |= {f"{edge}{name}" for name in others for edge in ("pre", "post")}
    end = next((pos for pos, name in heads if pos > start and name in others), len(text))
    return outcomes.summary(run.family, text[start:end])


def _script_silent(run: Run, simples: list[Simple], text: str) -> bool:
    """A package script whose `> name@1.0 script` line is missing where another script's is
    there never started (its output went into no pipe and it was not told to be quiet)."""
    script = _script_name(run)
    words = simples[run.index].words
    if not script or simples[run.index].joiner == "|" or _QUIET.intersection(words):
        return False
    names = {m.group(1) for m in _SCRIPT_HEADER.finditer(text)}
    return bool(names) and not {script, f"pre{script}"} & names


def _script_name(run: Run) -> str:
    """The package script a run starts (`npm run lint` -> `lint`), or ""."""
    words = run.tool.split()
    if words[0] not in ("npm", "pnpm", "yarn", "bun") or len(words) < 2:
        return ""
    return words[-1]


def _same_family(run: Run, runs: list[Run]) -> list[Run]:
    """Runs whose summaries look alike: two of them in one line cannot be told apart."""
    mine = set(outcomes.parsers(run.family))
    return [r for r in runs if mine.intersection(outcomes.parsers(r.family))]


def _own_status(index: int, simples: list[Simple], text: str, status: Status) -> int | None:
    """The exit status of command `index` when the line shows it; -1 for "non-zero, number
    unknown"; None when the line does not show it."""
    echoed = _echoed(index, simples, text)
    if echoed is not None:
        return echoed
    marker = _marker(index, simples, text)
    if marker is not None:
        return marker
    if status.interrupted or status.background:
        return None
    piped = simples[index].joiner == "|"
    rest = [s.joiner for s in simples[index:-1]]
    pipefail = any("pipefail" in s.words for s in simples[:index])
    errexit = any(s.words[:1] == ("set",) and _has_e(s.words) for s in simples[:index])
    line = -1 if status.code is None else status.code
    if piped:  # `| tail` reports tail's status; with pipefail a 0 means every step passed
        ends = all(j == "|" for j in rest)
        return 0 if pipefail and ends and line == 0 else None
    if all(j in ("&&", "|") for j in rest):
        if simples[index].joiner == "":
            return line  # it ends the line
        if line == 0:
            return 0  # only `&&` after it and the line passed: so did it
        return None
    if errexit and line == 0 and simples[index].joiner != "||":
        return 0  # `set -e`: a failure would have stopped the line
    return None


def _has_e(words: tuple[str, ...]) -> bool:
    return any(w.startswith("-") and not w.startswith("--") and "e" in w for w in words[1:])


def _echoed(index: int, simples: list[Simple], text: str) -> int | None:
    """The status an `echo "exit=$?"` right after the command printed (`$?` after a pipe is
    the pipe's: only `${PIPESTATUS[n]}` names the command then)."""
    start = index
    while start > 0 and simples[start - 1].joiner == "|":
        start -= 1
    end = index
    while simples[end].joiner == "|" and end + 1 < len(simples):
        end += 1
    if end + 1 >= len(simples) or simples[end].joiner not in (";", "&&", "||"):
        return None
    echo = simples[end + 1]
    if echo.words[:1] not in (("echo",), ("printf",)):
        return None
    said = " ".join(echo.words[1:])
    ref = _STATUS_REF.search(said)
    if ref is None or simples[end].joiner == "&&":
        return None  # after `&&` the echo runs only on success: a marker, not a status
    if ref.group(0) == "$?" and index != end:
        return None
    if ref.group(0) != "$?" and int(ref.group(1) or 0) != index - start:
        return None
    prefix = said[: ref.start()].split("$")[-1][-24:]
    same = [
        s
        for s in simples[: end + 1]
        if s.words[:1] == echo.words[:1] and prefix in " ".join(s.words)
    ]
    pattern = (re.escape(prefix.strip()) + r"\s*(\d+)") if prefix.strip() else r"^\s*(\d+)\s*$"
    values = re.findall(pattern, text, re.M)
    position = len([s for s in same if _STATUS_REF.search(" ".join(s.words))])
    return int(values[position]) if position < len(values) else None


def _marker(index: int, simples: list[Simple], text: str) -> int | None:
    """`cmd && echo PASSED || echo FAILED`: which of the two lines the output holds."""
    if simples[index].joiner not in ("&&", "||") or index + 1 >= len(simples):
        return None
    lines = {line.strip() for line in text.splitlines()}
    ok_text = fail_text = None
    first = simples[index + 1]
    if _plain_echo(first):
        if simples[index].joiner == "&&":
            ok_text = " ".join(first.words[1:])
            if (
                first.joiner == "||"
                and index + 2 < len(simples)
                and _plain_echo(simples[index + 2])
            ):
                fail_text = " ".join(simples[index + 2].words[1:])
        else:
            fail_text = " ".join(first.words[1:])
    if ok_text == fail_text:
        return None
    if (ok_text and ok_text in lines) or (fail_text and not ok_text and fail_text not in lines):
        return 0  # the success line, or no failure line where only failure would print one
    if (fail_text and fail_text in lines) or (ok_text and not fail_text and ok_text not in lines):
        return -1
    return None


def _plain_echo(simple: Simple) -> bool:
    said = " ".join(simple.words[1:])
    return simple.words[:1] == ("echo",) and bool(said.strip()) and "$" not in said


def _chain_broken(run: Run, runs: list[Run], before: list[Verdict], simples: list[Simple]) -> bool:
    """An earlier check joined to this one by `&&` failed (or a `cd` it needed did): it
    never ran."""
    for earlier, verdict in zip(runs, before, strict=False):
        joined = all(s.joiner in ("&&", "|") for s in simples[earlier.index : run.index])
        if joined and verdict.outcome in (FAILED, MISSING, NOT_RUN):
            return True
    return False


def _after_lookup(run: Run, simples: list[Simple]) -> bool:
    """`command -v black && black --check .` that failed: the lookup found no black."""
    i = run.index - 1
    while i >= 0 and simples[i].joiner == "&&":
        words = simples[i].words
        if words[:1] and words[0] in _LOOKUPS and any(n in words for n in run.names):
            return True
        i -= 1
    return False


def failure_line(text: str) -> str:
    """The most telling line of a failed command's output."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if re.search(
            r"(?i)\b(error|failed|failure|fatal|exception|panic)\b", ln
        ) and not ln.startswith("Exit code"):
            return ln
    for ln in lines:
        if not ln.startswith("Exit code"):
            return ln
    return lines[0] if lines else ""
