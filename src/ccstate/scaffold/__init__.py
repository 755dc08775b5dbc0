"""What `ccstate init` writes into a project, and what it finds there to write (#39).

`plan`: init's and `init --remove`'s steps (settings, hooks, state dir, DECISIONS.md, the
instruction files), planned without touching the disk, then applied. The rest finds the
project's own commands (Makefile, justfile, pyproject.toml, tox and nox, package.json,
Cargo.toml, go.mod, GitHub workflows), each read by its own format's parser, and renders
CLAUDE.md's first lines and `workflow.md` from them. No LLM.
"""
