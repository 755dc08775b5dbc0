"""What a check's output says: the tool missing, the run refused, or the tool's own summary
(pure; #42).

`missing(names, text)` finds "command not found", "No module named X", "is not recognized"
and their kin for one tool; `summary(family, text)` reads the summary lines a tool prints
(`3 failed, 10 passed in 1.2s`, `Ran 817 tests ... OK`, `Found 2 errors`, `would reformat`,
`test result: ok.`, `Tests:  1 failed, 4 passed`...) into (passed?, figure). A figure is
made of the summary's numbers and fixed words only, never other text of the output.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Found = tuple[int, bool, str]  # (position in the output, passed?, figure)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")
REFUSED = re.compile(
    r"^(?:<tool_use_error>|\S*Bash operation blocked by hook|PreToolUse:\S+ hook error|"
    r"Permission for this action was denied|Permission to use \S+ (?:with command .* )?has been "
    r"denied|cd to '.*' was blocked)"
)
_NO_SCRIPT = re.compile(
    r"Missing script:|ERR_PNPM_NO_SCRIPT|error Command \"[^\"]+\" not found|No rule to make "
    r"target|No targets specified and no makefile found|Justfile does not contain recipe|"
    r"could not find `Cargo\.toml`|no Go files in|Task '[^']+' not found in"
)
_INNER_MISSING = re.compile(
    r"^(?:\S+: (?:line \d+: |\d+: )?)?([\w.+-]+): (?:command not found|not found|Command not "
    r"found)$|^make(?:\[\d+\])?: ([\w.+-]+): (?:No such file or directory|Command not found)",
    re.M,
)


def clean(text: str) -> str:
    """The output without terminal colours and carriage returns."""
    return _ANSI.sub("", text)


def missing(names: tuple[str, ...], text: str) -> bool:
    """Does the output say one of `names` (a tool, its module, its interpreter) is missing?"""
    for name in names:
        n = re.escape(name)
        short = re.escape(name.rsplit("/", 1)[-1])
        if re.search(
            rf"(?:^|[\s:]){n}: (?:command )?not found|command not found: {short}\b|"
            rf"No module named '?{short}'?(?:$|\s|\.$)|'{short}' is not recognized as an|"
            rf"(?:^|[\s:]){n}: No such file or directory|can't open file '[^']*{short}'|"
            rf"Failed to spawn: `{short}`|no such (?:sub)?command:? [`']?{short}\b|"
            rf"exec: \"?{short}\"?: executable file not found",
            text,
            re.M,
        ):
            return True
    return bool(
        re.search(r"could not determine executable to run|This is not the tsc command", text)
    )


def inner_missing(text: str) -> str:
    """For a runner (`make test`, `npm test`): the program its recipe could not find."""
    match = _INNER_MISSING.search(text)
    return (match.group(1) or match.group(2)) if match else ""


def no_script(text: str) -> bool:
    """A runner told to run a script, target or recipe it does not have."""
    return _NO_SCRIPT.search(text) is not None


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def _each(pattern: str, text: str, flags: int = re.M) -> list[re.Match[str]]:
    return list(re.finditer(pattern, text, flags))


def _pytest(text: str) -> list[Found]:
    out: list[Found] = []
    words = r"passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun"
    for m in _each(rf"^[= ]*((?:\d+ (?:{words})(?:, )?)+) in [\d.]+ ?s(?:econds)?\b.*$", text):
        counts = re.findall(rf"(\d+) ({words})", m.group(1))
        bad = any(w in ("failed", "error", "errors") and int(c) for c, w in counts)
        shown = ", ".join(f"{c} {w}" for c, w in counts if not w.startswith("warning"))
        out.append((m.start(), not bad, shown))
    for m in _each(r"^[= ]*no tests ran in [\d.]+ ?s", text):
        out.append((m.start(), False, "no tests ran"))
    for m in _each(r"^Interrupted: (\d+) errors? during collection", text):
        out.append((m.start(), False, _plural(int(m.group(1)), "error") + " during collection"))
    return out


def _unittest(text: str) -> list[Found]:
    out: list[Found] = []
    pattern = (
        r"^Ran (\d+) tests? in [\d.]+s\s*\n\s*(OK(?: \([^)\n]*\))?|FAILED \([^)\n]*\)|NO TESTS RAN)"
    )
    for m in _each(pattern, text):
        count, word = int(m.group(1)), m.group(2)
        if word.startswith("OK") and count:
            out.append((m.start(), True, f"{_plural(count, 'test')} {word}"))
        elif word.startswith("FAILED"):
            out.append((m.start(), False, f"{_plural(count, 'test')}, {_counts(word)}"))
        else:
            out.append((m.start(), False, "no tests ran"))
    return out


def _counts(word: str) -> str:
    """`FAILED (failures=2, errors=1)` -> `FAILED (failures=2, errors=1)`, numbers only."""
    pairs = re.findall(
        r"(failures|errors|skipped|expected failures|unexpected successes)=(\d+)", word
    )
    return "FAILED (" + ", ".join(f"{k}={v}" for k, v in pairs) + ")"


def _tally(pattern: str, text: str, bad: str, label: str = "") -> list[Found]:
    """Summary lines of `N word` counts (jest, vitest, mocha...): failed when `bad` counts."""
    out: list[Found] = []
    for m in _each(pattern, text):
        counts = re.findall(r"(\d+) (\w+(?: \w+)?)", m.group(1))
        shown = ", ".join(f"{c} {w}" for c, w in counts)
        failed = any(re.fullmatch(bad, w) and int(c) for c, w in counts)
        out.append((m.start(), not failed, label + shown))
    return out


def _jest(text: str) -> list[Found]:
    out = _tally(r"^Tests:\s+(.*\d+ total.*)$", text, "failed", "tests: ")
    out += [(p, ok, f) for p, ok, f in _tally(r"^Test Suites:\s+(.*)$", text, "failed") if not ok]
    out += [(m.start(), False, "no tests found") for m in _each(r"^No tests found", text)]
    return out


def _vitest(text: str) -> list[Found]:
    out = _tally(r"^\s*Tests\s+(\d+ .*\(\d+\))\s*$", text, "failed", "tests: ")
    out += [(p, ok, f) for p, ok, f in _tally(r"^\s*Test Files\s+(.*)$", text, "failed") if not ok]
    out += [(m.start(), False, "no test files found") for m in _each(r"No test files found", text)]
    return out


def _mocha(text: str) -> list[Found]:
    out = [(m.start(), True, f"{m.group(1)} passing") for m in _each(r"^\s*(\d+) passing\b", text)]
    out += [
        (m.start(), int(m.group(1)) == 0, f"{m.group(1)} failing")
        for m in _each(r"^\s*(\d+) failing\b", text)
    ]
    return out


def _runner_lines(text: str) -> list[Found]:
    """playwright, bun and deno test summaries."""
    out = _tally(r"^\s*((?:\d+ (?:passed|failed|flaky)(?: \([^)]*\))?))\s*$", text, "failed")
    out += _tally(r"^\s*(\d+ fail)\s*$", text, "fail")
    out += [(m.start(), True, f"{m.group(1)} pass") for m in _each(r"^\s*(\d+) pass\s*$", text)]
    for m in _each(r"^(ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed", text):
        out.append((m.start(), m.group(1) == "ok", f"{m.group(2)} passed, {m.group(3)} failed"))
    return out


def _cargo(text: str) -> list[Found]:
    out: list[Found] = []
    results = _each(r"test result: (ok|FAILED)\. (\d+) passed; (\d+) failed", text)
    if results:
        passed = sum(int(m.group(2)) for m in results)
        failed = sum(int(m.group(3)) for m in results)
        ok = all(m.group(1) == "ok" for m in results)
        out.append((results[-1].start(), ok, f"{passed} passed, {failed} failed"))
    for m in _each(r"^error(?:\[E\d+\])?: (?!\d+ warnings? emitted)", text):
        out.append((m.start(), False, "compile error"))
    out += [(m.start(), True, "finished") for m in _each(r"^\s*Finished\b", text)][-1:]
    return out


def _go(text: str) -> list[Found]:
    oks = _each(r"^ok\s+\S+\s+(?:[\d.]+s|\(cached\))", text)
    fails = _each(r"^(?:FAIL\s+\S+|--- FAIL: \S+)", text)  # a lone FAIL could be an echo
    out: list[Found] = []
    if oks:
        out.append((oks[-1].start(), True, f"{_plural(len(oks), 'package')} ok"))
    if fails:
        packages = len(_each(r"^FAIL\s+\S+", text)) or 1
        out.append((fails[-1].start(), False, f"{_plural(packages, 'package')} failed"))
    issues = _each(r"^(?:vet: )?\S+\.go:\d+:\d+: ", text)
    if issues and not oks and not fails:
        out.append((issues[-1].start(), False, _plural(len(issues), "finding")))
    return out


def _formatters(text: str) -> list[Found]:
    """black, ruff format, isort and prettier in check mode."""
    out: list[Found] = []
    for m in _each(r"(\d+) files? would be reformatted", text):
        out.append((m.start(), False, f"{m.group(1)} would be reformatted"))
    bad = _each(r"^(?:would reformat|Would reformat:?) ", text)
    if bad:
        out.append((bad[0].start(), False, f"{len(bad)} would be reformatted"))
    for pattern in (
        r"^Oh no! ",
        r"^error: cannot format",
        r"^ERROR: .*(?:incorrectly sorted|would be)",
    ):
        out += [(m.start(), False, "not formatted") for m in _each(pattern, text)][:1]
    for m in _each(
        r"(\d+) files? (?:would be left unchanged|already formatted|left unchanged)", text
    ):
        out.append((m.start(), True, f"{m.group(1)} files formatted"))
    out += [(m.start(), True, "formatted") for m in _each(r"^All matched files use Prettier", text)]
    out += [
        (m.start(), False, "not formatted")
        for m in _each(r"Code style issues (?:were )?found", text)
    ]
    return out


def _ruff(text: str) -> list[Found]:
    out = [(m.start(), True, "all checks passed") for m in _each(r"^All checks passed!", text)]
    pattern = r"^Found (\d+) errors?\.?(?:\s*\((\d+) fixed, (\d+) remaining\)\.?)?\s*$"
    for m in _each(pattern, text):
        left = int(m.group(3)) if m.group(3) else int(m.group(1))
        out.append((m.start(), left == 0, _plural(left, "error")))
    return out


def _mypy(text: str) -> list[Found]:
    out = [
        (m.start(), True, f"no issues in {_plural(int(m.group(1)), 'file')}")
        for m in _each(r"^Success: no issues found in (\d+) source files?", text)
    ]
    for m in _each(r"^Found (\d+) errors? in (\d+) files? \(checked", text):
        out.append((m.start(), False, f"{_plural(int(m.group(1)), 'error')}"))
    return out


def _pyright(text: str) -> list[Found]:
    pattern = r"^\s*(\d+) errors?, (\d+) warnings?, (\d+) (?:informations?|notes?)"
    return [
        (m.start(), m.group(1) == "0", _plural(int(m.group(1)), "error"))
        for m in _each(pattern, text)
    ]


def _eslint(text: str) -> list[Found]:
    pattern = r"✖ (\d+) problems? \((\d+) errors?, (\d+) warnings?\)"
    return [
        (m.start(), m.group(2) == "0", _plural(int(m.group(2)), "error"))
        for m in _each(pattern, text)
    ]


def _tsc(text: str) -> list[Found]:
    errors = _each(r"error TS\d+:", text)
    return [(errors[-1].start(), False, _plural(len(errors), "error"))] if errors else []


def _flake8(text: str) -> list[Found]:
    """flake8, pylint and their kin: one `path:line:col: CODE message` line per finding."""
    lint = _each(r"^\S+?:\d+:\d+: [A-Z]{1,3}\d{1,4}\b", text)
    out: list[Found] = []
    if lint:
        out.append((lint[-1].start(), False, _plural(len(lint), "finding")))
    for m in _each(r"rated at (-?[\d.]+)/10", text):
        out.append((m.start(), float(m.group(1)) >= 10 and not lint, f"rated {m.group(1)}/10"))
    return out


# (passed?, figure, pattern): runners and build tools whose last such line decides.
_NPM_FAILED = (
    r"(?:npm ERR!|npm error) (?:code ELIFECYCLE|Lifecycle script|Test failed)|ELIFECYCLE|"
    r"error Command failed with exit code|ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL"
)
_TOX_FAILED = (
    r"^\s*\S+: (?:FAIL|commands failed)\b|^ERROR:\s+\S+: (?:commands failed|InvocationError)"
)
_SWIFT_OK = r"\*\* (?:TEST|BUILD) SUCCEEDED \*\*|^Build complete!|Test Suite 'All tests' passed"
_WEB_FAILED = r"Failed to compile|Build error occurred|compiled with \d+ errors?|^✘ \[ERROR\]"
_RULES: tuple[tuple[bool, str, str], ...] = (
    (False, "make error", r"make(?:\[\d+\])?: \*\*\* .*Error \d+"),
    (False, "script failed", _NPM_FAILED),
    (True, "all environments ok", r"congratulations :\)"),
    (False, "environment failed", _TOX_FAILED),
    (True, "session successful", r"^nox > Session \S+ was successful"),
    (False, "session failed", r"^nox > Session \S+ failed"),
    (True, "build successful", r"BUILD SUCCESS(?:FUL)?\b"),
    (False, "build failed", r"BUILD FAIL(?:URE|ED)\b"),
    (True, "build succeeded", r"^Build succeeded\."),
    (False, "build failed", r"^Build FAILED\."),
    (True, "tests passed", r"^\s*Passed!\s+-\s+Failed:\s+0\b"),
    (False, "tests failed", r"^\s*Failed!\s+-\s+Failed:\s+\d+"),
    (False, "compilation error", r"== Compilation error|\*\* \((?:CompileError|SyntaxError)\)"),
    (True, "tests OK", r"^OK \(\d+ tests?, \d+ assertions?\)"),
    (False, "tests failed", r"^(?:FAILURES|ERRORS)!$"),
    (True, "succeeded", _SWIFT_OK),
    (False, "failed", r"\*\* (?:TEST|BUILD) FAILED \*\*|Test Suite 'All tests' failed"),
    (True, "build completed", r"Build completed successfully"),
    (False, "build did not complete", r"Build did NOT complete successfully"),
    (True, "built", r"✓ built in|^\s*✓ Compiled successfully|compiled successfully"),
    (False, "build failed", _WEB_FAILED),
)
# (pattern, group of the failures, figure): count lines, failed when the failures are not 0
_COUNTS: tuple[tuple[str, int, str], ...] = (
    (
        r"(?:\d+ doctests?, )?(?:\d+ propert(?:y|ies), )?(\d+) tests?, (\d+) failures?",
        2,
        "{1} tests, {2} failures",
    ),
    (r"(\d+) examples?, (\d+) failures?", 2, "{1} examples, {2} failures"),
    (r"(\d+)% tests passed, (\d+) tests? failed out of (\d+)", 2, "{2} of {3} tests failed"),
    (r"Executed (\d+) tests?, with (\d+) failures?", 2, "{1} tests, {2} failures"),
)


def _builds(text: str) -> list[Found]:
    """Build tools and runners: make, npm, tox, nox, maven, gradle, dotnet, mix, rspec,
    phpunit, swift, bazel, ctest, vite, next, webpack."""
    out: list[Found] = []
    for ok, figure, pattern in _RULES:
        out += [(m.start(), ok, figure) for m in _each(pattern, text)][-1:]
    for pattern, bad, figure in _COUNTS:
        for m in _each(pattern, text)[-1:]:
            shown = figure.format(*([m.group(0), *m.groups()]))
            out.append((m.start(), m.group(bad) == "0", shown))
    return out


Parser = Callable[[str], list[Found]]
ALL: tuple[Parser, ...] = (
    _pytest,
    _unittest,
    _jest,
    _vitest,
    _mocha,
    _runner_lines,
    _cargo,
    _go,
    _formatters,
    _ruff,
    _mypy,
    _pyright,
    _eslint,
    _tsc,
    _flake8,
    _builds,
)
FAMILIES: dict[str, tuple[Parser, ...]] = {
    "pytest": (_pytest,),
    "unittest": (_unittest,),
    "jest": (_jest,),
    "vitest": (_vitest,),
    "mocha": (_mocha,),
    "playwright": (_runner_lines,),
    "bun": (_runner_lines,),
    "deno": (_runner_lines, _tsc),
    "cargo": (_cargo,),
    "go": (_go,),
    **dict.fromkeys(("black", "isort", "prettier"), (_formatters,)),
    "ruff": (_ruff, _formatters),
    "mypy": (_mypy,),
    "pyright": (_pyright,),
    "tsc": (_tsc,),
    "eslint": (_eslint,),
    **dict.fromkeys(("flake8", "pylint"), (_flake8,)),
    **dict.fromkeys(("tox", "nox"), (_builds, _pytest, _unittest)),
    **dict.fromkeys(
        ("mvn", "gradle", "dotnet", "mix", "rspec", "swift", "bazel", "ctest"), (_builds,)
    ),
    "phpunit": (_builds, _jest),
}


def parsers(family: str) -> tuple[Parser, ...]:
    """The summary readers of a family ("any" and unknown families: all of them)."""
    return FAMILIES.get(family, ALL)


def summary(family: str, text: str) -> tuple[bool, str] | None:
    """(passed?, figure) from the tool's own summary lines; None when it printed none.
    Any failing summary decides (a crate or a suite that failed fails the run); else the last."""
    found = sorted(f for parser in parsers(family) for f in parser(text))
    if not found:
        return None
    failing = [f for f in found if not f[1]]
    _pos, ok, figure = failing[-1] if failing else found[-1]
    return ok, figure


def crashed(text: str) -> bool:
    """A Python traceback that ends the output: the tool died before any summary."""
    tail = text.rstrip().rsplit("\n", 3)
    return "Traceback (most recent call last):" in text and bool(
        re.match(r"^\w+(?:\.\w+)*(?:Error|Exception|Interrupt)\b", tail[-1])
    )
