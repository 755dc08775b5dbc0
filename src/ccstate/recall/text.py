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
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[^\W_]+(?:_+[^\W_]+)*|\"[^\"]*\"", re.UNICODE)
_SPACE = re.compile(r"\s+")
MAX_PARTS = 400  # pieces kept per document: a minified file must not bloat the index
# Words that carry no meaning in a question about past work. Kept short on purpose: BM25
# weighs common words down anyway; these would only slow the query (long doclists) and
# push a "nothing relevant" question above the floor.
STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be because been before
    being below between both but by can could did do does doing done during each else ever
    few for from further had has have having he her here hers him his how i if in into is it
    its itself just last let like made make me might more most much must my myself no nor not
    now of off on once only or other our ours out over own please same she should so some
    such than that the their theirs them then there these they this those through to too
    under until up us use used using very via was way we were what when where which while who
    whom why will with would yet you your yours ago back day days earlier week weeks
    yesterday today time again remember recall thing things stuff something anything""".split()  # noqa: SIM905
)


def parts(text: str) -> str:
    """The pieces of compound identifiers in `text` (`parse_date`, `parseDate` -> parse date)."""
    out: list[str] = []
    for word in _IDENT.findall(text):
        pieces = [p for chunk in word.split("_") for p in _CAMEL.findall(chunk)]
        if len(pieces) > 1:
            out.extend(pieces)
            if len(out) >= MAX_PARTS:
                break
    return " ".join(out[:MAX_PARTS]).lower()


def query_terms(query: str) -> list[str]:
    """The words of a question worth searching for, in order, without repeats.

    `"quoted phrases"` stay phrases; a path or dotted name (`client.ts`) becomes one term
    (searched as a phrase); function words are dropped, unless nothing else is left.
    """
    terms: list[str] = []
    for raw in _tokens(query):
        if raw.lower() in STOPWORDS:
            continue
        if raw not in terms:
            terms.append(raw)
    if not terms:  # a question made only of common words: search them all
        terms = list(dict.fromkeys(t for t in _tokens(query)))
    return terms


def _tokens(query: str) -> list[str]:
    found: list[str] = []
    for chunk in query.split():
        if chunk.startswith('"') and chunk.endswith('"') and len(chunk) > 2:
            found.append(chunk.strip('"'))
            continue
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
