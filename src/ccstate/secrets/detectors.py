"""detect-secrets' regex detectors for the four kinds gitleaks' rule set lacks (rule 2 of
`redact.py`; Yelp, Apache-2.0; D14), when that package is importable (the CLI and the
plugin's venv; a bare `python3` running a hook goes without them).

Importing detect-secrets costs a few hundred milliseconds, so its regexes are read from the
installed package once and kept in the user's cache (`maintained_rules`).
"""

from __future__ import annotations

import re

# detect-secrets' regex plugins (module, class) for the kinds gitleaks' rule set has no rule
# for (D14: its other detectors changed gitleaks' false-positive samples, e.g. any 20 capitals
# after `ASIA`). Keyword and entropy plugins are left out: rule 4 covers assignments with
# fewer false positives, and prose has no quotes to anchor on.
MAINTAINED_PLUGINS = (
    ("cloudant", "CloudantDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"),
    ("ibm_cos_hmac", "IbmCosHmacDetector"),
    ("softlayer", "SoftlayerDetector"),
)


def maintained_rules() -> list[tuple[str, re.Pattern[str]]]:
    """detect-secrets' denylist regexes, when the package is installed (else none).

    Importing detect-secrets costs a few hundred milliseconds (its package imports its scanner
    and filters), more than a SessionEnd hook in `claude -p` may take; so the regexes are read
    from the installed package once and kept in the user's cache, keyed by where it is
    installed and when it changed."""
    import json
    import os
    from importlib.util import find_spec

    try:
        spec = find_spec("detect_secrets")
    except (ImportError, ValueError):
        return []
    folders = list(spec.submodule_search_locations or ()) if spec else []
    if not folders:
        return []
    try:
        key = f"{folders[0]}:{os.stat(os.path.join(folders[0], 'plugins')).st_mtime_ns}"
    except OSError:
        return []
    from ccstate import paths, store

    cache = paths.user_cache_dir() / "detect-secrets-rules.json"
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data.get("key") == key:
            return [(kind, re.compile(p, flags)) for kind, p, flags in data["rules"]]
    except (OSError, ValueError, TypeError, KeyError, re.error):
        pass
    rules = _import_rules()
    rows = [(kind, p.pattern, p.flags) for kind, p in rules]
    try:
        store.atomic_write_json(cache, {"key": key, "rules": rows}, durable=False, private=True)
    except OSError:  # a read-only cache: read the package again next time
        return rules
    return rules


def _import_rules() -> list[tuple[str, re.Pattern[str]]]:
    import importlib

    rules: list[tuple[str, re.Pattern[str]]] = []
    for module, name in MAINTAINED_PLUGINS:
        try:
            plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)
        except (ImportError, AttributeError):
            continue
        kind = name.removesuffix("Detector").lower()
        rules += [(kind, p) for p in getattr(plugin, "denylist", ()) if isinstance(p, re.Pattern)]
    return rules
