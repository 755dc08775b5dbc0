"""Repository memory (#41): a local index of the project's tracked code, chunked at the
definitions tree-sitter finds, searched by `ccstate find` and ranked into `ccstate map`.

Owns `<state>/repo/` (index.sqlite, the touched-paths note, the cached map). The hot path
(PostToolUse) imports `notes` only; SessionStart imports `status` only; everything else
(tree-sitter included) runs in the CLI, SessionEnd and the detached indexer.
"""
