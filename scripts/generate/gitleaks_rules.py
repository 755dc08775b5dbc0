#!/usr/bin/env python3
"""gitleaks' default rule set (its `config/gitleaks.toml`, MIT) as the JSON ccstate redacts with.

Writes src/ccstate/gitleaks_rules.json; tests/fixtures/gitleaks/PROVENANCE.md names the
gitleaks commit.

    python scripts/generate/gitleaks_rules.py GITLEAKS_TOML --commit SHA
    # writes src/ccstate/gitleaks_rules.json

Each rule keeps what gitleaks decides with: its id, regex, keywords (a rule runs only on a text
holding one, lower-cased), entropy floor, secret group and allowlists (regexes on the secret,
the match or the line; stopwords), plus the global allowlist. File-path conditions are
dropped: ccstate redacts text whose file it does not know (docs/RELIABILITY.md).

gitleaks' regexes are Go RE2; Python's `re` reads them after three rewrites, done here once
(`to_python`): a flag group inside a pattern (`p8e-(?i)[a-z0-9]{32}`, which Go applies to the
rest of its group) becomes a scoped group for each remaining alternative, `\\z` becomes `\\Z`,
and `[[:alnum:]]` its ASCII class. The rules compile with `re.ASCII`, as RE2's `\\w`, `\\d`,
`\\s` and `\\b` are ASCII. tests/secrets/test_gitleaks.py checks every rule finds, on
gitleaks' own samples, what gitleaks found.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import tomllib

OUT = Path(__file__).resolve().parents[2] / "src" / "ccstate" / "secrets" / "gitleaks_rules.json"
LICENSE = (
    "MIT License. Copyright (c) 2019 Zachary Rice. Permission is hereby granted, free of charge, "
    "to any person obtaining a copy of this software and associated documentation files (the "
    '"Software"), to deal in the Software without restriction, including without limitation '
    "the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell "
    "copies of the Software, and to permit persons to whom the Software is furnished to do so, "
    "subject to the following conditions: The above copyright notice and this permission "
    "notice shall be included in all copies or substantial portions of the Software. THE "
    'SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING '
    "BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND "
    "NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, "
    "DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING "
    "FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE."
)
_POSIX = {"[:alnum:]": "0-9A-Za-z", "[:alpha:]": "A-Za-z", "[:digit:]": "0-9"}


def to_python(pattern: str) -> str:
    """A Go RE2 pattern rewritten so Python's `re` reads it the same way."""
    for posix, chars in _POSIX.items():
        pattern = pattern.replace(posix, chars)
    out: list[str] = []
    # per open group: how many scoped flag groups to close at its next `|` and at its end
    opened: list[list[str]] = [[]]
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            two = pattern[i : i + 2]
            out.append("\\Z" if two == "\\z" and not in_class else two)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            if pattern[i + 1 : i + 2] == "]":  # a literal ] first in a class
                out.append("]")
                i += 1
            i += 1
            continue
        flag = re.match(r"\(\?([a-zA-Z-]+)\)", pattern[i:])
        if flag and (i > 0 or len(opened) > 1):
            flags = flag.group(1)
            out.append(f"(?{flags}:")
            opened[-1].append(flags)
            i += len(flag.group(0))
            continue
        if c == "(":
            opened.append([])
        elif c == "|":
            scoped = opened[-1]
            out.append(")" * len(scoped) + "|" + "".join(f"(?{f}:" for f in scoped))
            i += 1
            continue
        elif c == ")":
            out.append(")" * len(opened.pop()))
        out.append(c)
        i += 1
    out.append(")" * len(opened.pop()))
    return "".join(out)


def _allowlist(entry: dict[str, Any]) -> dict[str, Any] | None:
    """An allowlist as ccstate applies it, or None when it can only hold for a path or commit."""
    regexes = [to_python(p) for p in entry.get("regexes", [])]
    stopwords = sorted({w.lower() for w in entry.get("stopwords", [])})
    condition = entry.get("condition", "OR").upper()
    if condition == "AND" and (entry.get("paths") or entry.get("commits")):
        return None  # needs a path or commit ccstate never has: it never allows anything
    if not regexes and not stopwords:
        return None
    out: dict[str, Any] = {"target": entry.get("regexTarget", "secret")}
    if regexes:
        out["regexes"] = regexes
    if stopwords:
        out["stopwords"] = stopwords
    if condition == "AND":
        out["all"] = True
    return out


def convert(config: dict[str, Any], commit: str) -> dict[str, Any]:
    rules = []
    for rule in config["rules"]:
        if "regex" not in rule:
            continue  # a rule on file names only (pkcs12-file): nothing in a text to find
        lists = [_allowlist(a) for a in rule.get("allowlists", [])]
        entry: dict[str, Any] = {
            "id": rule["id"],
            "regex": to_python(rule["regex"]),
            "keywords": sorted({k.lower() for k in rule.get("keywords", [])}),
        }
        if rule.get("entropy"):
            entry["entropy"] = rule["entropy"]
        if rule.get("secretGroup"):
            entry["group"] = rule["secretGroup"]
        if any(lists):
            entry["allowlists"] = [a for a in lists if a]
        rules.append(entry)
    glob = config.get("allowlist") or (config.get("allowlists") or [{}])[0]
    return {
        "source": "https://github.com/gitleaks/gitleaks (config/gitleaks.toml)",
        "commit": commit,
        "license": LICENSE,
        "allowlist": _allowlist(glob),
        "rules": rules,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("toml", type=Path, help="gitleaks' config/gitleaks.toml")
    parser.add_argument("--commit", required=True, help="the gitleaks commit it came from")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    data = convert(tomllib.loads(args.toml.read_text(encoding="utf-8")), args.commit)
    for rule in data["rules"]:
        try:
            re.compile(rule["regex"], re.ASCII)
        except re.error as exc:
            print(f"{rule['id']}: {exc}", file=sys.stderr)
            return 1
    args.out.write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(data['rules'])} rules from gitleaks {args.commit}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
