#!/usr/bin/env python3
"""gitleaks' rule samples as ccstate's test fixture (tests/fixtures/gitleaks/, issue #23).

Writes tests/fixtures/gitleaks/samples.json.gz; tests/fixtures/gitleaks/PROVENANCE.md says
how it was made.

    python scripts/generate/gitleaks_fixture.py build DUMP.json --commit SHA  # samples.json.gz
    python scripts/generate/gitleaks_fixture.py show RULE_ID      # prints a rule's samples
    python scripts/generate/gitleaks_fixture.py stats             # counts

DUMP.json is what gitleaks' own rule generator validated, dumped per rule (its id, regex,
keywords, entropy, true and false positives), with what gitleaks' full default rule set finds
in each sample (tests/fixtures/gitleaks/PROVENANCE.md says how it was made). `build` keeps,
per sample, the secrets gitleaks reports for it (true positives) or the rules of the full set
that still flag it (false positives: those are secrets to gitleaks too, so redaction may take
them). The order is made canonical, so a rebuild from the same commit gives the same file.

Every text is stored reversed (`text[::-1]`), and the file gzipped: no scanner (gitleaks
itself, a forge's push protection) finds a credential shape in it. `load()` turns them back.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

FIXTURE = (
    Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "gitleaks" / "samples.json.gz"
)


def _hide(text: str) -> str:
    return text[::-1]


def _sorted_hits(hits: list[dict[str, str]] | None) -> list[dict[str, str]]:
    return sorted(hits or [], key=lambda h: (h["rule"], h["secret"], h["match"]))


def _true_positive(rule_id: str, text: str, hits: list[dict[str, str]]) -> dict[str, Any]:
    own = [h["secret"] for h in hits if h["rule"] == rule_id]
    secrets = sorted(set(own or [h["secret"] for h in hits]) - {""})
    return {"text": _hide(text), "secrets": [_hide(s) for s in secrets]}


def _false_positive(text: str, hits: list[dict[str, str]]) -> dict[str, Any]:
    return {"text": _hide(text), "flagged_by": sorted({h["rule"] for h in hits})}


def build(dump: list[dict[str, Any]], commit: str) -> dict[str, Any]:
    """The fixture from gitleaks' dump: rules by id, samples in a canonical order."""
    rules = []
    for rule in sorted(dump, key=lambda r: r["rule"]):
        rid = rule["rule"]
        tps = [
            _true_positive(rid, t, _sorted_hits(h))
            for t, h in zip(rule.get("tps") or [], rule.get("tp_hits") or [], strict=True)
        ]
        fps = [
            _false_positive(t, _sorted_hits(h))
            for t, h in zip(rule.get("fps") or [], rule.get("fp_hits") or [], strict=True)
        ]
        # A rule on file names (`path`) judges a text by the file it sits in: its samples
        # carry their path. ccstate sees no file name, so a false positive only by its path
        # (the text of a true positive in the wrong file) is marked.
        path_tps = rule.get("path_tps") or {}
        for path, text in sorted(path_tps.items()):
            tps.append(_true_positive(rid, text, _sorted_hits(rule["path_tp_hits"][path])))
            tps[-1]["path"] = _hide(path)
        for path, text in sorted((rule.get("path_fps") or {}).items()):
            fps.append(_false_positive(text, _sorted_hits(rule["path_fp_hits"][path])))
            fps[-1]["path"] = _hide(path)
            fps[-1]["only_by_path"] = text in path_tps.values()
        rules.append(
            {
                "id": rid,
                "regex": rule["regex"],
                "path": rule.get("path") or "",
                "keywords": sorted(rule.get("keywords") or []),
                "entropy": rule.get("entropy") or 0,
                "tps": sorted(tps, key=lambda s: (s.get("path", ""), s["text"])),
                "fps": sorted(fps, key=lambda s: (s.get("path", ""), s["text"])),
            }
        )
    return {"source": "https://github.com/gitleaks/gitleaks", "commit": commit, "rules": rules}


def load(path: Path = FIXTURE) -> dict[str, Any]:
    """The fixture with every text readable again."""
    data = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    for rule in data["rules"]:
        for tp in rule["tps"]:
            tp["text"], tp["secrets"] = _hide(tp["text"]), [_hide(s) for s in tp["secrets"]]
        for sample in rule["tps"] + rule["fps"]:
            if "path" in sample:
                sample["path"] = _hide(sample["path"])
        for fp in rule["fps"]:
            fp["text"] = _hide(fp["text"])
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("build", help="write samples.json.gz from gitleaks' dump")
    make.add_argument("dump", type=Path)
    make.add_argument("--commit", required=True, help="the gitleaks commit the dump came from")
    make.add_argument("--out", type=Path, default=FIXTURE)
    show = sub.add_parser("show", help="print one rule's samples, readable")
    show.add_argument("rule")
    sub.add_parser("stats", help="rules and samples in the fixture")
    args = parser.parse_args(argv)
    if args.command == "build":
        fixture = build(json.loads(args.dump.read_text(encoding="utf-8")), args.commit)
        text = json.dumps(fixture, ensure_ascii=False, indent=0, sort_keys=False)
        # gzip (1.2 MB of JSON in 0.12 MB: the plugin copy of the tree stays small), with no
        # name or time in its header, so that a rebuild from the same commit is the same file
        data = gzip.compress((text + "\n").encode("utf-8"), compresslevel=9, mtime=0)
        args.out.write_bytes(data)
        print(f"{args.out}: {len(fixture['rules'])} rules")
        return 0
    data = load()
    if args.command == "show":
        rules = [r for r in data["rules"] if r["id"] == args.rule]
        if not rules:
            print(f"{args.rule}: no such rule in {FIXTURE}", file=sys.stderr)
            return 1
        print(json.dumps(rules[0], ensure_ascii=False, indent=1))
        return 0
    rules = data["rules"]
    print(f"gitleaks {data['commit']}: {len(rules)} rules")
    print(f"true positives: {sum(len(r['tps']) for r in rules)}")
    fps = [f for r in rules for f in r["fps"]]
    flagged = sum(bool(f["flagged_by"]) for f in fps)
    print(f"false positives: {len(fps)} ({flagged} still flagged by another gitleaks rule)")
    print(f"rules that need a file path: {sum(bool(r['path']) for r in rules)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
