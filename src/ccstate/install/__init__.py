"""ccstate installed into Claude Code, and checked there.

Modules: `wiring` (the hook table and its two renderings: the plugin's hooks/hooks.json and a
project's .claude/settings.json; plugin detection; the Claude Code versions tested),
`bootstrap` (the plugin's private venv under ${CLAUDE_PLUGIN_DATA}, built by
`python -m ccstate.install.bootstrap`), `doctor` (one Check per thing that must hold for
ccstate to work here). Nothing is imported here.
"""
