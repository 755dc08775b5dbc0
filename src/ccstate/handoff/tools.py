"""Which simple commands run a test, build, lint or type tool, and which tool (pure; #42).

`find_runs(simples)` looks at each simple command of a line (`commands.split`) through the
wrappers that only start another program (`env`, `timeout`, `uv run`, `poetry run`, `npx`,
`pnpm exec`, `coverage run`, `docker compose exec`, `python -m`...) and names the tool:
pytest, unittest, tox, nox, black/isort/ruff/prettier in check mode, flake8, pylint, mypy,
pyright, tsc, eslint, jest, vitest, mocha, playwright, cargo test/build/check/clippy, go
test/build/vet, make and just targets, npm/pnpm/yarn/bun scripts, gradle, maven, dotnet,
mix, rspec, phpunit, swift, bazel, ctest and a `run_tests.sh`-like script. A lookup
(`command -v black`, `which`), a version or help query, a formatter that rewrites files, a
dry run and a listing of tests run nothing and are not checks.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ccstate.handoff.commands import ASSIGN, Simple, options, unwrap

Spec = tuple[str, str]  # (family: the summaries it prints, outcomes.py; kind)
TEST, BUILD, LINT, TYPE = "test", "build", "lint", "type"
DIRECT: dict[str, Spec] = {
    **dict.fromkeys(("pytest", "py.test"), ("pytest", TEST)),
    "tox": ("tox", TEST),
    "nox": ("nox", TEST),
    **dict.fromkeys(("flake8", "pyflakes", "pycodestyle", "pydocstyle"), ("flake8", LINT)),
    "pylint": ("pylint", LINT),
    "mypy": ("mypy", TYPE),
    **dict.fromkeys(("pyright", "basedpyright"), ("pyright", TYPE)),
    "black": ("black", LINT),
    "isort": ("isort", LINT),
    "ruff": ("ruff", LINT),
    "jest": ("jest", TEST),
    "vitest": ("vitest", TEST),
    "mocha": ("mocha", TEST),
    "playwright": ("playwright", TEST),
    "cypress": ("any", TEST),
    **dict.fromkeys(("tsc", "vue-tsc"), ("tsc", TYPE)),
    "svelte-check": ("any", TYPE),
    "eslint": ("eslint", LINT),
    "prettier": ("prettier", LINT),
    "biome": ("any", LINT),
    **dict.fromkeys(("stylelint", "oxlint", "shellcheck", "hadolint", "yamllint"), ("any", LINT)),
    **dict.fromkeys(("actionlint", "markdownlint", "markdownlint-cli2"), ("any", LINT)),
    **dict.fromkeys(("golangci-lint", "staticcheck"), ("go", LINT)),
    "rspec": ("rspec", TEST),
    **dict.fromkeys(("phpunit", "pest"), ("phpunit", TEST)),
    "ctest": ("ctest", TEST),
    "ninja": ("any", BUILD),
    **dict.fromkeys(
        ("gcc", "g++", "clang", "clang++", "cc", "c++", "rustc", "javac"), ("any", BUILD)
    ),
    **dict.fromkeys(("vite", "next", "webpack", "rollup", "tsup", "esbuild"), ("any", BUILD)),
}
# A tool that checks only in some modes: one of these words must be there (black rewrites
# files without --check), or its subcommand must be one of them (`playwright test`).
NEEDS: dict[str, frozenset[str]] = {
    "black": frozenset({"--check", "--diff"}),
    "isort": frozenset({"--check-only", "--check", "-c", "--diff"}),
    "prettier": frozenset({"--check", "-c", "--list-different", "-l"}),
    "playwright": frozenset({"test"}),
    "cypress": frozenset({"run"}),
    "biome": frozenset({"check", "lint", "ci"}),
    "golangci-lint": frozenset({"run"}),
    "vite": frozenset({"build"}),
    "next": frozenset({"build"}),
}
SUBCOMMANDS: dict[str, tuple[str, dict[str, str]]] = {
    "cargo": (
        "cargo",
        {"test": TEST, "t": TEST, "nextest": TEST, "llvm-cov": TEST, "tarpaulin": TEST}
        | {"build": BUILD, "b": BUILD}
        | {"check": TYPE, "c": TYPE, "clippy": LINT, "fmt": LINT},
    ),
    "go": ("go", {"test": TEST, "build": BUILD, "vet": LINT}),
    "dotnet": ("dotnet", {"test": TEST, "build": BUILD}),
    "mix": (
        "mix",
        {"test": TEST, "compile": BUILD, "credo": LINT, "dialyzer": TYPE} | {"format": LINT},
    ),
    "swift": ("swift", {"test": TEST, "build": BUILD}),
    **dict.fromkeys(("bazel", "bazelisk"), ("bazel", {"test": TEST, "build": BUILD})),
    "deno": ("deno", {"test": TEST, "check": TYPE, "lint": LINT}),
    **dict.fromkeys(
        ("meson", "zig", "stack", "cabal", "dune"),
        ("any", {"test": TEST, "build": BUILD, "compile": BUILD}),
    ),
    "rake": ("any", {"test": TEST, "spec": TEST}),
    "rails": ("any", {"test": TEST}),
    "hatch": ("any", {"test": TEST}),
    "pre-commit": ("any", {"run": LINT}),
    "ruff": ("ruff", {"check": LINT, "format": LINT}),
    "bun": ("bun", {"test": TEST, "build": BUILD}),
}
# Subcommands whose output is another tool's: their own summary readers (outcomes.py).
SUB_FAMILY = {
    **dict.fromkeys((("cargo", "build"), ("cargo", "check"), ("cargo", "clippy")), "cargo-build"),
    **dict.fromkeys((("go", "build"), ("go", "vet")), "go-build"),
    ("mix", "compile"): "mix-compile",
    ("mix", "credo"): "credo",
    ("mix", "dialyzer"): "dialyzer",
    ("mix", "format"): "quiet",
}
SUB_NEEDS = {("cargo", "fmt"): {"--check"}, ("mix", "format"): {"--check-formatted"}}
SUB_NEEDS[("ruff", "format")] = {"--check", "--diff"}
PY_MODULES: dict[str, Spec] = {
    **{name: spec for name, spec in DIRECT.items() if name.isidentifier()},
    "unittest": ("unittest", TEST),
    "nose2": ("unittest", TEST),
    "doctest": ("unittest", TEST),
    "build": ("any", BUILD),
    "py_compile": ("any", BUILD),
    "compileall": ("any", BUILD),
}
NOT_A_RUN = frozenset(
    {"--version", "--help", "-h", "--collect-only", "--co", "--listTests", "--list-tests"}
    | {"--dry-run", "--showConfig", "--print-config", "--init", "--fixtures", "--markers"}
)
_LISTING = {"tox": {"-l", "--listenvs", "-a"}, "nox": {"-l", "--list"}, "make": {"-n", "-p"}}
_PYTHON = re.compile(r"^(?:python|pypy)(?:\d+(?:\.\d+)*)?$|^py$")
CHECK_WORD = re.compile(
    r"(?i)test|spec|e2e|lint|check|build|compile|tsc|typ|verify|valid|^ci$|^ci[:-]|^all$"
    r"|vet|clippy|mypy|ruff|flake8|eslint|pyright|coverage|^cov"
)
SCRIPT_FILE = re.compile(
    r"^(?:run[_-]?)?tests?(?:[_-]\w+)?\.(?:py|sh)$|^test_\w+\.py$|^\w+_test\.py$"
    r"|^(?:check|lint|build|ci|runtests)(?:[_-]\w+)?\.sh$|^runtests\.py$"
)
_MAKE_VALUED = frozenset({"-C", "-f", "--file", "--makefile", "--directory", "-l", "-o", "-W"})
_RUNNER_VALUED = {  # a runner's options that take a value
    "make": _MAKE_VALUED | {"-I"},
    "just": frozenset({"-f", "--justfile", "-d", "--working-directory"}),
    "npm": frozenset({"--prefix", "-w", "--workspace", "-C"}),
    "pnpm": frozenset({"--filter", "-F", "-C", "--dir", "--workspace-dir"}),
    "yarn": frozenset({"--cwd"}),
    "gradle": frozenset({"-p", "--project-dir", "-x", "--exclude-task"}),
    "mvn": frozenset({"-pl", "--projects", "-f", "--file", "-P", "-T", "-s"}),
}
_RUFF_OTHER = frozenset({"rule", "clean", "server", "config", "linter", "version", "analyze"})
_PM_BUILTINS = frozenset(
    {"install", "i", "add", "remove", "rm", "uninstall", "update", "upgrade", "up", "outdated"}
    | {"why", "list", "ls", "audit", "init", "create", "publish", "pack", "link", "unlink"}
    | {"config", "cache", "info", "view", "exec", "dlx", "x", "ci", "dedupe", "store", "env"}
    | {"start", "dev", "serve", "version", "help", "login", "whoami", "import", "rebuild"}
)


@dataclass(frozen=True)
class Run:
    """One run of a check tool in a line: `tool` as shown ("pytest", "make test", "npm run
    build"); `family`: the summaries it prints (outcomes.py, "any" for a runner of other
    tools); `names`: what a "not installed" message calls it; `target`: the paths or test
    ids it was pointed at ("" = its default); `index`: its place in the line's commands."""

    tool: str
    family: str
    kind: str
    names: tuple[str, ...]
    target: str
    index: int


def find_runs(simples: list[Simple]) -> list[Run]:
    """The check runs among `simples`, in order."""
    runs = []
    for index, simple in enumerate(simples):
        run = identify(simple.words, index)
        if run is not None:
            runs.append(run)
    return runs


def identify(words: tuple[str, ...], index: int = 0) -> Run | None:
    """The check `words` run, or None (not a check, or only a lookup, a query, a rewrite)."""
    words = unwrap(words)
    if not words or NOT_A_RUN.intersection(words) or words[1:] == ("-V",):
        return None
    typed, exe = words[0], _base(words[0])
    if exe in _LISTING and _LISTING[exe].intersection(words):
        return None
    if _PYTHON.match(exe):
        return _python(words, index)
    if exe in ("node", "php", "ruby", "bash", "sh", "zsh") and len(words) > 1:
        return _interpreted(words, index)
    names = tuple(dict.fromkeys((typed, exe)))
    if exe in SUBCOMMANDS and (
        exe != "ruff" or _first_positional(words[1:]) in ("check", "format")
    ):
        return _subcommand(exe, words, names, index)
    if exe in DIRECT:
        return _direct(exe, words, names, index)
    if exe in ("make", "gmake", "just"):
        return _targets(exe if exe != "gmake" else "make", words[1:], names, index)
    if exe in ("npm", "pnpm", "yarn", "composer") or (exe == "deno" and "task" in words):
        return _script(exe, words[1:], names, index)
    if exe in ("gradle", "gradlew", "mvn", "mvnw", "turbo", "nx"):
        return _tasks(exe, words[1:], names, index)
    if exe == "cmake" and "--build" in words:
        return Run("cmake --build", "any", BUILD, names, "", index)
    if exe == "xcodebuild":
        return Run("xcodebuild", "swift", TEST if "test" in words else BUILD, names, "", index)
    if SCRIPT_FILE.match(exe) and "/" in typed:
        return Run(typed, "any", _kind(exe), names, _target(words[1:]), index)
    return None


def _python(words: tuple[str, ...], index: int) -> Run | None:
    i = 1
    while i < len(words) and words[i].startswith("-") and words[i] != "-m":
        if words[i] == "-c":
            return None  # inline code
        i += 2 if words[i] in ("-W", "-X") else 1
    if i >= len(words):
        return None
    if words[i] == "-m" and i + 1 < len(words):
        module, args = words[i + 1], words[i + 2 :]
        if module == "coverage" and args[:1] == ("run",):
            return identify(("coverage", *args), index)
        if module in DIRECT or (module in SUBCOMMANDS and module != "hatch"):
            run = identify((module, *args), index)
            return dataclasses.replace(run, names=(module, words[0])) if run else None
        if module in PY_MODULES and _allowed(module, args):
            family, kind = PY_MODULES[module]
            return Run(module, family, kind, (module, words[0]), _target(args), index)
        return None
    script = words[i]
    if _base(script) == "manage.py" and words[i + 1 : i + 2] == ("test",):
        return Run("manage.py test", "unittest", TEST, (script,), _target(words[i + 2 :]), index)
    if SCRIPT_FILE.match(_base(script)):
        return Run(script, "any", _kind(_base(script)), (script,), _target(words[i + 1 :]), index)
    return None


def _interpreted(words: tuple[str, ...], index: int) -> Run | None:
    """`node node_modules/.bin/jest`, `php vendor/bin/phpunit`, `bash run_tests.sh`."""
    if _base(words[0]) in ("bash", "sh", "zsh") and words[1:2] == ("-n",) and len(words) > 2:
        return Run(f"{_base(words[0])} -n", "any", LINT, names_of(words), words[2], index)
    args = options(words[1:])
    if not args:
        return None
    script = _base(args[0])
    if script in DIRECT and _allowed(script, args[1:]):
        family, kind = DIRECT[script]
        return Run(script, family, kind, (args[0], script), _target(args[1:]), index)
    if _base(words[0]) == "php" and args[:2] == ("artisan", "test"):
        return Run("artisan test", "phpunit", TEST, ("artisan",), _target(args[2:]), index)
    if SCRIPT_FILE.match(script):
        return Run(args[0], "any", _kind(script), (args[0],), _target(args[1:]), index)
    return None


def names_of(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((words[0], _base(words[0]))))


def _direct(exe: str, words: tuple[str, ...], names: tuple[str, ...], index: int) -> Run | None:
    if not _allowed(exe, words[1:]):
        return None
    if exe == "ruff" and _first_positional(words[1:]) in _RUFF_OTHER:
        return None
    family, kind = DIRECT[exe]
    return Run(exe, family, kind, names, _target(words[1:]), index)


def _allowed(exe: str, args: tuple[str, ...]) -> bool:
    need = NEEDS.get(exe)
    if need is None:
        return exe != "vitest" or "bench" not in args
    return bool(need.intersection(args)) or any(a.startswith("--check") for a in args)


def _subcommand(exe: str, words: tuple[str, ...], names: tuple[str, ...], index: int) -> Run | None:
    family, subs = SUBCOMMANDS[exe]
    args = options(words[1:])
    sub = args[0] if args else ""
    if (exe == "deno" and sub == "task") or (exe == "bun" and sub == "run"):
        return _script(exe, args, names, index)
    if sub not in subs:
        return None
    if (exe, sub) in SUB_NEEDS and not SUB_NEEDS[(exe, sub)].intersection(words):
        return None
    if exe == "cargo" and sub == "nextest" and args[1:2] != ("run",):
        return None
    full = {"t": "test", "b": "build", "c": "check"}.get(sub, sub) if exe == "cargo" else sub
    family = SUB_FAMILY.get((exe, full), family)
    return Run(f"{exe} {full}", family, subs[sub], names, _target(args[1:]), index)


def _targets(exe: str, args: tuple[str, ...], names: tuple[str, ...], index: int) -> Run | None:
    """`make [target...]`, `just [recipe]`: the default target builds; named ones must look
    like a check (`make install` and `make run` are not)."""
    targets = [w for w in _options_all(args, exe) if not ASSIGN.match(w)]
    if exe == "just":
        targets = targets[:1]
    if not targets:
        return Run(exe, "any", BUILD, names, "", index)
    if not any(CHECK_WORD.search(t) for t in targets):
        return None
    shown = " ".join(targets)
    return Run(f"{exe} {shown}", "any", _kind(shown), names, "", index)


def _script(exe: str, args: tuple[str, ...], names: tuple[str, ...], index: int) -> Run | None:
    """A package script: `npm test`, `npm run build`, `pnpm lint`, `yarn workspace w test`."""
    words = list(_options_all(args, exe))
    if exe == "yarn" and words[:1] == ["workspace"]:
        words = words[2:]
    if not words:
        return None
    first = words[0]
    if exe in ("pnpm", "yarn") and first in DIRECT:  # `pnpm tsc --noEmit`: the binary
        return identify(args[args.index(first) :], index)
    if first in ("exec", "dlx", "x") and exe != "composer":  # `pnpm --filter w exec tsc`
        return identify(args[args.index(first) + 1 :], index)
    if first in ("run", "run-script", "task"):
        script = words[1] if len(words) > 1 else ""
    elif first in ("test", "t", "tst"):
        script = "test"
    elif exe in ("pnpm", "yarn", "composer") and first not in _PM_BUILTINS:
        script = first
    else:
        return None
    if not script or not CHECK_WORD.search(script):
        return None
    shown = f"{exe} test" if script == "test" and exe != "deno" else f"{exe} run {script}"
    if exe == "deno":
        shown = f"deno task {script}"
    return Run(shown, "any", _kind(script), names, "", index)


def _tasks(exe: str, args: tuple[str, ...], names: tuple[str, ...], index: int) -> Run | None:
    """Gradle tasks, Maven goals, turbo and nx targets that look like a check."""
    words = [w.split(":")[-1] if exe == "nx" else w for w in _options_all(args, exe)]
    tasks = [w for w in words if CHECK_WORD.search(w) or w in ("install", "package", "assemble")]
    if not tasks:
        return None
    tool = {"gradlew": "gradle", "mvnw": "mvn"}.get(exe, exe)
    family = {"gradle": "gradle", "mvn": "mvn"}.get(tool, "any")
    shown = " ".join(dict.fromkeys(tasks))
    return Run(f"{tool} {shown}", family, _kind(shown), names, "", index)


def _options_all(args: tuple[str, ...], exe: str) -> tuple[str, ...]:
    """The words of `args` that are no option nor an option's value (a runner's options:
    `make -C dir -j 4`, `npm --prefix web -s`, `mvn -pl mod`)."""
    valued = _RUNNER_VALUED.get({"gradlew": "gradle", "mvnw": "mvn"}.get(exe, exe), frozenset())
    out, i = [], 0
    while i < len(args):
        word = args[i]
        if word == "--":
            break
        if word.startswith("-"):
            counted = word == "-j" and args[i + 1 : i + 2] and args[i + 1].isdigit()
            i += 2 if word in valued or counted else 1
            continue
        out.append(word)
        i += 1
    return tuple(out)


def _kind(name: str) -> str:
    lowered = name.lower()
    for kind, pattern in ((TEST, "test|spec|e2e|cov"), (TYPE, "typ|tsc|mypy|pyright")):
        if re.search(pattern, lowered):
            return kind
    if re.search("lint|check|fmt|format|vet|clippy|ruff|flake8|eslint", lowered):
        return LINT
    return BUILD if re.search("build|compile|all", lowered) else TEST


def _target(args: tuple[str, ...]) -> str:
    """What a run was pointed at: paths and test ids, and test selections (`-k expr`)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("-k", "-m", "-run", "--grep", "-t", "--testNamePattern", "--package"):
            if i + 1 < len(args):
                out.append(f"{word} {args[i + 1]}")
            i += 2
            continue
        looks = "/" in word or ".py::" in word or re.search(r"\.\w+$", word) is not None
        if not word.startswith("-") and looks and word not in (".", "./", "./..."):
            out.append(word)
        i += 1
    return " ".join(dict.fromkeys(out))


def _first_positional(args: tuple[str, ...]) -> str:
    rest = options(args)
    return rest[0] if rest else ""


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]
