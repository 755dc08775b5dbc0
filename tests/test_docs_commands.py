"""Every command README and docs/ quote resolves, and every script says what it is for (#40.3).

- A quoted `python bench/x.py --opt`, `bash install.sh`, `pytest tests/...`: the file exists,
  and each `--option` of a Python script is one its source defines.
- A quoted `ccstate SUB [SUB] --opt` (also `python -m ccstate ...`): the subcommand and each
  option exist, by click introspection of the real command tree.
- Every path under bench/ or scripts/ the documents name exists (`<commit>:path` names a file
  of that commit: a deleted probe); so does every one a comment in src/ or hooks/ names.
- Every script (bench/, scripts/, install.sh, .ci/run) starts with a docstring (a shell script:
  its comment block) naming a document that names the script back, and is in
  docs/ARCHITECTURE.md's table of scripts: what each makes, where it is quoted, what runs it.
- Every name a Python script takes from ccstate exists: scripts run by hand, so a name src/
  moves would otherwise break them unseen (bench/decision_tokens.py, from dc5fbd5 to f783172).

"Quoted" is Markdown code: inline spans (also across lines of a paragraph), fenced blocks
(except those marked as output: text, json, yaml, markdown) and indented lines that start with
a command. The first tests feed the checker a dangling quote of each kind, so it can fail.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType

import click
import pytest

from ccstate.cli import cli, load_all_commands
from helpers import REPO

ARCHITECTURE = REPO / "docs" / "ARCHITECTURE.md"
DOCUMENTS = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", *(REPO / "docs").rglob("*.md")])
# Handoffs ccstate wrote for other projects, shown as examples: the paths are theirs.
FOREIGN = {"handoff-example-spotter.md", "handoff-example-rust-port.md"}
# Fenced blocks marked with these languages hold output or data, never a command to run.
OUTPUT_FENCES = {"text", "json", "yaml", "markdown", "toml", "diff"}
FENCE = re.compile(r"^\s*(```|~~~)\s*([\w-]*)")
SPAN = re.compile(r"(`+)(.+?)\1")
# Where a command starts within a quote: its start, or after a shell operator or `$(`.
SPLIT = re.compile(r"&&|\|\||;|(?<=\s)\|(?=\s)|\$\(|[()]")
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
PYTHON = re.compile(r"""^["']?(\S*/)?python3?(\.\d+)?["']?$|^["']?\$\{?python\}?["']?$""")
# Paths the quotes may name that live in this repository (anything else may be an output,
# a placeholder or outside the checkout: ../shared, /tmp, ~).
REPO_PATH = re.compile(r"^(bench|scripts|tests|docs|src|hooks)/\S*[\w*]$")
DOC_NAME = re.compile(r"(?<![\w/.-])(README(?:\.md)?|CONTRIBUTING\.md|(?:docs|tests)/[\w/.-]+\.md)")
SCRIPT_PATH = re.compile(r"(?<![\w./:-])((?:bench|scripts)/[\w./-]*\w\.(?:py|sh|json))(?![\w/])")


# -- where the documents quote code ---------------------------------------------------------


def quotes(text: str) -> Iterator[tuple[int, str]]:
    """(line number, quoted text): inline spans, fenced lines, indented command lines."""
    paragraph: list[tuple[int, str]] = []
    fence: str | None = None

    def flush() -> Iterator[tuple[int, str]]:
        if paragraph:
            joined = " ".join(line.strip() for _, line in paragraph)
            for match in SPAN.finditer(joined):
                yield paragraph[0][0], match.group(2).strip()
            paragraph.clear()

    for number, line in enumerate(text.splitlines(), 1):
        marker = FENCE.match(line)
        if fence is not None:
            if marker and not marker.group(2):
                fence = None
            elif fence not in OUTPUT_FENCES:
                yield number, line.strip()
            continue
        if marker:
            yield from flush()
            fence = marker.group(2)
            continue
        if line.startswith("    ") and starts_a_command(line.strip()):
            yield number, line.strip()
            continue
        if not line.strip() or line.lstrip().startswith("|"):
            yield from flush()
            if line.strip():  # a table row: its own paragraph
                paragraph.append((number, line))
                yield from flush()
            continue
        paragraph.append((number, line))
    yield from flush()


def starts_a_command(text: str) -> bool:
    first = text.lstrip("$ ").split(maxsplit=1)[:1]
    return bool(first) and (
        first[0] in {"ccstate", "bash", "pytest"} or bool(PYTHON.match(first[0]))
    )


def commands(quote: str) -> Iterator[list[str]]:
    """The commands in a quote, as tokens, shell comments and leading assignments dropped."""
    quote = re.sub(r"(^|\s)#\s.*$", "", quote)
    for part in SPLIT.split(quote):
        tokens = part.split()
        while tokens and (
            ENV_ASSIGNMENT.match(tokens[0]) or tokens[0] in {"$", "time", "exec", "env"}
        ):
            tokens.pop(0)
        if tokens:
            yield tokens


# -- what a command must resolve to ---------------------------------------------------------


def check_command(tokens: list[str], root: Path) -> list[str]:
    """Why `tokens` does not resolve in the tree at `root` (empty: it does)."""
    head, rest = tokens[0].strip("\"'"), tokens[1:]
    if head == "ccstate":
        return check_ccstate(rest)
    if PYTHON.match(tokens[0]):
        return check_python(rest, root)
    if head in {"bash", "sh"}:
        if not rest or rest[0] in {"-c"}:
            return []
        rest = [t for t in rest if t not in {"-n", "-x", "-e"}]
        return check_paths(rest[:1], root, always=True) + check_paths(rest[1:], root)
    if head == "pytest" or head.endswith("/bin/pytest"):
        return check_paths(rest, root)
    if head.startswith("./") and head.endswith(".sh"):
        return check_paths([head[2:]], root, always=True)
    return []


def check_python(args: list[str], root: Path) -> list[str]:
    while args and args[0] in {"-X", "-S", "-I", "-u", "-B", "-O", "-E", "-s"}:
        args = args[2:] if args[0] == "-X" else args[1:]
    if not args or args[0] == "-c":
        return []
    if args[0] == "-m":
        module = args[1] if len(args) > 1 else ""
        if module == "ccstate":
            return check_ccstate(args[2:])
        if module == "pytest":
            return check_paths(args[2:], root)
        return []
    script = args[0].replace("${CLAUDE_PLUGIN_ROOT}/", "").strip("\"'")
    if not script.endswith(".py") or script.startswith(("/", "~", "..", "$", "<")):
        return []
    if not (root / script).is_file():
        return [f"no such script: {script}"]
    source = (root / script).read_text(encoding="utf-8")
    return [
        f"{script} has no option {option}"
        for option in long_options(args[1:])
        if f'"{option}"' not in source and f"'{option}'" not in source
    ] + check_paths(args[1:], root)


def check_paths(args: list[str], root: Path, *, always: bool = False) -> list[str]:
    """Arguments naming a file of this repository (or any, with `always`) must exist."""
    problems = []
    for arg in args:
        path = arg.strip("\"',").split("::")[0]
        if (always or REPO_PATH.match(path)) and "*" not in path and not (root / path).exists():
            problems.append(f"no such file: {path}")
    return problems


def long_options(args: list[str]) -> list[str]:
    found = []
    for arg in args:
        for alternative in arg.strip("[](){}\"',").split("|"):
            match = re.match(r"^(--?[A-Za-z][\w-]*)", alternative.strip("[](){}\\"))
            if match and match.group(1).startswith("--"):
                found.append(match.group(1))
    return found


def check_ccstate(args: list[str]) -> list[str]:
    """Walk the click tree: each word a group is given names a subcommand; options exist."""
    command: click.Command = ccstate_tree()
    path, value_next = ["ccstate"], False
    for arg in args:
        clean = arg.strip("[](){}\"',.:;")
        if value_next or not clean or clean.startswith("<") or clean.isupper() or clean == "...":
            value_next = False
            continue
        options = [o for alt in clean.split("|") if (o := option_name(alt))]
        if options:
            known = option_names(command)
            bad = [o for o in options if o not in known]
            if bad:
                return [f"`{' '.join(path)}` has no option {', '.join(bad)}"]
            value_next = "=" not in clean and any(known[o] for o in options)
        elif isinstance(command, click.Group):
            if clean not in command.commands:
                return [f"`{' '.join(path)}` has no subcommand {clean}"]
            command = command.commands[clean]
            path.append(clean)
    return []


def option_name(token: str) -> str | None:
    match = re.match(r"^(--?[A-Za-z][\w-]*)", token.strip("\\"))
    return match.group(1) if match else None


def option_names(command: click.Command) -> dict[str, bool]:
    """Each option of `command` -> whether it takes a value."""
    names = {"-h": False, "--help": False}
    for param in command.params:
        if isinstance(param, click.Option):
            takes = not (param.is_flag or param.count)
            names.update({name: takes for name in [*param.opts, *param.secondary_opts]})
    return names


@cache
def ccstate_tree() -> click.Group:
    load_all_commands()
    return cli


def problems_in(text: str, root: Path, *, foreign: bool = False) -> list[str]:
    """What does not resolve in a document; `foreign`: its paths are another project's."""
    found = []
    for number, quote in quotes(text):
        for tokens in commands(quote):
            if foreign and tokens[0] != "ccstate":
                continue
            found += [f"{number}: `{quote}`: {why}" for why in check_command(tokens, root)]
    for number, line in enumerate(text.splitlines() if not foreign else [], 1):
        for match in SCRIPT_PATH.finditer(line):
            if not (root / match.group(1)).exists():
                found.append(f"{number}: no such file: {match.group(1)}")
    return found


# -- the checker can fail -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Run `python bench/nope.py --rounds 3`.", "no such script: bench/nope.py"),
        ("`python bench/ab.py --no-such-flag`", "bench/ab.py has no option --no-such-flag"),
        ("`bash scripts/nope.sh`", "no such file: scripts/nope.sh"),
        ("```\nbash install.sh\npytest tests/nope.py -q\n```", "no such file: tests/nope.py"),
        ("`ccstate nope`", "`ccstate` has no subcommand nope"),
        ("`ccstate report --no-such`", "`ccstate report` has no option --no-such"),
        ("`ccstate init [--dry-run|--nope]`", "`ccstate init` has no option --nope"),
        ("`ccstate handoff nope`", "`ccstate handoff` has no subcommand nope"),
        ("`python -m ccstate decisions lint --nope`", "`ccstate decisions lint` has no option"),
        ("a quote across\nlines: `python\nbench/nope.py`", "no such script: bench/nope.py"),
        ("`x=$(bash scripts/nope.sh --venv)`", "no such file: scripts/nope.sh"),
        ("the table's row: `scripts/gone.py`", "no such file: scripts/gone.py"),
    ],
)
def test_a_dangling_quote_is_reported(text: str, problem: str) -> None:
    assert any(problem in found for found in problems_in(text, REPO)), problems_in(text, REPO)


@pytest.mark.parametrize(
    "text",
    [
        "`bash install.sh --uninstall` then `bash scripts/test.sh tests/ledger -x`",
        '`python bench/recall_eval.py --model "$(bash scripts/test.sh --venv)/m" --set old`',
        "`ccstate init [--dry-run] [--force] [--remove] [-C DIR]`",
        "`ccstate statusline [--color auto\\|always\\|never]`, `ccstate decisions --all --json`",
        '`ccstate recall "QUESTION" --no-update`, `ccstate handoff note TEXT`, `ccstate --version`',
        "```text\nccstate hook benchmark\n```",
        "`python -c pass`, `python -m ccstate.hooks PostToolUse`, `/ccstate:recall`",
        "a deleted probe: `git show 3d58b1b:scripts/probe_compaction.py`",
    ],
)
def test_a_resolving_quote_is_not_reported(text: str) -> None:
    assert problems_in(text, REPO) == []


# -- the documents --------------------------------------------------------------------------


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_quoted_command_resolves(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    assert problems_in(text, REPO, foreign=document.name in FOREIGN) == []


SOURCES = sorted(p for p in [*(REPO / "src").rglob("*.py"), *(REPO / "hooks").rglob("*.py")])


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_script_a_source_comment_names_exists(source: Path) -> None:
    # A comment citing where a constant was measured is a pointer too: when a script moves
    # (scripts/ to bench/, #40.3) or is deleted, the comment must follow it.
    lines = source.read_text(encoding="utf-8").splitlines()
    missing = [
        f"{number}: no such file: {match.group(1)}"
        for number, line in enumerate(lines, 1)
        for match in SCRIPT_PATH.finditer(line)
        if not (REPO / match.group(1)).exists()
    ]
    assert missing == []


# -- the scripts ----------------------------------------------------------------------------


def scripts() -> list[Path]:
    """Every script of the repository: bench/, scripts/ (any depth), install.sh, .ci/run."""
    found = [*(REPO / "bench").rglob("*.py"), *(REPO / "scripts").rglob("*.py")]
    found += [*(REPO / "scripts").rglob("*.sh"), REPO / "install.sh", REPO / ".ci" / "run"]
    return sorted(p for p in found if "__pycache__" not in p.parts)


SCRIPTS = scripts()


def header(path: Path) -> str:
    """A Python script's docstring, a shell script's leading comment block."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return ast.get_docstring(ast.parse(text)) or ""
    lines = text.splitlines()[1:] if text.startswith("#!") else text.splitlines()
    block = []
    for line in lines:
        if not line.startswith("#"):
            break
        block.append(line.lstrip("# "))
    return "\n".join(block)


def named_documents(text: str) -> set[Path]:
    return {REPO / ("README.md" if m.startswith("README") else m) for m in DOC_NAME.findall(text)}


def ccstate_uses(tree: ast.Module) -> Iterator[tuple[int, str, str | None]]:
    """(line, module, name or None): each ccstate module a script imports, each name it takes
    from one (`from ccstate.x import y`, and `alias.y` for an alias it never rebinds)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "ccstate":
                    yield node.lineno, alias.name, None
                    aliases[alias.asname or ""] = alias.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "ccstate":
            for alias in node.names:
                yield node.lineno, str(node.module), alias.name
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for name in rebound(tree):
        aliases.pop(name, None)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            yield node.lineno, aliases[node.value.id], node.attr


def rebound(tree: ast.Module) -> set[str]:
    """Names a script assigns or takes as a parameter: not only the module it imported."""
    names = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    return names | {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}


def resolves(module: str, name: str | None) -> bool:
    """`module` (or a name in a module: `ccstate.secrets.clues.Prefilter`) has `name`."""
    try:
        found: object = importlib.import_module(module)
    except ImportError:
        parent, _, attr = module.rpartition(".")
        try:
            found = getattr(importlib.import_module(parent), attr)
        except (ImportError, AttributeError):
            return False
    if name is None or hasattr(found, name):
        return True
    package = isinstance(found, ModuleType) and hasattr(found, "__path__")
    return package and importlib.util.find_spec(f"{module}.{name}") is not None


def test_a_script_using_a_name_ccstate_no_longer_has_is_reported() -> None:
    """What bench/decision_tokens.py did from dc5fbd5 on: an AttributeError when run."""
    tree = ast.parse("from ccstate.decisions import log as decisions\ndecisions.capsule_lines(1)")
    uses = list(ccstate_uses(tree))
    assert (2, "ccstate.decisions.log", "capsule_lines") in uses
    assert not resolves("ccstate.decisions.log", "capsule_lines")
    assert resolves("ccstate.decisions.capsule", "capsule_lines")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_script_names_a_document_that_names_it(script: Path) -> None:
    relative = str(script.relative_to(REPO))
    text = header(script)
    assert text, f"{relative} has no docstring (what it makes, which document quotes it)"
    named = named_documents(text)
    assert named, f"{relative}'s docstring names no document (README.md, docs/X.md)"
    back = [d for d in named if d.is_file() and relative in d.read_text(encoding="utf-8")]
    assert back, (
        f"{relative} names {sorted(str(d.relative_to(REPO)) for d in named)}: none names it"
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_script_is_in_the_architecture_table(script: Path) -> None:
    assert f"`{script.relative_to(REPO)}`" in ARCHITECTURE.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "script", [p for p in SCRIPTS if p.suffix == ".py"], ids=lambda p: str(p.relative_to(REPO))
)
def test_every_ccstate_name_a_script_uses_exists(script: Path) -> None:
    """Scripts run by hand: a name src/ moved or renamed breaks them here first, not on the
    next maintainer's run."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    missing = [
        f"line {line}: {module}" + (f" has no {name}" if name else " is gone")
        for line, module, name in ccstate_uses(tree)
        if not resolves(module, name)
    ]
    assert missing == []
