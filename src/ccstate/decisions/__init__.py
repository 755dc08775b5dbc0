"""Numbered decisions in DECISIONS.md (docs/DECISIONS-FORMAT.md).

Modules: `log` (model, tolerant parse, render, the capsule section; runs at every
SessionStart), `edit` (decide / supersede / revert under a lock), `lint` (checks and the
merge repair). Nothing is imported here.
"""
