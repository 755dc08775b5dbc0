"""Output lines as a digest sees them: terminal codes removed, each line given a class.

The classes were read off real tool output: the Bash, Grep and MCP results of the public
transcripts (vitest, jest, npm, eslint, mix, cargo, go, uv/pip, git, docker) and the published
filters of RTK and Headroom, then checked against our own fixtures (tests/fixtures/outputs).

    error    a failure, error, exception, traceback, panic or assertion line: never dropped
    summary  test counts, build results, exit status, section banners: never dropped
    pass     a passing or skipped test ("✓ ...", "test x ... ok", "PASSED", "--- PASS")
    noise    progress and chatter: Compiling, Downloading, Installing, progress bars
    warning  a warning line (collapsed only with others of its shape)
    frame    a stack frame ("at f (x.js:1:2)", 'File "x.py", line 3')
    blank    empty or spaces only
    other    anything else

Pure and standard library only (the PostToolUse hook imports it); `re` is already loaded
by `json`.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# CSI sequences (colours, cursor moves), OSC sequences (titles, links), other 2-byte escapes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

_PASS_PARTS = (
    r"^\s*(?:[✓✔√]|PASS\b|ok\b|--- (?:PASS|SKIP):|=== (?:RUN|PAUSE|CONT|NAME)\b)",
    r"\.\.\.\s*(?:ok|passed|PASSED|ignored)\s*$",
    r"\sPASSED\s*(?:\[\s*\d+%\])?\s*$",
    r"^\s*[↓○⊘]\s",
    r"^\s*\S+\.py\s+[.sxX]+\s*(?:\[\s*\d+%\])?\s*$",
    r"^\s*\.+\s*$",  # ExUnit, RSpec, minitest: a dot per passing test
)
# Each rule's parts are run only where they can match (`_is_pass`, `_is_summary`...): the parts
# that start with `^` once at the line's start (`match`: a search would try every position of a
# long line), the others only when the line holds what they need (those compiled when first
# needed, through `re`'s cache: the hook imports this module to digest one output). The same
# verdicts as the whole pattern's `search` (tests/outputs/test_lines.py compares them).
_PASS_START = re.compile("|".join(_PASS_PARTS[i] for i in (0, 3, 4, 5)))
_PASS_ENDS = ("ok", "passed", "PASSED", "ignored")
_SUMMARY_PARTS = (  # case-insensitive
    r"\b\d+ (?:passed|failed|failing|passing|skipped|pending|errors?|warnings?|problems?"
    r"|tests?|examples?|failures?|xfailed|xpassed|deselected|todo|assertions?)\b",
    r"^\s*(?:Tests?|Test Suites|Test Files|Suites|Snapshots|Time|Duration|Ran)\b:?\s+\d",
    r"^\s*test result:",
    r"\bBUILD (?:SUCCESS|SUCCESSFUL|FAILED|FAILURE)\b|\bBuild (?:succeeded|failed)\b",
    r"^\s*(?:Finished|Done in|Completed in|Compiled successfully|Ran \d+ tests?)\b",
    r"^\s*(?:exit(?: code| status)?:?\s*-?\d+|Exit code -?\d+)\s*$",
    r"^\s*(?:[=_-]{3,}|\*{3,}) ?\S.*\S ?(?:[=_-]{3,}|\*{3,})\s*$",
    r"^\s*(?:added|removed|changed|audited|up to date)\b.*\bpackages?\b",
    r"^\s*\d+ files? changed\b",
)
_SUMMARY_START = re.compile("|".join(_SUMMARY_PARTS[i] for i in (1, 2, 4, 5, 6, 7, 8)), re.I)
# what a count needs in the lower-cased line (the space, found fast, then a digit before it)
_SUMMARY_COUNT_CLUE = re.compile(
    r" (?<=\d )(?:passed|failed|failing|passing|skipped|pending|error|warning|problem|test"
    r"|example|failure|xfailed|xpassed|deselected|todo|assertion)"
)
# Error words count only as words: not inside a path or a file name ("api-errors.ts",
# "error_handler", "src/errors/x", "lib\\errors\\x"), where a word is only a name. (A
# backslash after a word is an escape: `not found\\n` in JSON text still counts.)
_ERROR_WORD = (
    r"\b(?<![/\\.\-])(?:errors?|err!|exception|traceback|panic|panicked|fatal|fail|failed"
    r"|failure|failures|failing|assert|assertion|assertionerror|segmentation fault|core dumped"
    r"|aborted|abort|denied|refused|unhandled|uncaught|undefined reference|cannot find"
    r"|could not|unable to|no such file|not found|timed out)(?![\w/\-]|\.\w)"
)
_MARKS = "✗✘\u00d7✖❌\u2a2f"
_ERROR_MARK = rf"^\s*(?:[{_MARKS}]|E\s{{3}}|\d+\) test\b)"  # ballot and cross marks
_ERROR_WORD_AT = re.compile(_ERROR_WORD, re.IGNORECASE)
_ERROR_MARK_AT_START = re.compile(_ERROR_MARK, re.IGNORECASE)
# CamelCase exception names count ("TypeError", "java.lang.IllegalStateException: x"), but
# not as a path's part or a file's name ("src/errors/ValidationError.ts").
_EXCEPTION = re.compile(r"\b(?<![/\\\-])[A-Z][A-Za-z]*(?:Error|Exception)(?![\w/\-]|\.\w)")
_WARNING = re.compile(r"\b(?:warning|warn|deprecated|deprecation)\b", re.IGNORECASE)
# Progress and chatter: a line's first word (after its indent) is one of these...
_NOISE_WORDS = frozenset(
    [
        "Compiling",
        "Compiled",
        "Checking",
        "Downloading",
        "Downloaded",
        "Fetching",
        "Fetched",
        "Installing",
        "Installed",
        "Building",
        "Built",
        "Resolving",
        "Resolved",
        "Unpacking",
        "Collecting",
        "Preparing",
        "Processing",
        "Generated",
        "Updating",
        "Updated",
        "Fresh",
        "Blocking",
        "Locking",
        "Adding",
        "Removing",
        "Linking",
        "Extracting",
        "Pulling",
        "Waiting",
        "Verifying",
        "Copying",
        "Writing",
        "Bundling",
        "Transforming",
        "Analyzing",
        "Optimizing",
        "Retrieving",
        "Getting",
        "Unchanged",
        "Skipping",
        "Loading",
        "Cloning",
        "Uploading",
        "Caching",
        "Restoring",
        "Prepared",
        "Uninstalled",
        "Audited",
        "remote:",
        "Enumerating",
    ]
)
# ... or the line has one of these shapes.
_NOISE_PARTS = (
    r"^\s*(?:Using cached|Requirement already satisfied|Counting objects|Compressing objects"
    r"|Receiving objects|Resolving deltas|go: (?:downloading|finding|extracting)"
    r"|\* (?:Getting|Updating|Fetching))\b",
    r"^==> \S+\s*$",
    r"^#\d+ (?:\[|sha256:|extracting|resolve|transferring|DONE|CACHED|\d+\.\d+s)",
    r"^\s*(?:Step \d+/\d+|---> )",
    r"^ (?:create|delete) mode \d{6} ",
    r"^[0-9a-f]{12}: (?:Pulling|Waiting|Verifying|Download|Pull|Already)",
    r"^\s*[+~-] [\w.-]+==\S+\s*(?:\(.*\))?$",
    r"\d{1,3}(?:\.\d)?%.*(?:[█▉▊▋▌▍▎▏░▒▓#=>]{4,}|\(\d+/\d+\))",  # a progress bar
    r"(?:[█▉▊▋▌▍▎▏░▒▓#=>]{4,}|\(\d+/\d+\)).*\d{1,3}(?:\.\d)?%",
)
_NOISE_START = re.compile("|".join(_NOISE_PARTS[:7]))
_NOISE_PERCENT = "|".join(_NOISE_PARTS[7:])
_FRAME = re.compile(
    r'^\s+(?:at \S|File ".+", line \d+|from \S+:\d+|\d+: 0x[0-9a-f]+|\S+\.go:\d+)'
    r"|^\s*\(?\S+:\d+:\d+\)?\s*$"
)
_UUID = r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b"
# A diagnostic's gutter: ` 264 │   code`, `     │`, `  |`, `2 |     let x`, `└─ lib/a.ex:3:5`.
_GUTTER = re.compile(r"^\s*(?:\d+\s+[│|┃]|[│|┃]\s*$|[│┃]\s|[└╰]─)")
GUTTER_CHARS = re.compile(r"[│|┃└╰]")  # a line without any of these is no gutter line
# Numbers and hashes, as `shape` stands them in:
_HEX = _UUID + r"|\b(?=[0-9a-f]*\d)[0-9a-f]{7,}\b|\b\d+\b|\d+"
# ... and the pattern `shape` runs: `_HEX` with the first character of every match taken first,
# the same matches, but Python's `re` then skips the positions that cannot start one (a pattern
# that starts with `\b` is tried at every position): 2-3x faster. tests/outputs/test_lines.py
# compares the two.
_HEX_QUICK = re.compile(
    r"[\da-fA-F]"
    r"(?:(?<=\b[0-9a-fA-F])[0-9a-fA-F]{7}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b"  # _UUID
    r"|(?<=\b[0-9a-f])(?:(?<=\d)|(?=[0-9a-f]*\d))[0-9a-f]{6,}\b"
    r"|(?<=\b\d)\d*\b"
    r"|(?<=\d)\d*)"
)
# What changes between two runs of one command, not between the items it reports on: ids
# (UUIDs, hashes), dates, clock times, durations. `parts` stands them in; other numbers stay
# (a count, a size or a version is data).
_VOLATILE = re.compile(
    _UUID + r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b"
    r"|\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)?\b"
    r"|\b\d{1,2}:\d\d(?::\d\d)?(?:[.,]\d+)?\b"
    r"|\b\d+(?:[.,]\d+)?(?:ms|s|µs|us|ns|sec|secs|min|m|h)\b"
)
_QUOTED = re.compile(r"'[^'\n]{0,80}'|\"[^\"\n]{0,80}\"|`[^`\n]{0,80}`")


def normalize(text: str) -> list[str]:
    """The lines a terminal would end up showing: escape codes removed, a `\\r` redraw keeps
    what was drawn last (a progress bar's final state; an overwritten failure line stays,
    before it), Windows line ends removed."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    lines = text.split("\n")
    if "\r" not in text:
        return lines
    out = []
    for line in lines:
        line = line.rstrip("\r")
        if "\r" in line:
            line = _last_redraw(line)
        out.append(line)
    return out


def _last_redraw(line: str) -> str:
    """What a line redrawn with `\\r` ends up showing: its last frame; a frame before it that
    is a failure line (an error a progress bar then drew over) is kept too, before it, joined
    with " \u21b5 " (a digest keeps every failure line; the model read them all)."""
    parts = [p for p in line.split("\r") if p]
    if not parts:
        return ""
    last = parts[-1]
    if len(parts) == 1 or not _may_fail(line):
        return last
    failed = [p for p in parts[:-1] if is_failure_line(p) and p.strip() != last.strip()]
    return " \u21b5 ".join(dict.fromkeys([*failed, last])) if failed else last


def _may_fail(line: str) -> bool:
    """Whether any part of the line could be a failure line: it holds a failure word, an
    exception name or a cross mark (a look at the whole line, before the frames one by one)."""
    return bool(
        _words_in((line,))
        or "Error" in line
        or "Exception" in line
        or any(mark in line for mark in _MARKS)
        or "E   " in line
        or ") test" in line
    )


def classify(line: str) -> str:
    """The line's class (see the module docstring); the first rule that matches wins."""
    return _classify(line, _FAILURE_WORDS)


def classify_all(lines: Sequence[str]) -> list[str]:
    """`[classify(line) for line in lines]`: the error words looked for in a line only when
    the text of the lines that are neither blank nor passing tests holds them."""
    out: list[str] = []
    rest: list[int] = []
    for i, line in enumerate(lines):
        if not line.strip():
            out.append("blank")
        elif _is_pass(line):
            out.append("pass")
        else:
            out.append("")
            rest.append(i)
    words = _words_in([lines[i] for i in rest])
    for i in rest:
        out[i] = _after_pass(lines[i], words)
    return out


def _classify(line: str, words: tuple[str, ...]) -> str:
    if not line.strip():
        return "blank"
    if _is_pass(line):
        return "pass"
    return _after_pass(line, words)


def _after_pass(line: str, words: tuple[str, ...]) -> str:
    """The class of a line that is neither blank nor a passing test."""
    low = _lowered(line)
    if _is_summary(line, low):
        return "summary"
    if _is_error(line, low, words):
        return "error"
    if (low is None or "warn" in low or "deprecat" in low) and _WARNING.search(line):
        return "warning"
    if line.split(None, 1)[0] in _NOISE_WORDS or _is_noise(line):
        return "noise"
    if _FRAME.match(line):  # every part starts with `^`
        return "frame"
    return "other"


def is_failure_line(line: str) -> bool:
    """A line a digest must keep: it names an error, failure, exception, panic or assertion,
    and is not a passing test whose name happens to contain such a word. `ccstate replay`'s
    safety check uses this too."""
    return _is_error(line, _lowered(line), _FAILURE_WORDS) and not _is_pass(line)


def failure_lines(lines: Sequence[str]) -> list[str]:
    """`[line for line in lines if is_failure_line(line)]`, the way `classify_all` goes."""
    words = _words_in(lines)
    return [line for line in lines if _is_error(line, _lowered(line), words) and not _is_pass(line)]


# Non-ASCII characters `re.IGNORECASE` matches with an ASCII letter while `str.lower` leaves
# them be (`secrets.needs.FOLDS_TO_ASCII`, checked there against every code point): in a line
# holding one, what the lower-cased line holds says nothing, and the patterns run as they are.
_FOLDS_TO_ASCII = "\u212a\u017f\u0130\u0131"
# Every word `_ERROR_WORD` names starts with one of these.
_FAILURE_WORDS = (
    "err",
    "exception",
    "traceback",
    "panic",
    "fatal",
    "fail",
    "assert",
    "segmentation fault",
    "core dumped",
    "abort",
    "denied",
    "refused",
    "unhandled",
    "uncaught",
    "undefined reference",
    "cannot find",
    "could not",
    "unable to",
    "no such file",
    "not found",
    "timed out",
)


def _words_in(lines: Sequence[str]) -> tuple[str, ...]:
    """The `_FAILURE_WORDS` the lower-cased text holds: a line can hold no other."""
    low = "\n".join(lines).lower()
    return tuple(word for word in _FAILURE_WORDS if word in low)


def _lowered(line: str) -> str | None:
    """The line lower-cased, or None where that is not exact for the patterns' letters."""
    if line.isascii() or not any(c in line for c in _FOLDS_TO_ASCII):
        return line.lower()
    return None


def _is_pass(line: str) -> bool:
    """`_PASS_PARTS` match the line: a long line costs a look at its start and its end."""
    return bool(
        _PASS_START.match(line)
        or ("PASSED" in line and re.search(_PASS_PARTS[2], line))
        or (line.rstrip().endswith(_PASS_ENDS) and re.search(_PASS_PARTS[1], line))
    )


def _is_summary(line: str, low: str | None) -> bool:
    """`_SUMMARY_PARTS` match the line (`low`: the line lower-cased, None if not exact)."""
    if _SUMMARY_START.match(line):
        return True
    count, build = _SUMMARY_PARTS[0], _SUMMARY_PARTS[3]
    if low is None:
        return bool(re.search(count, line, re.I) or re.search(build, line, re.I))
    if _SUMMARY_COUNT_CLUE.search(low) and re.search(count, line, re.I):
        return True
    return "build " in low and re.search(build, line, re.I) is not None


def _is_error(line: str, low: str | None, words: tuple[str, ...]) -> bool:
    """`_ERROR_WORD`, `_ERROR_MARK` or `_EXCEPTION` matches the line: the words tried only
    where the lower-cased line holds one of `words` (`_FAILURE_WORDS`, or those of them its
    text holds), exception names only where it holds "Error" or "Exception" (every match
    does)."""
    if _ERROR_MARK_AT_START.match(line):
        return True
    if low is None:
        return bool(_ERROR_WORD_AT.search(line) or _EXCEPTION.search(line))
    for word in words:
        at = low.find(word)
        while at >= 0:
            if _ERROR_WORD_AT.match(line, at):  # `\b` and the look-behind see line[at - 1]
                return True
            at = low.find(word, at + 1)
    return ("Error" in line or "Exception" in line) and _EXCEPTION.search(line) is not None


def _is_noise(line: str) -> bool:
    return bool(_NOISE_START.match(line) or ("%" in line and re.search(_NOISE_PERCENT, line)))


def shape(line: str, *, names: bool = False) -> str:
    """What two lines of the same kind share: numbers and hashes stood in for, runs of spaces
    folded; with `names`, quoted names too ("  12:5  warning  'a' is unused" ~
    "  7:19  warning  'b' is unused"). Data lines keep their names: `"id": 1` and
    `"name": 2` differ."""
    text = line
    if names and ("'" in line or '"' in line or "`" in line):
        text = _QUOTED.sub("'_'", line)
    return " ".join(_HEX_QUICK.sub("0", text).split())  # runs of spaces folded, ends stripped


def is_gutter(line: str) -> bool:
    """A line of a diagnostic's gutter (rustc, Elixir, Biome draw the code they point at)."""
    return bool(_GUTTER.match(line))


def parts(line: str) -> list[str]:
    """The line's words, each with its volatile parts (ids, dates, times, durations) stood
    in: `src/a.ts 53ms (unchanged)` ~ `src/b.ts 9ms (unchanged)` but for the first word."""
    words = line.split()
    if not _DIGIT.search(line):
        return words
    stood = _VOLATILE.sub("#", line).split()
    if len(stood) == len(words):  # no stand-in spans a space: the words line up
        return stood
    return [_VOLATILE.sub("#", word) for word in words]


def name_at(a: list[str], b: list[str]) -> int | None:
    """Where two lines' `parts` differ, when they differ in one word that is a name (it has
    a letter: not a count): its index; -1 when they do not differ; None otherwise."""
    if len(a) != len(b):
        return None
    if a == b:
        return -1
    differs = list(map(str.__ne__, a, b))
    if differs.count(True) != 1:
        return None
    k = differs.index(True)
    return k if _LETTER.search(a[k]) and _LETTER.search(b[k]) else None


_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")


def indent(line: str) -> int:
    return len(line) - len(line.lstrip())
