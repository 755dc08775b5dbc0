"""Recall: a local full-text index over the project's past sessions, handoffs and decisions.

`moments` turns transcript records, handoff documents, the progress log and DECISIONS.md
into small documents with provenance (pure); `reader` streams a transcript from a byte
offset; `index` keeps them in SQLite FTS5 under the state dir, `writer` updates it
incrementally;
`search` ranks them (BM25 with field weights, each moment in its turn, a confidence on every
hit instead of a floor, recency for ties; `hits`, `confidence`, `context`, `subqueries`,
`render`); `migrate` brings an older index's search table up to date; `embed` fuses an
optional local static-embedding model's ranking in. No LLM, daemon or network
(docs/RECALL.md).
"""

# The kinds of moments (`moments` makes them; `ccstate recall --kind` offers them): here, so
# the CLI need not import `moments` and what it reads with to parse its options.
KINDS = ("prompt", "answer", "edit", "command", "error", "fix", "output", "decision", "handoff")
