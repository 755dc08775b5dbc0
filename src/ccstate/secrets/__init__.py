"""Secrets kept out of everything ccstate writes or injects (docs/RELIABILITY.md "Secrets").

Modules: `redact` (the `Redactor`: every rule set over a text, in order, and the windows a cut
may look at), `gitleaks` (gitleaks' default rules, `gitleaks_rules.json`, applied as gitleaks
decides), `clues` (what a regex needs in a text to match, and the prefilter built on it).
Never on the hot path; every pattern compiles on first use. Nothing is imported here.
"""
