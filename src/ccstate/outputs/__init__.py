"""Tool-output digests (docs/OUTPUTS.md): a bulky Bash, Grep, Glob, WebFetch or MCP result
is replaced, before the model ever sees it, by a digest that keeps every error, failure and
summary line and collapses the repetitive rest, ending with the path of a file that holds the
complete original.

Modules: `lines` (normalising and classifying output lines, pure), `digest` (the digest of a
text output, pure), `alike` (lines alike but for a name, repeated blocks: for the digest,
pure), `lint` (linter reports, pure), `listing` (Grep's content and path lists, pure),
`jsontext` (JSON text and JSON Lines results, pure), `encoded` (long base64 and hex runs cut
to their start, pure), `core` (options and the plan for one tool result), `store` (the
originals, content-addressed under the state dir, bounded), `replay` (the same digests over
recorded transcripts, with a safety check). The PostToolUse hook imports `core`, `lines`,
`digest`, `alike`, `lint`, `listing`, `jsontext`, `encoded` and `store`: standard library only
(D1). Nothing is imported here.
"""
