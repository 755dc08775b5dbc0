"""Handoffs: what a session leaves for the next one (docs/HANDOFF.md).

Modules: `index` (file layout, keying, the index, the capsule section; runs at every
SessionStart), `scan` (one streaming pass over a transcript), `doc` (the document: build,
render, gist), `store` (write a handoff: scan + git + notes, one locked persist).
Nothing is imported here.
"""
