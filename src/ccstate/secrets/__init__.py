"""Secrets kept out of everything ccstate writes or injects (docs/RELIABILITY.md "Secrets").

Modules: `redact` (the `Redactor`: every rule set over a text, in order, and the windows a cut
may look at), `gitleaks` (gitleaks' default rules, `gitleaks_rules.json`, applied as gitleaks
decides), `clues` (the prefilter: which rules may match a text), `needs` (what every match
of a regex holds, which the prefilter looks for).
Never on the hot path; every pattern compiles on first use. Nothing is imported here.
"""
