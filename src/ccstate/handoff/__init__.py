"""Handoffs: what a session leaves for the next one (docs/HANDOFF.md).

Modules: `index` (file layout, keying, the index, the capsule section; runs at every
SessionStart), `scan` (one streaming pass over a transcript), `commands`, `tools`,
`outcomes`, `summaries` and `checks` (which Bash calls are checks and what they proved, #42),
`doc` (the document: build, render), `gist` (the capsule's lines and what the file adds),
`passed` (the commands that passed, per branch, #39.2), `facts` (what a compaction keeps),
`store` (write a handoff: scan + git + notes, one locked persist), `progress` (the
append-only progress log it writes, rotated into archive/). Nothing is imported here.
"""
