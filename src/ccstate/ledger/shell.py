"""Shell reads: `cat F`, `cat -n F`, `nl F`, `head [-n N] F`, `tail [-n N] F` and
`sed -n 'A[,B]p' F` of one file are reads, and join the read ledger (docs/LEDGER.md "Shell
reads"). In auto and bypass modes Claude Code tells the model to read files this way.

`parse_command` accepts a command only when it is certain what it prints: one command, one
file, no pipe, redirection, glob, variable or substitution. `read_event` then checks the
command's output against the file's text, line by line, and returns the lines it delivered
as a ReadEvent (the same record a Read makes), or None. Standard library only; the hook
imports it for every Bash command, so the rest of the ledger is imported only for a shell read.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.ledger.records import Options, ReadEvent

_SHELL_META = set("|&;<>`$(){}*?[]~!\\\n#")
_PRINTERS = frozenset({"cat", "nl", "head", "tail", "sed"})
# Patterns, compiled (by `re`, imported) only for a command that starts like a shell read:
# every other Bash call imports this module and must not pay for `re` (#14).
_COUNT = r"\A\+?\d+\Z"
_SED = r"\A(\d+)(?:,(\d+|\$))?p\Z"
_GUTTER = r"\A *\d+\t"
MAX_FILE_BYTES = 2 << 20  # larger files are not checked, so their reads are not recorded


class Target:
    """What a shell read prints: `tool` ("cat", "cat -n", "nl", "head", "tail", "sed") of
    `path`, from line `first` to `last` (None: to the end). For `tail`, `first` counts back
    from the end (`tail -n 5`: 5), unless `plus` (`tail -n +5`: from line 5)."""

    __slots__ = ("first", "last", "path", "plus", "tool")

    def __init__(
        self, tool: str, path: str, first: int = 1, last: int | None = None, plus: bool = False
    ) -> None:
        self.tool = tool
        self.path = path
        self.first = first
        self.last = last
        self.plus = plus

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Target({self.tool!r}, {self.path!r}, {self.first}, {self.last}, {self.plus})"


def starts_like_a_read(command: str) -> bool:
    """Does the command start with a printer (`cat`, `sed`, ...)? Only then can it be a shell
    read; every other command is left to the digests."""
    words = command.split(None, 1)
    return bool(words) and words[0] in _PRINTERS


def parse_command(command: str, cwd: str, home: str = "") -> Target | None:
    """The Target of a command that only prints (part of) one file, else None."""
    if not starts_like_a_read(command):
        return None
    if home and " ~/" in command and command.count("~") == 1:
        command = command.replace(" ~/", " " + home.rstrip("/") + "/")
    unquoted = "".join(command.split("'")[::2])  # single-quoted text is literal
    if any(ch in _SHELL_META for ch in unquoted):
        return None
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 2 or words[-1].startswith("-"):
        return None
    from ccstate.ledger.core import normpath

    tool, opts, path = words[0], words[1:-1], normpath(words[-1], cwd)
    if tool == "cat":
        return Target("cat -n" if opts == ["-n"] else "cat", path) if opts in ([], ["-n"]) else None
    if tool == "nl":
        return Target("nl", path) if not opts else None
    if tool in ("head", "tail"):
        return _head_tail(tool, opts, path)
    if tool == "sed" and len(opts) == 2 and opts[0] == "-n":
        return _sed(opts[1], path)
    return None


def _head_tail(tool: str, opts: list[str], path: str) -> Target | None:
    value = _count_option(opts)
    if value is None or not _matches(_COUNT, value):
        return None
    count = int(value.lstrip("+"))
    if tool == "head":
        return Target("head", path, 1, count) if count > 0 and value[0] != "+" else None
    if value.startswith("+"):
        return Target("tail", path, max(count, 1), None, plus=True)
    return Target("tail", path, count) if count > 0 else None


def _count_option(opts: list[str]) -> str | None:
    """The N of `-n N`, `-nN`, `-N` or `--lines=N` (10 when there is none)."""
    if not opts:
        return "10"
    if len(opts) == 2 and opts[0] == "-n":
        return opts[1]
    if len(opts) != 1 or not opts[0].startswith("-"):
        return None
    option = opts[0]
    for prefix in ("--lines=", "-n", "-"):
        if option.startswith(prefix):
            return option[len(prefix) :]
    return None


def _matches(pattern: str, text: str) -> bool:
    import re  # shlex, which parse_command used before, imported it already

    return re.match(pattern, text) is not None


def _sed(script: str, path: str) -> Target | None:
    import re

    match = re.match(_SED, script.replace(" ", ""))
    if match is None:
        return None
    first, last = int(match.group(1)), match.group(2)
    end = None if last == "$" else int(last) if last else first
    if first < 1 or (end is not None and end < first):
        return None
    return Target("sed", path, first, end)


# --------------------------------------------------------------------------- what it printed


def read_event(
    target: Target, output: str, text: str, tool_use_id: str = "", command: str = ""
) -> ReadEvent | None:
    """The lines of `text` (the file) that `output` (what the model was shown) delivered, as a
    ReadEvent; None unless the output is exactly what the command prints of that text.

    Claude Code drops leading empty lines and trailing whitespace from a command's output, so
    that much is allowed to differ. The event covers the printed lines with the file's own
    numbering (`split("\\n")`, as Read counts: a final newline adds an empty last line) and
    the Read-style range key ("offset:limit"), so Reads and shell reads answer each other.
    """
    lines = text.split("\n")
    real = len(lines) - 1 if text.endswith("\n") else len(lines)
    span = _span(target, real)
    if span is None:
        return None
    start, end = span
    shown = lines[start - 1 : end]
    if not _printed(target.tool, shown, start, output):
        return None
    if end == real and real < len(lines):
        shown, end = lines[start - 1 :], len(lines)  # the final newline's empty line
    content = "\n".join(shown)
    from ccstate.ledger.core import sha256
    from ccstate.ledger.records import ReadEvent

    return ReadEvent(
        target.path,
        _args(target, start),
        start,
        content,
        len(lines),
        tool_use_id,
        "",
        tuple(shown),
        sha256(content),
        command,
    )


def _args(target: Target, start: int) -> str:
    """The range asked for, as a Read's "offset:limit": `cat F` is "1:", as a whole-file Read;
    `head -n 20 F` "1:20"; `sed -n '5,9p' F` "5:5"; `tail` asks from its first line on."""
    if target.last is None or target.tool == "tail":
        return f"{start}:"
    return f"{start}:{target.last - target.first + 1}"


def options(opts: Options) -> Options:
    """A shell read's options: a notice for an identical repeat, else the output as it is
    (a Bash result has no line numbers to show unseen lines by, nor a place for a diff)."""
    from ccstate.ledger.records import Options

    return Options(
        enabled=opts.enabled,
        identical=opts.identical,
        unseen_ranges=False,
        diff=False,
        diff_max_ratio=opts.diff_max_ratio,
        min_saved_chars=opts.min_saved_chars,
    )


def replay_event(
    target: Target, output: str, tool_use_id: str = "", command: str = ""
) -> ReadEvent | None:
    """For `ccstate replay`, where the file is gone: the output itself as the delivered lines,
    at the lines the command names (None for `tail -n N`, whose first line depends on the
    file's length, and for gutters that do not parse)."""
    if target.tool == "tail" and not target.plus:
        return None
    rows = output.split("\n")
    if target.tool in ("cat -n", "nl"):
        import re

        gutter = re.compile(_GUTTER)
        stripped = [gutter.sub("", r, count=1) if gutter.match(r) else "" for r in rows]
        if any(not gutter.match(r) and r.strip() for r in rows):
            return None
        rows = stripped
    if not output.strip():
        return None
    if target.last is not None and len(rows) > target.last - target.first + 1:
        return None
    content = "\n".join(rows)
    start = target.first
    from ccstate.ledger.core import sha256
    from ccstate.ledger.records import ReadEvent

    return ReadEvent(
        target.path,
        _args(target, start),
        start,
        content,
        start + len(rows) - 1,
        tool_use_id,
        "",
        tuple(rows),
        sha256(content),
        command,
    )


def _span(target: Target, real: int) -> tuple[int, int] | None:
    if target.tool == "tail" and not target.plus:
        start, end = max(1, real - target.first + 1), real
    else:
        start = target.first
        end = real if target.last is None else min(target.last, real)
    return (start, end) if 1 <= start <= end else None


def _printed(tool: str, shown: list[str], start: int, output: str) -> bool:
    """Whether `output` is what `tool` prints for these file lines, as Claude Code relays it
    (leading empty lines and trailing whitespace dropped). `nl` numbers non-empty lines only,
    and implementations space an empty one differently: there only emptiness is compared."""
    if tool == "cat -n":
        printed = [f"{n:6d}\t{line}" for n, line in enumerate(shown, start)]
    elif tool == "nl":
        printed, n = [], 0
        for line in shown:
            n += 1 if line else 0
            printed.append(f"{n:6d}\t{line}" if line else "")
    else:
        printed = shown
    want, got = _trimmed(printed), _trimmed(output.split("\n"))
    if len(want) != len(got):
        return False
    if tool != "nl":
        return want == got
    return all(w == g or not (w.strip() or g.strip()) for w, g in zip(want, got, strict=True))


def _trimmed(lines: list[str]) -> list[str]:
    """Without blank lines at either end, the last one without trailing whitespace."""
    first, last = 0, len(lines)
    while first < last and not lines[first].strip():
        first += 1
    while last > first and not lines[last - 1].strip():
        last -= 1
    out = lines[first:last]
    if out:
        out[-1] = out[-1].rstrip()
    return out


def read_file_text(path: str) -> str | None:
    """The file's text when it is small enough to check and UTF-8; else None."""
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return None
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
