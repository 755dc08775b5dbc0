"""Words as recall indexes and queries them: identifier parts, query terms, trimming (pure).

FTS5 tokenises with `porter unicode61 tokenchars '_'`: `parse_date` and `E0308` stay one
token, `src/api/client.ts` becomes `src api client ts` (a query for the path is the phrase).
So that `date` still finds `parse_date` and `parseDate`, each document also carries a
`parts` column: the pieces of its compound identifiers (`parse date`).
"""

from __future__ import annotations

import re

TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '_'"
# a compound identifier: snake_case (a letter or digit on both sides of a `_`) or camelCase
_IDENT = re.compile(r"\b(?:\w+_[^\W_]\w*|\w*[a-z][A-Z]\w*)")
# The same on ASCII text: `\w` is then a table lookup, not a Unicode database query per
# character (several times faster; on ASCII text both find the same words).
_IDENT_ASCII = re.compile(_IDENT.pattern, re.ASCII)
# Where a compound identifier joins its pieces: searched as two patterns, the first only
# when the text holds a `_` at all (each alone starts with one character class, which the
# regex engine skips ahead to; the alternation of both was slower)
_SNAKE_JOINT = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]")
_CAMEL_JOINT = re.compile(r"[a-z][A-Z]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[^\W_]+(?:_+[^\W_]+)*", re.UNICODE)
_SPACE = re.compile(r"\s+")
_QUOTED = re.compile(r'"([^"]*)"')
MAX_PARTS = 400  # pieces kept per document: a minified file must not bloat the index
# Words that carry no meaning in a question about past work: English function words and
# the narrating verbs, adverbs and quantifiers of a question ("what went wrong", "we kept
# seeing", "twice as many"). Not tuned to any question set: BM25 weighs common words down
# anyway, but a rare filler word would otherwise count as information the answer lacks
# (the score floor), and a common one slows the query with a long doclist.
STOPWORDS = frozenset(
    """a about above according actually after afterwards again against all almost along
    already also although always am among an and another any anybody anyhow anyone anything
    anyway anywhere apart are around as aside ask asked asking at away back be became because
    become been before behind being below beside besides between beyond both but by came can
    cannot cause caused causing certain certainly come comes could couldn did didn do does
    doesn doing don done down during each either else elsewhere enough especially even ever
    every everyone everything exactly far few for from further gave get gets getting give
    given gives go goes going gone got gotten had happen happened happening happens has hasn
    have haven having he her here hers herself him himself his how however i if in indeed
    instead into is isn it its itself just keep keeping keeps kept kind knew know known last
    later least less let like likely look looked looking lot lots made make makes making many
    may maybe me meant might mine more most mostly much must my myself near need needed needs
    neither never no nobody none nor not nothing now of off often oh ok okay on once one only
    onto or other others otherwise ought our ours ourselves out over own perhaps please pretty
    probably quite rather real really reason right said same saw say saying says see seeing
    seem seemed seems seen several shall she should show showed shown since so some somebody
    somehow someone something sometime sometimes somewhere soon still stuff such sure take
    taken tell than that the their theirs them themselves then there therefore these they
    thing things think this those though thought through thus to together too took toward
    towards tried tries try trying twice under unless until up upon us use used using usually
    very via want wanted wants was wasn way we well went were weren what whatever when
    whenever where whereas wherever whether which while who whoever whole whom whose why will
    with within without won would wouldn wrong yes yet you your yours yourself ago day days
    earlier week weeks yesterday today time times again remember recall recalled
    aren hadn shouldn mustn needn
    t s d ll re ve m""".split()  # noqa: SIM905
)
# (the last line: what is left of a contraction, `couldn't` -> `couldn` `t`, `box's` -> `s`)


def parts(text: str) -> str:
    """The pieces of compound identifiers in `text` (`parse_date`, `parseDate` -> parse date)."""
    if not has_joint(text):  # no snake_case or camelCase at all (a quick scan)
        return ""
    out: list[str] = []
    for word in dict.fromkeys(identifiers(text)):
        pieces = [
            p
            for chunk in word.split("_")
            for p in ((chunk,) if chunk.islower() else _CAMEL.findall(chunk))
        ]
        if len(pieces) > 1:
            out.extend(pieces)
            if len(out) >= MAX_PARTS:
                break
    return " ".join(out[:MAX_PARTS]).lower()


def has_joint(text: str) -> bool:
    """Does `text` hold `[A-Za-z0-9]_[A-Za-z0-9]` or `[a-z][A-Z]`?"""
    if "_" in text and _SNAKE_JOINT.search(text) is not None:
        return True
    return _CAMEL_JOINT.search(text) is not None


def identifiers(text: str) -> list[str]:
    """The compound identifiers in `text`, in order: `_IDENT.findall(text)`, faster."""
    return _identifiers(_candidates(text))


def _candidates(text: str) -> str:
    """The whitespace-separated chunks of `text` that can hold a compound identifier (an `_`,
    or a capital letter), joined by spaces: a word never spans whitespace, so `_IDENT` finds
    the same words in them, in the same order."""
    return " ".join([w for w in text.split() if "_" in w or not w.islower()])


def _identifiers(text: str) -> list[str]:
    r"""`_IDENT.findall(text)`; on ASCII text in ASCII mode (`\w` is then a table lookup, not
    a Unicode database query per character; on ASCII text both match the same)."""
    return _IDENT_ASCII.findall(text) if text.isascii() else _IDENT.findall(text)


def query_terms(query: str) -> list[str]:
    """The words of a question worth searching for, in order, without repeats.

    `"quoted phrases"` stay phrases; a path or dotted name (`client.ts`) becomes one term
    (searched as a phrase); function words are dropped: a question made of nothing else has
    no terms (`ccstate recall` says so rather than searching for "what" and "did").
    """
    terms: list[str] = []
    for raw in _tokens(query):
        if raw.lower() in STOPWORDS:
            continue
        if raw not in terms:
            terms.append(raw)
    return terms


def has_words(query: str) -> bool:
    """Does `query` hold any word at all (a query of only stop words does)?"""
    return bool(_tokens(query))


def names(query: str) -> list[str]:
    """The question's words written as names (`Sentry`, `GraphQL`, `MQTT`): a capital letter
    past the first word of a sentence, in a word that is no function word, day, month or
    short capital (`_named`); a compound by its first word (`Vercel-hosted`: `Vercel`)."""
    out: list[str] = []
    start = True
    for chunk in _QUOTED.sub(" ", query).split():
        if not start and chunk.lstrip("\"'`([{<")[:1].isupper():  # its first word: `Vercel-hosted`
            word = _WORD.search(chunk)
            if word is not None and _named(word.group(0)):
                out.append(word.group(0))
        start = chunk.endswith((".", "?", "!", ":"))
    return list(dict.fromkeys(out))


# Capitalised words that name no thing a session would have mentioned: days and months
# ("what did we do on Monday"); short capitals are common nouns (PR, CI, DB, UI) there.
_NOT_NAME_TEXT = (
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december"
)
_NOT_NAMES = frozenset(_NOT_NAME_TEXT.split())


def _named(word: str) -> bool:
    low = word.lower()
    return (
        low not in STOPWORDS and low not in _NOT_NAMES and not (word.isupper() and len(word) <= 3)
    )


def _tokens(query: str) -> list[str]:
    found = [p.strip() for p in _QUOTED.findall(query) if p.strip()]
    for chunk in _QUOTED.sub(" ", query).split():
        cleaned = chunk.strip("\"'`?!,;:()[]{}<>")
        if re.search(r"[./\\-]", cleaned) and re.search(r"\w[./\\-]\w", cleaned):
            found.append(cleaned.strip("./-"))  # a path, a dotted name, a flag: one phrase
            continue
        found.extend(m.group(0) for m in _WORD.finditer(cleaned))
    return [f for f in found if f]


def fts_phrase(term: str) -> str:
    """`term` as an FTS5 string (double quotes doubled): the tokenizer splits it."""
    return '"' + term.replace('"', '""') + '"'


def one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters at most, marked with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def head_tail(text: str, limit: int) -> str:
    """The start and the end of a long text (a command's output: the verdict is at the end)."""
    if len(text) <= limit:
        return text
    half = max(0, (limit - 5) // 2)
    return text[:half].rstrip() + "\n[…]\n" + text[-half:].lstrip()
