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
_PASS = re.compile("|".join(_PASS_PARTS))
# `_PASS` in three, each run only where it can match (`_is_pass`): at the line's start; a
# `PASSED` in it; a `... ok` at its end.
_PASS_START = re.compile("|".join(_PASS_PARTS[i] for i in (0, 3, 4, 5)))
_PASS_PASSED = re.compile(_PASS_PARTS[2])
_PASS_DOTS = re.compile(_PASS_PARTS[1])
_PASS_ENDS = ("ok", "passed", "PASSED", "ignored")
_SUMMARY = re.compile(
    r"\b\d+ (?:passed|failed|failing|passing|skipped|pending|errors?|warnings?|problems?"
    r"|tests?|examples?|failures?|xfailed|xpassed|deselected|todo|assertions?)\b"
    r"|^\s*(?:Tests?|Test Suites|Test Files|Suites|Snapshots|Time|Duration|Ran)\b:?\s+\d"
    r"|^\s*test result:"
    r"|\bBUILD (?:SUCCESS|SUCCESSFUL|FAILED|FAILURE)\b|\bBuild (?:succeeded|failed)\b"
    r"|^\s*(?:Finished|Done in|Completed in|Compiled successfully|Ran \d+ tests?)\b"
    r"|^\s*(?:exit(?: code| status)?:?\s*-?\d+|Exit code -?\d+)\s*$"
    r"|^\s*(?:[=_-]{3,}|\*{3,}) ?\S.*\S ?(?:[=_-]{3,}|\*{3,})\s*$"
    r"|^\s*(?:added|removed|changed|audited|up to date)\b.*\bpackages?\b"
    r"|^\s*\d+ files? changed\b",
    re.IGNORECASE,
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
_ERROR_MARK = r"^\s*(?:[✗✘\u00d7✖❌\u2a2f]|E\s{3}|\d+\) test\b)"  # ballot and cross marks
_ERROR = re.compile(f"{_ERROR_WORD}|{_ERROR_MARK}", re.IGNORECASE)
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
_NOISE = re.compile(
    r"^\s*(?:Using cached|Requirement already satisfied|Counting objects|Compressing objects"
    r"|Receiving objects|Resolving deltas|go: (?:downloading|finding|extracting)"
    r"|\* (?:Getting|Updating|Fetching))\b"
    r"|^==> \S+\s*$"
    r"|^#\d+ (?:\[|sha256:|extracting|resolve|transferring|DONE|CACHED|\d+\.\d+s)"
    r"|^\s*(?:Step \d+/\d+|---> )"
    r"|^ (?:create|delete) mode \d{6} "
    r"|^[0-9a-f]{12}: (?:Pulling|Waiting|Verifying|Download|Pull|Already)"
    r"|^\s*[+~-] [\w.-]+==\S+\s*(?:\(.*\))?$"
    r"|\d{1,3}(?:\.\d)?%.*(?:[█▉▊▋▌▍▎▏░▒▓#=>]{4,}|\(\d+/\d+\))"
    r"|(?:[█▉▊▋▌▍▎▏░▒▓#=>]{4,}|\(\d+/\d+\)).*\d{1,3}(?:\.\d)?%"
)
_FRAME = re.compile(
    r'^\s+(?:at \S|File ".+", line \d+|from \S+:\d+|\d+: 0x[0-9a-f]+|\S+\.go:\d+)'
    r"|^\s*\(?\S+:\d+:\d+\)?\s*$"
)
_UUID = r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b"
# A diagnostic's gutter: ` 264 │   code`, `     │`, `  |`, `2 |     let x`, `└─ lib/a.ex:3:5`.
_GUTTER = re.compile(r"^\s*(?:\d+\s+[│|┃]|[│|┃]\s*$|[│┃]\s|[└╰]─)")
GUTTER_CHARS = re.compile(r"[│|┃└╰]")  # a line without any of these is no gutter line
_HEX = re.compile(_UUID + r"|\b(?=[0-9a-f]*\d)[0-9a-f]{7,}\b|\b\d+\b|\d+")
# `_HEX` with the first character of every match taken first: the same matches, but Python's
# `re` then skips the positions that cannot start one (a pattern that starts with `\b` is
# tried at every position), 2-3x faster. tests/outputs/test_lines.py compares the two.
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
    what was drawn last (a progress bar's final state), Windows line ends removed."""
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
    parts = [p for p in line.split("\r") if p]
    return parts[-1] if parts else ""


def classify(line: str) -> str:
    """The line's class (see the module docstring); the first rule that matches wins."""
    return _classify(line, _ALL)


def _classify(line: str, rules: int) -> str:
    """`classify`, trying only the rules whose bit is set in `rules` (the others cannot
    match: `_clue_bits`)."""
    if not line.strip():
        return "blank"
    if rules & _P and _is_pass(line):
        return "pass"
    if rules & _S and _SUMMARY.search(line):
        return "summary"
    if rules & _E and _is_error(line):
        return "error"
    if rules & _W and _WARNING.search(line):
        return "warning"
    if rules & _N and (line.split(None, 1)[0] in _NOISE_WORDS or _NOISE.search(line)):
        return "noise"
    if rules & _F and _FRAME.search(line):
        return "frame"
    return "other"


def classify_all(lines: Sequence[str]) -> list[str]:
    """`[classify(line) for line in lines]`, several times faster (`_clue_bits`)."""
    found = _clue_bits(lines, _CLUES, _CLUE_PATTERNS)
    if found is None:
        return [classify(line) for line in lines]
    out = ["blank" if not line or line.isspace() else "other" for line in lines]
    for i, rules in found.items():  # a line without a clue matches no rule: blank or other
        out[i] = _classify(lines[i], rules)
    return out


def failure_lines(lines: Sequence[str]) -> list[str]:
    """`[line for line in lines if is_failure_line(line)]`, several times faster."""
    found = _clue_bits(lines, _FAILURE_CLUES, _FAILURE_PATTERNS)
    if found is None:
        return [line for line in lines if is_failure_line(line)]
    return [lines[i] for i in sorted(found) if is_failure_line(lines[i])]


def _is_pass(line: str) -> bool:
    """`_PASS` matches the line (its parts tried only where they can match: a long line costs
    one look at its start, one for `PASSED`, one at its end)."""
    return bool(
        _PASS_START.match(line)
        or ("PASSED" in line and _PASS_PASSED.search(line))
        or (line.rstrip().endswith(_PASS_ENDS) and _PASS_DOTS.search(line))
    )


def _is_error(line: str) -> bool:
    """`_ERROR` or `_EXCEPTION` matches the line: `_ERROR`'s words tried only where the
    lower-cased line holds one of `_FAILURE_WORDS` (every word of `_ERROR` starts with one),
    `_EXCEPTION` only when the line holds "Error" or "Exception" (every match does). Exact
    but where the line holds one of `_FOLDS_TO_ASCII`: then the patterns are run as such."""
    if not line.isascii() and any(c in line for c in _FOLDS_TO_ASCII):
        return bool(_ERROR.search(line) or _EXCEPTION.search(line))
    if _ERROR_MARK_AT_START.match(line):
        return True
    low = line.lower()
    for word in _FAILURE_WORDS:
        at = low.find(word)
        while at >= 0:
            if _ERROR_WORD_AT.match(line, at):  # `\b` and the look-behind see line[at - 1]
                return True
            at = low.find(word, at + 1)
    return ("Error" in line or "Exception" in line) and _EXCEPTION.search(line) is not None


def is_failure_line(line: str) -> bool:
    """A line a digest must keep: it names an error, failure, exception, panic or assertion,
    and is not a passing test whose name happens to contain such a word. `ccstate replay`'s
    safety check uses this too."""
    return _is_error(line) and not _is_pass(line)


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


# --------------------------------------------------------------------------- many lines at once
# Python's `re` tries a pattern that starts with an anchor, a word boundary or a repeat at every
# position of a line, which is slow. A line can only match a rule when it holds one of the
# rule's *clues*: a string anywhere in the lower-cased line (`_CLUES`), or one that starts it
# after its indent (`_CLUES_AT_START`). `_clue_lines` looks for the clues once in the whole
# lower-cased text, with `str.find` and one pattern that starts with a literal newline (both
# fast), and `classify_all` / `failure_lines` run the rules on those lines alone: the same
# result as running them on every line (tests/outputs/test_lines.py checks that against every
# line of the public transcripts and on generated lines). Lower-casing is exact for the ASCII
# letters the rules name, except where a text holds one of the characters `re.IGNORECASE`
# also matches them with (`clues.FOLDS_TO_ASCII`): such a text takes the slow path.
_FOLDS_TO_ASCII = "\u212a\u017f\u0130\u0131"
# The rules, as bits: _PASS, _SUMMARY, _ERROR (with _EXCEPTION), _WARNING, _NOISE, _FRAME.
_P, _S, _E, _W, _N, _F = 1, 2, 4, 8, 16, 32
_ALL = 63
_ERROR_WORD_AT = re.compile(_ERROR_WORD, re.IGNORECASE)
_ERROR_MARK_AT_START = re.compile(_ERROR_MARK, re.IGNORECASE)
# Anywhere in an error line (`_ERROR`; `_EXCEPTION`'s "Error" and "Exception").
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
_FAILURE_CLUES = {word: _E for word in _FAILURE_WORDS}
# Anywhere in a line the other rules match: `_PASS` (`... ok`, `PASSED`, `x.py ..s.`),
# `_SUMMARY` (`BUILD SUCCESS`; `<n> passed` below), `_WARNING`, `_NOISE` (`%` of a progress
# bar, `==` of a pinned package) and `_FRAME` (`x.go:12`; `a.ts:3:9` below).
_CLUES = {
    **_FAILURE_CLUES,
    "...": _P,
    "passed": _P,
    ".py": _P,
    "build succe": _S,
    "build fail": _S,
    "warn": _W,
    "deprecat": _W,
    "%": _N,
    "==": _N,
    ".go:": _F,
}
# What starts such a line, after its indent.
_STARTS = {
    _P: r"[✓✔√↓○⊘.]|pass|ok|--- |=== ",
    _S: r"test|suites|snapshots|time|duration|ran"
    r"|finished|done in|completed in|compiled successfully|exit|added|removed|changed"
    r"|audited|up to date|\d+ file|[=_-]{3}|\*{3}",
    _E: r"[✗✘\u00d7✖❌\u2a2f]|e[^\S\n]{3}|\d+\) test",
    _N: r"using cached|requirement already|counting objects|compressing objects"
    r"|receiving objects|resolving deltas|go: |\* |==> |#\d|step \d|---> |create mode"
    r"|delete mode|[0-9a-f]{12}: |" + "|".join(sorted(re.escape(w.lower()) for w in _NOISE_WORDS)),
    _F: r"at |file \"|from |\d+: 0x",
}


def _at_start(alternatives: str) -> re.Pattern[str]:
    return re.compile(rf"\n[^\S\n]*(?:{alternatives})")


# Patterns that start with a literal (fast to look for): a newline, then a line's start; the
# space in a number of tests (`_SUMMARY`'s `3 passed`), `_FRAME`'s `a.ts:3:9`.
_FAILURE_PATTERNS = ((_at_start(_STARTS[_E]), _E),)
_CLUE_PATTERNS = (
    *((_at_start(alternatives), rule) for rule, alternatives in _STARTS.items()),
    (
        re.compile(
            r" (?<=\d )(?:passed|failed|failing|passing|skipped|pending|error|warning|problem|test"
            r"|example|failure|xfailed|xpassed|deselected|todo|assertion)"
        ),
        _S,
    ),
    (re.compile(r":\d+:\d"), _F),
)


def _clue_bits(
    lines: Sequence[str],
    clues: dict[str, int],
    patterns: tuple[tuple[re.Pattern[str], int], ...],
) -> dict[int, int] | None:
    """Line index -> the rules a clue of that line names, for the lines that hold one; None
    when the shortcut does not apply."""
    from bisect import bisect_right
    from itertools import accumulate

    n = len(lines)
    text = "\n" + "\n".join(lines)
    low = text.lower()
    if len(low) != len(text) or low.count("\n") != n:
        return None  # a line with a newline in it, or a character whose lower case is longer
    if not low.isascii() and any(c in text for c in _FOLDS_TO_ASCII):
        return None
    # where each line's newline is: the line of position p is bisect_right(breaks, p) - 1
    breaks = list(accumulate([len(line) + 1 for line in lines], initial=0))
    found: dict[int, int] = {}
    for clue, rule in clues.items():
        p = low.find(clue)
        while p >= 0:
            i = bisect_right(breaks, p) - 1
            found[i] = found.get(i, 0) | rule
            p = low.find(clue, breaks[i + 1]) if i + 1 < n else -1  # on from the next line
    for pattern, rule in patterns:  # none matches a newline but as its first character
        for match in pattern.finditer(low):
            i = bisect_right(breaks, match.start()) - 1
            found[i] = found.get(i, 0) | rule
    return found
