"""The summary lines each check tool prints, read into (passed?, figure) (pure; #42).

One reader per family of tools (`FAMILIES`; "any", a runner of other tools, reads with
all of them): pytest, unittest, jest, vitest, mocha, playwright/bun/deno, cargo (tests,
builds), go (tests, builds and vet), mix (tests, compile, credo, dialyzer), formatters in
check mode, ruff, mypy, pyright, eslint, tsc, flake8/pylint, and build tools and runners.
A reader returns every summary it finds as (position, passed?, figure); a figure is made of
the summary's numbers and fixed words only, never other text of the output.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Found = tuple[int, bool, str]  # (position in the output, passed?, figure)
_FAIL_FILE = r"^\s*FAIL\s+(\S+\.(?:test|spec)\.[cm]?[jt]sx?)\b"


def plural(count: int, word: str) -> str:
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
        out.append((m.start(), False, plural(int(m.group(1)), "error") + " during collection"))
    return out


def _unittest(text: str) -> list[Found]:
    out: list[Found] = []
    pattern = (
        r"^Ran (\d+) tests? in [\d.]+s\s*\n\s*(OK(?: \([^)\n]*\))?|FAILED \([^)\n]*\)|NO TESTS RAN)"
    )
    for m in _each(pattern, text):
        count, word = int(m.group(1)), m.group(2)
        if word.startswith("OK") and count:
            out.append((m.start(), True, f"{plural(count, 'test')} {word}"))
        elif word.startswith("FAILED"):
            out.append((m.start(), False, f"{plural(count, 'test')}, {_counts(word)}"))
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
    return out + _failing_files(text)


def _failing_files(text: str) -> list[Found]:
    """jest's and vitest's own line for a test file that failed (`FAIL  src/a.test.ts`), and
    vitest's mark of a failed test (a multiplication sign, `\u00d7 name`): what is left when
    a grep cut the summary."""
    files = {m.group(1) for m in _each(_FAIL_FILE, text)}
    marks = _each(r"^\s*[\u00d7\u2717] \S", text)
    out: list[Found] = []
    if files:
        out.append(
            (_each(_FAIL_FILE, text)[-1].start(), False, plural(len(files), "failing test file"))
        )
    if marks and not files:
        out.append((marks[-1].start(), False, plural(len(marks), "failing test")))
    return out


def _vitest(text: str) -> list[Found]:
    out = _tally(r"^\s*Tests\s+(\d+ .*\(\d+\))\s*$", text, "failed", "tests: ")
    out += [(p, ok, f) for p, ok, f in _tally(r"^\s*Test Files\s+(.*)$", text, "failed") if not ok]
    out += [(m.start(), False, "no test files found") for m in _each(r"No test files found", text)]
    return out + _failing_files(text)


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
    """cargo test (and nextest, llvm-cov): test results summed over the crates."""
    out: list[Found] = []
    results = _each(r"test result: (ok|FAILED)\. (\d+) passed; (\d+) failed", text)
    if results:
        passed = sum(int(m.group(2)) for m in results)
        failed = sum(int(m.group(3)) for m in results)
        ok = all(m.group(1) == "ok" for m in results)
        out.append((results[-1].start(), ok, f"{passed} passed, {failed} failed"))
    return out + _rust_errors(text)


def _cargo_build(text: str) -> list[Found]:
    """cargo build, check and clippy: compile errors, else `Finished`."""
    done = [(m.start(), True, "finished") for m in _each(r"^\s*Finished\b", text)]
    return done[-1:] + _rust_errors(text)


def _rust_errors(text: str) -> list[Found]:
    return [
        (m.start(), False, "compile error")
        for m in _each(r"^error(?:\[E\d+\])?: (?!\d+ warnings? emitted)", text)
    ]


def _go(text: str) -> list[Found]:
    """go test: `ok pkg 0.1s` and `FAIL pkg` lines."""
    oks = _each(r"^ok\s+\S+\s+(?:[\d.]+s|\(cached\))", text)
    fails = _each(r"^(?:FAIL\t\S+|--- FAIL: \S+)", text)  # jest's `FAIL path` has no tab
    out: list[Found] = []
    if oks:
        out.append((oks[-1].start(), True, f"{plural(len(oks), 'package')} ok"))
    if fails:
        packages = len(_each(r"^FAIL\t\S+", text)) or 1
        out.append((fails[-1].start(), False, f"{plural(packages, 'package')} failed"))
    return out


def _go_build(text: str) -> list[Found]:
    """go build and vet: one `file.go:line:col: message` line per finding."""
    issues = _each(r"^(?:vet: )?\S+\.go:\d+:\d+: ", text)
    return [(issues[-1].start(), False, plural(len(issues), "finding"))] if issues else []


def _mix_test(text: str) -> list[Found]:
    pattern = r"(?:\d+ doctests?, )?(?:\d+ propert(?:y|ies), )?(\d+) tests?, (\d+) failures?"
    return [
        (m.start(), m.group(2) == "0", f"{m.group(1)} tests, {m.group(2)} failures")
        for m in _each(pattern, text)[-1:]
    ]


def _mix_compile(text: str) -> list[Found]:
    pattern = r"== Compilation error|\*\* \((?:CompileError|SyntaxError)\)"
    return [(m.start(), False, "compilation error") for m in _each(pattern, text)[:1]]


def _credo(text: str) -> list[Found]:
    out: list[Found] = []
    for m in _each(r"mods/funs, found (.+?)\.?$", text)[-1:]:
        count = sum(int(n) for n in re.findall(r"\d+", m.group(1)))
        out.append((m.start(), count == 0, plural(count, "issue") if count else "no issues"))
    return out


def _dialyzer(text: str) -> list[Found]:
    out: list[Found] = []
    for m in _each(r"^done \((passed successfully|warnings were emitted)\)", text)[-1:]:
        out.append((m.start(), m.group(1).startswith("passed"), m.group(1)))
    for m in _each(r"^Total errors: (\d+)", text)[-1:]:
        out.append((m.start(), m.group(1) == "0", plural(int(m.group(1)), "error")))
    short = _each(r"^\S+\.exs?:\d+(?::\d+)?:[a-z_]+(?:\s|$)", text)  # `--format short`
    if short:
        out.append((short[-1].start(), False, plural(len(short), "warning")))
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
        out.append((m.start(), left == 0, plural(left, "error")))
    return out


def _mypy(text: str) -> list[Found]:
    out = [
        (m.start(), True, f"no issues in {plural(int(m.group(1)), 'file')}")
        for m in _each(r"^Success: no issues found in (\d+) source files?", text)
    ]
    for m in _each(r"^Found (\d+) errors? in (\d+) files? \(checked", text):
        out.append((m.start(), False, f"{plural(int(m.group(1)), 'error')}"))
    return out


def _pyright(text: str) -> list[Found]:
    pattern = r"^\s*(\d+) errors?, (\d+) warnings?, (\d+) (?:informations?|notes?)"
    return [
        (m.start(), m.group(1) == "0", plural(int(m.group(1)), "error"))
        for m in _each(pattern, text)
    ]


def _eslint(text: str) -> list[Found]:
    pattern = r"✖ (\d+) problems? \((\d+) errors?, (\d+) warnings?\)"
    return [
        (m.start(), m.group(2) == "0", plural(int(m.group(2)), "error"))
        for m in _each(pattern, text)
    ]


def _tsc(text: str) -> list[Found]:
    errors = _each(r"error TS\d+:", text)
    return [(errors[-1].start(), False, plural(len(errors), "error"))] if errors else []


def _flake8(text: str) -> list[Found]:
    """flake8, pylint and their kin: one `path:line:col: CODE message` line per finding."""
    lint = _each(r"^\S+?:\d+:\d+: [A-Z]{1,3}\d{1,4}\b", text)
    out: list[Found] = []
    if lint:
        out.append((lint[-1].start(), False, plural(len(lint), "finding")))
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
    _cargo_build,
    _go,
    _go_build,
    _mix_test,
    _mix_compile,
    _credo,
    _dialyzer,
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
    "cargo-build": (_cargo_build,),
    "go": (_go,),
    "go-build": (_go_build,),
    "mix": (_mix_test,),
    "mix-compile": (_mix_compile,),
    "credo": (_credo,),
    "dialyzer": (_dialyzer,),
    "quiet": (),  # prints nothing of its own when it passes (mix format --check-formatted)
    **dict.fromkeys(("black", "isort", "prettier"), (_formatters,)),
    "ruff": (_ruff, _formatters),
    "mypy": (_mypy,),
    "pyright": (_pyright,),
    "tsc": (_tsc,),
    "eslint": (_eslint,),
    **dict.fromkeys(("flake8", "pylint"), (_flake8,)),
    **dict.fromkeys(("tox", "nox"), (_builds, _pytest, _unittest)),
    **dict.fromkeys(("mvn", "gradle", "dotnet", "rspec", "swift", "bazel", "ctest"), (_builds,)),
    "phpunit": (_builds, _jest),
}
