"""What `ccstate recall` prints for an agent to read: compact, a line per hit (#38).

Five hits fit in 600 tokens (cl100k, what Claude's tokenizer is estimated by;
`bench/recall_eval.py` reports the tokens per call): each line is the hit's REF (what
`ccstate recall show REF` takes), its kind, date, confidence and the words it matches, its
title and the matched text, each cut to a bound, and the line cut further while its
`estimate` is over `LINE_TOKENS` (a hex dump, a long path, non-Latin text cost more tokens
per character than prose; the tokenizer itself costs a third of a second to load, so it is
estimated). The rest (the whole moment, the transcript's path, the branch) is in `recall
show REF` and `--json`. Pure: the CLI adds the terminal's bold.
"""

from __future__ import annotations

import math
import re

from ccstate.recall.hits import Hit, ref
from ccstate.recall.text import clip, one_line

TITLE_CHARS = 60
SNIPPET_CHARS = 160
QUERY_CHARS = 60  # of the question, echoed in the header
WORDS = 4  # matched words shown per hit
WORD_CHARS = 24  # of each
LINE_TOKENS = 95  # a hit's line, estimated: five fit in 600 with the header and the advice
_PIECE = re.compile(r"[A-Za-z]+|[0-9]+|\s+|[!-/:-@\[-`{-~]+|.", re.DOTALL)
SHOW = "`ccstate recall show REF` prints one whole, with what happened around it."
NO_STRONG = (
    "No strong hit (none holds most of the question's rarer words): if these miss, ask once "
    "more with other words: an identifier, a file name, an error message."
)
NOTHING = (
    "Nothing relevant recalled for {query}: {why}. Ask with other words (an identifier, a "
    "file name, an error message), fewer filters, or --reindex."
)
UNMENTIONED = (
    "Nothing recalled for {query}: no moment mentions {names}. Check the spelling, or ask "
    "without the name."
)
ONLY_STOPWORDS = (
    "Nothing to search for in {query}: it has only common words. Name what you look for: "
    "an identifier, a file, a command, an error message."
)


def quoted(query: str) -> str:
    """The question as the header echoes it: one line, cut to QUERY_CHARS."""
    return repr(clip(one_line(query), QUERY_CHARS))


def hits_text(query: str, found: list[Hit]) -> str:
    """The header, a line per hit, and what to do next."""
    strong = sum(h.confidence == "strong" for h in found)
    lines = [
        f"recall: {len(found)} hit(s) for {quoted(query)} ({strong} strong, "
        f"{len(found) - strong} weak)"
    ]
    lines += [hit_line(n, h) for n, h in enumerate(found, start=1)]
    if not strong:
        lines.append(NO_STRONG)
    lines.append(SHOW)
    return "\n".join(lines)


def hit_line(number: int, hit: Hit) -> str:
    """`1. 3f2a9c1e:812 edit 2026-03-01 strong [parse_date, week] title: …**match**…`"""
    date = hit.ts[:10] or "----------"
    words = ", ".join(clip(w, WORD_CHARS) for w in hit.matched[:WORDS])
    words += ", …" if len(hit.matched) > WORDS else ""
    head = f"{number}. {ref(hit)} {hit.kind} {date} {hit.confidence} [{words}] "
    title, snippet = one_line(hit.title), one_line(hit.snippet)
    limits = [TITLE_CHARS, SNIPPET_CHARS]
    while True:
        cut = clip(title, limits[0]), clip(snippet, limits[1])
        line = head + (f"{cut[0]}: {cut[1]}" if cut[0] else cut[1])
        if estimate(line) <= LINE_TOKENS or limits == [8, 8]:
            return line
        longer = 1 if limits[1] >= limits[0] else 0  # cut the longer of the two by a fifth
        limits[longer] = max(8, limits[longer] * 4 // 5)


def estimate(text: str) -> int:
    """Tokens `text` likely costs (cl100k), from its pieces as the tokenizer splits them: a
    word of up to 12 lower-case letters is a token per 4, any other run of letters one per
    2, digits one per 3, punctuation one per 2, a character past Latin 1 to 3. On the hit
    lines of the old and dev sets the real count is at most 7 % above it; on hex, paths and
    accented or Cyrillic text below it; random letters can cost twice as much
    (docs/RECALL.md "Limits")."""
    n = 0
    for match in _PIECE.finditer(text):
        piece = match.group(0)
        first, size = piece[0], len(piece)
        if first.isspace():
            continue
        if first.isascii() and first.isalpha():
            wordlike = (piece.islower() or piece.istitle()) and size <= 12
            n += math.ceil(size / 4) if wordlike else math.ceil(size / 2)
        elif first.isascii():
            n += math.ceil(size / 3) if first.isdigit() else math.ceil(size / 2)
        else:
            n += 3 if ord(first) >= 0x1F000 else 2 if ord(first) < 0x2E80 else 1
    return n


def nothing_text(query: str, absent: list[str], common: list[str], filtered: bool) -> str:
    """Why nothing came back for a question with words: the filters left nothing, none of
    its words is held by any moment, or those held are common to much of the index."""
    if filtered:
        why = "no moment of the kinds, dates or session asked for holds its rarer words"
    elif common:
        why = f"its words held here ({', '.join(common[:WORDS])}) are each in much of the index"
    else:
        why = f"no moment holds any of its words ({', '.join(absent[:WORDS]) or 'none'})"
    return NOTHING.format(query=quoted(query), why=why)
