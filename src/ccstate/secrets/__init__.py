"""Secrets kept out of everything ccstate writes or injects (docs/RELIABILITY.md "Secrets").

Modules: `redact` (the `Redactor`: every rule set over a text, in order, and the windows a cut
may look at), its rule sets `envfile` (the project's `.env` values), `gitleaks` (gitleaks'
default rules, `gitleaks_rules.json`, applied as gitleaks decides), `detectors`
(detect-secrets' regexes, when installed), `shapes` (ccstate's own table and the assignment
rules), and `clues` (the prefilter: which rules may match a text) over `needs` (what every
match of a regex holds). Never on the hot path; every pattern compiles on first use. Nothing
is imported here.
"""
