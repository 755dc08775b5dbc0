"""The simple commands of a shell line, and how each is joined to the next (pure; #42).

A Bash call is one line of shell: `cd web && npm test 2>&1 | tail -5; echo "exit=$?"`.
`split` turns it into simple commands (words, redirections dropped) with the operator that
follows each (`|`, `&&`, `||`, `;`), so a caller can tell whose exit status the line
reports. Words come from `shlex` (punctuation-aware); heredoc bodies and line continuations
are taken out first, `bash -c '...'` is opened up in place, and `for`/`case` headers are
skipped (their words are values, not commands). A line `shlex` cannot read (an unclosed
quote) is split on whitespace and operators instead. `unwrap(words)` takes off the wrappers
that only start another command (`env`, `timeout`, `uv run`, `npx`, `docker compose exec`...).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

MAX_CHARS = 20_000  # a longer line is read up to here (a script pasted into `bash -c`)
MAX_DEPTH = 3  # `bash -c` inside `bash -c`...
# Operator runs shlex returns (`)&>`, `2>&1` as `2` `>&` `1`) split into shell operators.
_OPERATOR = re.compile(r"&&|\|\||;;|\|&|&>>|&>|>>|>&|<<<|<<-|<<|<>|>\||<&|[()|;&<>\n]")
_REDIRECT = frozenset({">", ">>", "<", ">&", "<&", "&>", "&>>", "<<<", "<>", ">|", "<<", "<<-"})
_JOINERS = {"|": "|", "|&": "|", "&&": "&&", "||": "||", ";": ";", ";;": ";", "\n": ";", "&": "&"}
_GROUPS = frozenset({"(", ")", "{", "}"})
# Words that open or close a compound command: skipped where a command would start.
_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "time", "esac"}
)
_HEADERS = frozenset({"for", "select", "case"})  # `for x in a b c` up to `;`/`do`: no command
_HEREDOC = re.compile(r"(?<!<)<<-?(?!<)[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1[^\n]*\n")
_FALLBACK = re.compile(r"&&|\|\||[|;&()<>\n]|[^\s|;&()<>]+")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PREFIXES = frozenset(
    {"sudo", "doas", "nohup", "exec", "builtin", "time", "nice", "ionice", "unbuffer"}
    | {"chronic", "caffeinate", "xvfb-run", "stdbuf", "catchsegv"}
)
# Options that take a value, per wrapper or runner (their value is not the command).
VALUED = frozenset(
    {"-u", "-g", "-n", "-s", "-k", "-p", "-C", "-f", "-e", "-w", "-F", "-W", "-X", "-I", "-l"}
    | {"--with", "--with-requirements", "--extra", "--python", "--directory", "--project"}
    | {"--package", "--group", "--only-group", "--env-file", "--from", "--name", "--prefix"}
    | {"--workspace", "--filter", "--dir", "--file", "--makefile", "--user", "--workdir"}
    | {"--env", "--volume", "--entrypoint", "--network", "--project-name", "--signal"}
    | {"--source", "--rcfile", "--data-file", "--omit", "--include", "--cwd"}
)
_RUN_WRAPPERS = frozenset(
    {(pm, sub) for pm in ("npm", "pnpm", "yarn") for sub in ("exec", "dlx", "x")}
    | {(env, "run") for env in ("uv", "poetry", "pipenv", "pdm", "rye", "pixi", "conda", "mamba")}
)


@dataclass(frozen=True)
class Simple:
    """One simple command: its words and the operator after it ("" at the end of the line;
    `&` for one sent to the background)."""

    words: tuple[str, ...]
    joiner: str


def split(line: str, depth: int = 0) -> list[Simple]:
    """The simple commands of `line`, in order."""
    text = _strip_heredocs(line[:MAX_CHARS].replace("\\\n", " "))
    out: list[Simple] = []
    words: list[str] = []
    header = False
    tokens = _tokens(text)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in _REDIRECT:
            if words and words[-1].isdigit():
                words.pop()  # the fd of `2>&1`
            i += 1  # the redirection's target
            continue
        if token in _JOINERS or token in _GROUPS:
            if header and token in ("\n", ";"):
                header = False
            elif words:
                out += _simple(words, _JOINERS.get(token, ";"), depth)
            words = []
            continue
        if header:
            if token == "do":
                header = False
            continue
        if not words and token in _HEADERS:
            header = True
            continue
        if not words and token in _KEYWORDS:
            continue
        words.append(token)
    if words and not header:
        out += _simple(words, "", depth)
    return _last_joiner(out)


def _simple(words: list[str], joiner: str, depth: int) -> list[Simple]:
    """`bash -c 'a && b'` is opened up: its commands, the last one joined as the shell was."""
    if depth < MAX_DEPTH and len(words) >= 3 and words[0].rsplit("/", 1)[-1] in _SHELLS:
        flags = words[1:-1]
        if flags and flags[-1].startswith("-") and "c" in flags[-1]:
            inner = split(words[-1], depth + 1)
            if inner:
                last = inner[-1]
                return [*inner[:-1], Simple(last.words, joiner)]
    return [Simple(tuple(words), joiner)]


def _last_joiner(simples: list[Simple]) -> list[Simple]:
    """A trailing `;` or newline joins nothing: the last command's status is the line's."""
    if simples and simples[-1].joiner in (";", "\n"):
        simples[-1] = Simple(simples[-1].words, "")
    return simples


def _tokens(text: str) -> list[str]:
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
        lexer.whitespace = " \t\r"
        lexer.whitespace_split = True
        raw = list(lexer)
    except ValueError:  # an unclosed quote: whitespace and operators will do
        raw = _FALLBACK.findall(text)
    tokens: list[str] = []
    for token in raw:
        if token and set(token) <= set("();<>|&\n"):
            tokens += _OPERATOR.findall(token)
        else:
            tokens.append(token)
    return tokens


def _strip_heredocs(text: str) -> str:
    """The line without heredoc bodies (a script's text is not a command of the line)."""
    out = []
    pos = 0
    for match in _HEREDOC.finditer(text):
        if match.start() < pos:
            continue
        out.append(text[pos : match.end()])
        end = re.search(rf"(?m)^[ \t]*{re.escape(match.group(2))}[ \t]*$", text[match.end() :])
        pos = match.end() + end.end() if end else len(text)
    out.append(text[pos:])
    return "".join(out)


def unwrap(words: tuple[str, ...]) -> tuple[str, ...]:
    """`words` without the wrappers that only start the command after them."""
    for _ in range(8):
        if not words:
            return words
        exe = words[0].rsplit("/", 1)[-1]
        nxt = words[1] if len(words) > 1 else ""
        if ASSIGN.match(words[0]) or words[0] == "--":
            rest = words[1:]
        elif exe in _PREFIXES or exe == "env":
            rest = options(words[1:])
        elif exe in ("timeout", "gtimeout"):
            rest = options(words[1:])[1:]
        elif exe == "command":
            if nxt in ("-v", "-V"):
                return ()  # a lookup: `command -v black` runs nothing
            rest = words[1:]
        elif exe in ("npx", "bunx", "pnpx", "uvx"):
            rest = options(words[1:])
        elif (exe, nxt) in _RUN_WRAPPERS:
            rest = options(words[2:])
        elif exe == "hatch" and nxt == "run":
            rest = options(words[2:])
            rest = (rest[0].split(":")[-1], *rest[1:]) if rest else rest
        elif exe == "bundle" and nxt == "exec":
            rest = words[2:]
        elif exe == "coverage" and nxt == "run":
            rest = ("python", *_coverage_args(words[2:]))
        elif exe == "docker" and nxt in ("exec", "run", "compose"):
            rest = _docker(words[1:])
        else:
            return words
        words = rest
    return words


def options(words: tuple[str, ...]) -> tuple[str, ...]:
    """`words` from the first one that is no option (nor an option's value, nor `--`)."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        if words[i] == "--":
            return words[i + 1 :]
        i += 2 if words[i] in VALUED else 1
    return words[i:]


def _coverage_args(words: tuple[str, ...]) -> tuple[str, ...]:
    """`coverage run [options] -m pytest ...` -> `-m pytest ...` (what python would get)."""
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "-m":
        i += 2 if words[i] in VALUED else 1
    return words[i:]


def _docker(words: tuple[str, ...]) -> tuple[str, ...]:
    if words[0] == "compose":
        words = options(words[1:])
        if not words or words[0] not in ("exec", "run"):
            return ()
    rest = options(words[1:])
    return rest[1:]  # the container, service or image
