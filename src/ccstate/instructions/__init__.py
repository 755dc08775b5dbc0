"""Instruction files: what Claude Code loads before the first prompt, and the CLAUDE.md
lint (docs/CLAUDE-MD.md).

Modules: `mdscan` (markdown as Claude Code reads it), `gists` (a text said in one line, a
section's file stem), `loaded` (the always-loaded set),
`pointers` (plain pointers to topic files), `lint` (rules and report), `cache` (the last
lint result on disk), `status` (cached-or-recomputed result and the capsule line),
`edit_check` (the PostToolUse line after an instruction-file edit), `split` (`lint --fix`
and `ccstate split`). Nothing is imported here.
"""
