"""Every command README and docs/ quote resolves; every script path they name exists (#40.3).

- A quoted `python bench/x.py --opt`, `bash install.sh`, `pytest tests/...`: the file exists,
  and each `--option` of a Python script is one its source defines.
- A quoted `ccstate SUB [SUB] --opt` (also `python -m ccstate ...`): the subcommand and each
  option exist, by click introspection of the real command tree.
- Every path under bench/ or scripts/ the documents name exists.

"Quoted" is Markdown code: inline spans (also across lines of a paragraph), fenced blocks
(except those marked as output: text, json, yaml, markdown) and indented lines that start with
a command. The first tests feed the checker a dangling quote of each kind, so it can fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import click
import pytest

from ccstate.cli import cli, load_all_commands
from helpers import REPO

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
