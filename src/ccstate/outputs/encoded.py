"""Long runs of encoded data said in a few characters (pure).

An image an API returns as a `data:image/png;base64,...` URL, a certificate or a key in
base64, a hex dump on one line: thousands of characters that carry nothing a reader can use,
and that no model copies back by hand either. `elide` keeps the first `KEEP` characters of
each run of `MIN_RUN` or more and writes a marker with its kind and how much was left out:

  data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAABAAAAAQA…[ccstate: 9,559 base64 characters left out]

(the complete original is in the file the digest's closing line names). A run is base64 when
it has digits, both cases and at least `MIN_DISTINCT` different characters (a path or an
identifier written without dots or dashes has far fewer), hex when it is hex digits of one
case with both digits and letters. The marker holds no quote and no backslash, so a JSON
string stays a JSON string. A line that is a failure line (`lines.is_failure_line`) keeps its
runs, as every digest keeps such lines whole.

Standard library only: the PostToolUse hook imports this module (through `core` and
`jsontext`).
"""

from __future__ import annotations

import re

from ccstate.outputs.lines import is_failure_line

MIN_RUN = 1024  # an ssh key (RSA 4096: 716 characters), a JWT, a sha512 stay whole
KEEP = 32  # leading characters of a run kept, the data URL's prefix aside
MIN_DISTINCT = 48  # random base64 over 1,024 characters shows all 64
TAG = " characters left out]"  # how a marker of this module ends
_CHARS = "A-Za-z0-9+/_-"
# A run starts only where the character before is none of its own (a look-behind that fails
# at once inside a run): every run is scanned once, however many short runs a text has.
_RUN = re.compile(rf"(?<![{_CHARS}])[{_CHARS}]{{{MIN_RUN},}}={{0,2}}")
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_DIGIT = re.compile(r"\d")
_LOWER = re.compile(r"[a-z]")
_UPPER = re.compile(r"[A-Z]")


def kind(run: str) -> str | None:
    """'hex', 'base64' or None (the run is text: a path, an identifier)."""
    if not _DIGIT.search(run):
        return None
    if _HEX.fullmatch(run):
        return "hex" if re.search(r"[a-fA-F]", run) else None
    if not (_LOWER.search(run) and _UPPER.search(run)):
        return None
    return "base64" if len(set(run)) >= MIN_DISTINCT else None


def elide(text: str) -> str:
    """`text` with every encoded run of its non-failure lines cut to its start and a marker;
    `text` itself when there is none."""
    if len(text) < MIN_RUN or _RUN.search(text) is None:
        return text
    lines = text.split("\n")
    cut = False
    for i, line in enumerate(lines):
        if len(line) >= MIN_RUN and _RUN.search(line) and not is_failure_line(line):
            short = _RUN.sub(_marker, line)
            if short != line:
                lines[i], cut = short, True
    return "\n".join(lines) if cut else text


def elided(before: str, after: str) -> int:
    """How many runs `elide` cut between `before` and `after` (its markers, counted)."""
    return after.count(TAG) - before.count(TAG)


def _marker(match: re.Match[str]) -> str:
    run = match.group(0)
    what = kind(run.rstrip("="))
    if what is None:
        return run
    return f"{run[:KEEP]}…[ccstate: {len(run) - KEEP:,} {what}{TAG}"
