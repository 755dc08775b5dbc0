#!/usr/bin/env python3
"""What the redactor does with gitleaks' samples where transcripts put them (#37).

Makes issue #37's redaction figures docs/RELIABILITY.md quotes.

Prints, for the `ccstate` on the path (this checkout's src/, or another's with PYTHONPATH):
gitleaks' true positives redacted as they are and inside each of the wrappers a transcript
puts around a secret (tests/gitleaks_corpus.py `WRAPPERS`: a tag, brackets, pipes, backticks,
a comma or full stop after it, JSON-escaped newlines or tabs around it) and JSON-escaped whole
(its own quotes as `\\"`: not handled, counted to say so); gitleaks' false positives changed
(and which beyond the 23 ccstate changes by design); ccstate's look-alike corpus changed
(tests/secrets_corpus.py). docs/RELIABILITY.md quotes it, for this branch and for main
(`git archive main | tar -x -C /tmp/main`, then `PYTHONPATH=/tmp/main/src`):

    python bench/secret_endings.py
    PYTHONPATH=/tmp/main/src python bench/secret_endings.py
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "scripts" / "generate")]
sys.path.append(str(REPO / "src"))  # last: a ccstate on PYTHONPATH or installed comes first

from ccstate.secrets import redact  # noqa: E402
from gitleaks_corpus import (  # noqa: E402
    BY_DESIGN,
    FALSE_POSITIVES,
    TRUE_POSITIVES,
    WRAPPERS,
    surviving,
    windows,
)
from secrets_corpus import KINDS, ORDINARY  # noqa: E402


def counts() -> dict[str, object]:
    planted = [(rule, text, set().union(*map(windows, s))) for rule, text, s in TRUE_POSITIVES]
    planted = [p for p in planted if p[2]]
    wrappers = [("", ""), *WRAPPERS]
    left: dict[str, int] = collections.Counter()
    for _rule, text, found in planted:
        for before, after in wrappers:
            if surviving(redact.redact(before + text + after), found):
                left[f"{before}…{after}"] += 1
    escaped = sum(  # the sample itself JSON-escaped (its quotes `\"`): a gap #37 leaves
        bool(surviving(redact.redact('{"text": "one\\n' + json.dumps(text)[1:-1] + '"}'), found))
        for _rule, text, found in planted
    )
    changed = collections.Counter(r for r, text in FALSE_POSITIVES if redact.redact(text) != text)
    beyond = {r: n - BY_DESIGN.get(r, (0, ""))[0] for r, n in changed.items()}
    return {
        "ccstate": redact.__file__,
        "true_positives": len(planted),
        "not_redacted_by_wrapper": {f"{b}…{a}": left[f"{b}…{a}"] for b, a in wrappers},
        "not_redacted_in_wrappers": sum(left[f"{b}…{a}"] for b, a in WRAPPERS),
        "wrapped_placements": len(planted) * len(WRAPPERS),
        "not_redacted_json_escaped": escaped,
        "false_positives": len(FALSE_POSITIVES),
        "false_positives_changed": sum(changed.values()),
        "false_positives_changed_beyond_design": {r: n for r, n in beyond.items() if n},
        "ordinary_changed": sum(redact.redact(s) != s for s in ORDINARY),
        "ordinary": len(ORDINARY),
        "look_alikes_changed": sum(redact.redact(look) != look for _k, _t, _s, look in KINDS),
        "look_alikes": len(KINDS),
    }


def main() -> int:
    print(json.dumps(counts(), indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
