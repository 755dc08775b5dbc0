"""What kind of answer a question asks for, and whether a moment's text has that shape (pure).

"How big was the bundle?" is answered by a size, "how long did it take?" by a duration,
"which version?" by a version number, "what address?" by an IP, a URL or a port, "why did
it fail?" by a failure (`exit: failed`, an error, `denied`, `not found`: #38). The
question rarely shares a word with its answer's figure (`412 kB`, `3m12s`, `v2.4.1`), so
BM25 alone ranks the moment that holds the figure no higher than one that only talks about
the same thing. `search` lifts the candidates whose text has the shape the question asks
for (`SHAPE_BOOST`): a rule about how questions are asked, not about any question set.
"""

from __future__ import annotations

import re

_QUESTIONS: dict[str, re.Pattern[str]] = {
    "size": re.compile(
        r"\bhow (?:big|large|heavy|small)\b|\bsizes?\b|\bhow much (?:space|disk|memory|ram|"
        r"flash|storage)\b|\bhow much of\b",
        re.IGNORECASE,
    ),
    "duration": re.compile(
        r"\bhow (?:long|fast|slow|quick(?:ly)?)\b|\bduration\b|\bhow much time\b",
        re.IGNORECASE,
    ),
    "version": re.compile(r"\bversions?\b(?! control)|\bwhich release\b", re.IGNORECASE),
    "address": re.compile(
        r"\b(?:ip|ips|address|addresses|url|urls|port|ports|endpoint|host ?name|domain)\b",
        re.IGNORECASE,
    ),
    "failure": re.compile(
        r"\b(?:fail(?:ed|s|ing|ure)?|errors?|broke|broken|crash(?:ed|es)?|refus(?:e|ed|es)|"
        r"wouldn'?t|couldn'?t|can'?t|didn'?t work|not found|denied|blocked|stuck)\b",
        re.IGNORECASE,
    ),
}
_NUMBER = r"\b\d[\d,]*(?:\.\d+)?\s?"
_ANSWERS: dict[str, re.Pattern[str]] = {
    "size": re.compile(
        _NUMBER + r"(?:[kmgt]i?b|bytes?|[kmg]b?ytes?|lines?|files? changed|insertions?|"
        r"deletions?)\b|\b\d+(?:\.\d+)?\s?%"
        r"|^[-dl][-rwxsStT]{9}\S?\s+\d+\s+\S+\s+\S+\s+\d+",  # `ls -l`: its size column
        re.IGNORECASE | re.MULTILINE,
    ),
    "duration": re.compile(
        _NUMBER + r"(?:ms|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?)\b"
        r"|\b\d+m\s?\d+(?:\.\d+)?s\b|\b\d+:\d\d(?::\d\d)?\b",
        re.IGNORECASE,
    ),
    "version": re.compile(
        r"\bv?\d+\.\d+\.\d+|(?:\bv|[\w]-|@)\d+(?:\.\d+)*\b|\bversion:?\s*v?\d",
        re.IGNORECASE,
    ),
    "address": re.compile(
        r"\b\d{1,3}(?:\.\d{1,3}){3}\b|\bhttps?://|\b(?:localhost|[\w-]+\.\w+)?:\d{2,5}\b"
        r"|\bport\s+\d{2,5}\b",
        re.IGNORECASE,
    ),
    "failure": re.compile(
        r"\bexit: failed\b|^failed: |\b(?:error|exception|traceback|denied|not found|refused|"
        r"cannot|unable to)\b",
        re.IGNORECASE | re.MULTILINE,
    ),
}


# The words with which a question asks for a shape: the answer holds the figure, not them
# ("how big" is answered by "412 kB"), so a moment with the figure counts as holding them.
_ASKING = {
    "size": frozenset({"big", "large", "heavy", "small", "size", "sizes", "space", "much"}),
    "duration": frozenset({"long", "fast", "slow", "quick", "quickly", "duration"}),
    "version": frozenset({"version", "versions", "release"}),
    "address": frozenset(
        {"ip", "ips", "address", "addresses", "url", "urls", "port", "ports", "endpoint"}
    ),
    "failure": frozenset(
        {"fail", "failed", "fails", "failing", "failure", "error", "errors", "broke", "broken"}
        | {"crash", "crashed", "refuse", "refused", "denied", "blocked", "stuck"}
    ),
}


def asking(terms: list[str], shapes: tuple[str, ...]) -> list[str]:
    """The `terms` (a question's words) that ask for one of `shapes`."""
    words = frozenset().union(*(_ASKING[shape] for shape in shapes)) if shapes else frozenset()
    return [t for t in terms if t.lower() in words]


def asked(question: str) -> tuple[str, ...]:
    """The answer shapes `question` asks for (`size`, `duration`, `version`, `address`),
    in that order; () when it asks for none of them."""
    return tuple(shape for shape, pattern in _QUESTIONS.items() if pattern.search(question))


def held(text: str, shapes: tuple[str, ...]) -> tuple[str, ...]:
    """The `shapes` of which `text` holds a figure, in their order."""
    return tuple(shape for shape in shapes if _ANSWERS[shape].search(text))
