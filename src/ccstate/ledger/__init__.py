"""The read ledger: what each context (main thread, each subagent) was given by Read,
and what a repeated Read should return instead (docs/LEDGER.md).

Modules: `core` (the decision, pure), `records` (its value objects), `text` (the wording
the model reads), `store` (ledger files, blobs), `lifecycle` (epochs and pruning at a
session's boundaries), `witness` (what proves an epoch is still current), `shell` (shell
reads of one file), `replay` (the same decisions over recorded transcripts). The
PostToolUse hook imports `core`, `records`, `text`, `store`, `witness` and `shell`:
standard library only (D1). Nothing is imported here, so the hot path pays only for the
modules it uses.
"""
