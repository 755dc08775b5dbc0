"""Claude Code's transcripts read: bounded, tolerant, fast where `ccstate report` needs it.

Modules: `lines` (line by line, bounded, into records: `iter_lines`, `iter_records`,
`ReadStats`, `Deadline`), `runs` (the fast readers over runs of whole lines in a reused
buffer: `iter_light_records`, `iter_fast_records`), `content` (what a record says: its content
blocks), `sessions` (which files make a session: subagents, ids). The handoff scan, recall,
`report` and `replay` all read transcripts through here. Nothing is imported here.
"""
