#!/usr/bin/env python3
"""The handoff's check verdicts over the transcript corpora, against a judged sample (#42).

Makes the figures of docs/HANDOFF.md's "Verification".

    python bench/handoff_checks.py            # counts per corpus, then the judged comparison
    python bench/handoff_checks.py --list     # also every Bash call the scan calls a check,
                                              # with its verdicts (prints transcript text)
    git archive f0ded35 src | tar -x -C /tmp/first   # the classifier of the first comparison
    python bench/handoff_checks.py --src /tmp/first/src

Re-reads every transcript of ../shared/transcripts/public and ../shared/transcripts/modern
(CCSTATE_SHARED names the shared folder elsewhere, as for the tests), pairs each Bash call
with its result, and runs the handoff's classifier (`handoff/checks.py`) on the whole
command and output, as the handoff scan does. Prints, per corpus, the Bash calls, the calls
with a check and the verdicts by outcome, and the same for the scan before #42 (a regex on
the command, "passed" when the result was no error).

Then the judged sample (`tests/fixtures/handoff/checks_judged.json`: 160 Bash calls drawn
with seed 42, 120 with a check-like word and 40 others, labelled by hand by someone who had
not seen the classifier; its `about` says how): is-a-check agreement, per tool the judge's
outcome against the classifier's, and the two figures #42's done-when needs at 0 (a call
reported passed whose tool the judge saw missing or failing; a non-check listed as a check),
each disagreement listed by sample id and transcript line (no transcript text). docs/HANDOFF.md
quotes the figures. The exit status is 1 when either done-when figure is not 0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# `--src DIR`: the classifier of another tree (e.g. an older commit's `git archive ... src`)
SRC = Path(sys.argv[sys.argv.index("--src") + 1]) if "--src" in sys.argv else REPO / "src"
sys.path.insert(0, str(SRC))

from ccstate.handoff import checks  # noqa: E402
from ccstate.transcript.content import block_text, message_content  # noqa: E402
from ccstate.transcript.lines import iter_numbered  # noqa: E402

SHARED = Path(os.environ.get("CCSTATE_SHARED") or REPO.parent / "shared")
CORPORA = ("public", "modern")
JUDGED = REPO / "tests" / "fixtures" / "handoff" / "checks_judged.json"
# The judge's words for an outcome, from the classifier's.
AS_JUDGED = {
    checks.PASSED: "passed",
    checks.FAILED: "failed",
    checks.MISSING: "not_installed",
    checks.NOT_RUN: "not run",
}
# The scan before #42 (src/ccstate/handoff/scan.py `_VERIFY`, 0c73d6d): a check was a
# command this matched, passed when its result was no error.
OLD_VERIFY = re.compile(
    r"(?:^|[\s;&|(/])(?:"
    r"pytest|py\.test|tox|nox|unittest|"
    r"(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:test|build|lint|typecheck|type-check|check|ci)\b|"
    r"(?:npx|bunx|pnpm\s+exec)\s+(?:jest|vitest|tsc|eslint|playwright|mocha)|"
    r"jest|vitest|tsc|eslint|mocha|"
    r"cargo\s+(?:test|build|check|clippy|nextest)|go\s+(?:test|build|vet)|"
    r"make|cmake\s+--build|ctest|ninja|mvn|gradle|\./gradlew|dotnet\s+(?:test|build)|"
    r"mix\s+(?:test|compile|credo|dialyzer)|rspec|rake\s+test|"
    r"ruff|mypy|pyright|flake8|pylint|black\s+--check|"
    r"swift\s+(?:test|build)|xcodebuild|bazel\s+(?:test|build)|deno\s+(?:test|check)|phpunit"
    r")\b"
)


@dataclass(frozen=True)
class Call:
    corpus: str
    file: str
    call_line: int
    result_line: int
    command: str
    output: str
    status: checks.Status

    def verdicts(self) -> list[checks.Verdict]:
        return checks.classify(self.command, self.output, self.status)

    def old_passed(self) -> bool | None:
        """The old scan's word: None (no check), True (passed), False (failed)."""
        if not OLD_VERIFY.search(self.command[:500]):
            return None
        return self.status.code == 0 and not self.status.interrupted


def read_calls(corpus: str) -> list[Call]:
    """Every Bash call of a corpus with its result, in file and line order."""
    folder = SHARED / "transcripts" / corpus
    calls = []
    for path in sorted(folder.glob("*.jsonl")):
        pending: dict[str, tuple[str, int]] = {}
        for line, record in iter_numbered(path):
            for block in message_content(record):
                kind = block.get("type")
                if kind == "tool_use" and block.get("name") == "Bash":
                    tool_input = block.get("input")
                    command = tool_input.get("command") if isinstance(tool_input, dict) else ""
                    pending[str(block.get("id"))] = (str(command or ""), line)
                elif kind == "tool_result" and str(block.get("tool_use_id")) in pending:
                    command, call_line = pending.pop(str(block.get("tool_use_id")))
                    calls.append(_call(corpus, path.name, call_line, line, command, block, record))
    return calls


def _call(
    corpus: str, file: str, call_line: int, line: int, command: str, block: Any, record: Any
) -> Call:
    output = block_text(block.get("content"))
    extra = record.get("toolUseResult")
    extra = extra if isinstance(extra, dict) else {}
    status = checks.status_of(
        output,
        is_error=bool(block.get("is_error")),
        interrupted=bool(extra.get("interrupted")),
        background=bool(extra.get("backgroundTaskId")),
    )
    return Call(corpus, file, call_line, line, command, output, status)


def corpus_counts(calls: list[Call]) -> dict[str, Any]:
    outcomes: Counter[str] = Counter()
    old: Counter[str] = Counter()
    checked = 0
    for call in calls:
        found = call.verdicts()
        checked += bool(found)
        outcomes.update(v.outcome for v in found)
        said = call.old_passed()
        if said is not None:
            old["passed" if said else "FAILED"] += 1
    return {"bash": len(calls), "checks": checked, "verdicts": outcomes, "old": old}


def print_counts(by_corpus: dict[str, list[Call]]) -> None:
    print("## The classifier over the corpora (every Bash call)\n")
    print("| corpus | Bash calls | calls with a check | tool verdicts | by outcome |")
    print("|---|---|---|---|---|")
    total: dict[str, Any] = {"bash": 0, "checks": 0, "verdicts": Counter(), "old": Counter()}
    for corpus, calls in by_corpus.items():
        counts = corpus_counts(calls)
        _row(corpus, counts)
        for key in total:
            total[key] += counts[key]
    _row("both", total)
    old = total["old"]
    print(
        f"\nThe scan before #42 on the same calls: {sum(old.values())} checks, "
        f"{old['passed']} passed, {old['FAILED']} FAILED (no other verdict)."
    )


def _row(name: str, counts: dict[str, Any]) -> None:
    verdicts: Counter[str] = counts["verdicts"]
    shown = ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items(), key=lambda kv: -kv[1]))
    print(
        f"| {name} | {counts['bash']} | {counts['checks']} | {sum(verdicts.values())} | {shown} |"
    )


def print_list(by_corpus: dict[str, list[Call]]) -> None:
    print("\n## Every call the scan calls a check\n")
    for corpus, calls in by_corpus.items():
        for call in calls:
            found = call.verdicts()
            if found:
                said = "; ".join(f"`{v.key}`: {v.text()}" for v in found)
                command = " ".join(call.command.split())[:160]
                print(f"- {corpus} {call.file}:{call.call_line}  {said}  <- `{command}`")


# --------------------------------------------------------------------------- the sample


def compare(by_corpus: dict[str, list[Call]], judged: dict[str, Any]) -> int:
    index = {(c.file, c.call_line, c.result_line): c for calls in by_corpus.values() for c in calls}
    rows = judged["calls"]
    kinds: Counter[tuple[bool, bool]] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    false_pass, listed, notes, old_false_pass, old_listed = [], [], [], [], []
    for row in rows:
        call = index.get((row["file"], row["call_line"], row["result_line"]))
        if call is None:
            notes.append(f"- #{row['id']}: {row['file']}:{row['call_line']} not found")
            continue
        found = call.verdicts()
        kinds[(bool(row["is_check"]), bool(found))] += 1
        where = f"#{row['id']} {row['corpus']} {row['file']}:{row['call_line']}"
        if found and not row["is_check"]:
            listed.append(f"- {where}: listed as {_said(found)}; judged no check ({row['note']})")
        if not found and row["is_check"]:
            notes.append(f"- {where}: not a check here; judged {_judged(row)} ({row['note']})")
        old = call.old_passed()
        if old is not None and not row["is_check"]:
            old_listed.append(row["id"])
        bad = {t["outcome"] for t in row["tools"]} & {"failed", "not_installed"}
        if old and bad:
            old_false_pass.append(row["id"])
        for judge, mine in _match(row["tools"], found):
            pairs[(judge["outcome"] if judge else "-", _mine(mine))] += 1
            if (
                mine is not None
                and mine.outcome == checks.PASSED
                and judge is not None
                and (judge["outcome"] in ("failed", "not_installed"))
            ):
                false_pass.append(f"- {where}: `{mine.key}` passed; judged {judge['outcome']}")
            elif judge is not None and mine is not None and _mine(mine) != judge["outcome"]:
                notes.append(
                    f"- {where}: `{mine.key}` {mine.text()}; judged `{judge['tool']}` "
                    f"{judge['outcome']} ({judge.get('figure') or judge.get('reason', '')})"
                )
            elif found and (judge is None) != (mine is None):  # no check here: noted above
                notes.append(f"- {where}: unpaired: judged {_judged(row)}; here {_said(found)}")
    _print_comparison(rows, kinds, pairs, false_pass, listed, notes, old_false_pass, old_listed)
    return 1 if false_pass or listed else 0


def _print_comparison(
    rows: list[Any],
    kinds: Counter[tuple[bool, bool]],
    pairs: Counter[tuple[str, str]],
    false_pass: list[str],
    listed: list[str],
    notes: list[str],
    old_false_pass: list[int],
    old_listed: list[int],
) -> None:
    print(f"\n## Against the judged sample ({len(rows)} calls)\n")
    agree = kinds[(True, True)] + kinds[(False, False)]
    print(
        f"is a check: {agree}/{sum(kinds.values())} agree "
        f"(both yes {kinds[(True, True)]}, both no {kinds[(False, False)]}, "
        f"judged yes/here no {kinds[(True, False)]}, judged no/here yes {kinds[(False, True)]})"
    )
    print("\n| judged \\ here | " + " | ".join(_COLUMNS) + " |")
    print("|---|" + "---|" * len(_COLUMNS))
    for judge in ("passed", "failed", "not_installed", "unknown", "-"):
        print(f"| {judge} | " + " | ".join(str(pairs[(judge, c)]) for c in _COLUMNS) + " |")
    same = sum(pairs[(j, j)] for j in ("passed", "failed", "not_installed", "unknown"))
    judged_tools = sum(n for (j, _c), n in pairs.items() if j != "-")
    print(
        f"\nper tool, the same outcome as the judge: {same}/{sum(pairs.values())} pairs "
        f"({judged_tools} tools judged); judged passed and passed here: "
        f"{pairs[('passed', 'passed')]}/{sum(pairs[('passed', c)] for c in _COLUMNS)}"
    )
    print(f"reported passed, judged failed or not installed: {len(false_pass)}")
    print(*false_pass, sep="\n") if false_pass else None
    print(f"non-checks listed as checks: {len(listed)}")
    print(*listed, sep="\n") if listed else None
    print(
        f"\nThe scan before #42 on the sample: {len(old_false_pass)} calls passed whose tool "
        f"the judge saw failing or missing (ids {old_false_pass}); {len(old_listed)} non-checks "
        "listed as checks."
    )
    print(f"\nOther disagreements ({len(notes)}):")
    print(*notes, sep="\n")


_COLUMNS = ("passed", "failed", "not_installed", "not run", "unknown", "-")


def _mine(verdict: checks.Verdict | None) -> str:
    if verdict is None:
        return "-"
    return AS_JUDGED.get(verdict.outcome, "unknown")


def _said(found: list[checks.Verdict]) -> str:
    return "; ".join(f"`{v.key}` {v.text()}" for v in found) or "nothing"


def _judged(row: dict[str, Any]) -> str:
    return "; ".join(f"`{t['tool']}` {t['outcome']}" for t in row["tools"]) or "no tool"


def _match(
    judged: list[dict[str, Any]], found: list[checks.Verdict]
) -> list[tuple[dict[str, Any] | None, checks.Verdict | None]]:
    """Pairs of (judged tool, verdict) by name; what pairs with nothing, alone."""
    left = list(found)
    out: list[tuple[dict[str, Any] | None, checks.Verdict | None]] = []
    for tool in judged:
        pick = next((v for v in left if _same_tool(tool["tool"], v)), None)
        if pick is None and len(judged) == 1 and len(left) == 1:
            pick = left[0]
        if pick is not None:
            left.remove(pick)
        out.append((tool, pick))
    return out + [(None, v) for v in left]


def _same_tool(name: str, verdict: checks.Verdict) -> bool:
    if " ".join(name.lower().split()) == verdict.tool.lower():
        return True
    words = set(re.findall(r"[\w.-]+", name.lower()))
    mine = set(re.findall(r"[\w.-]+", verdict.tool.lower()))
    generic = {"npm", "run", "pnpm", "yarn", "python", "python3", "-m", "uv", "npx", "cargo", "go"}
    return bool((words & mine) - generic) or words == mine


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--list", action="store_true", help="every check call and its verdict")
    parser.add_argument("--judged", type=Path, default=JUDGED, help="the judged sample")
    parser.add_argument("--src", type=Path, help="run the classifier of this source tree")
    args = parser.parse_args()
    missing = [c for c in CORPORA if not (SHARED / "transcripts" / c).is_dir()]
    if missing:
        print(f"no transcripts at {SHARED}/transcripts/{missing[0]} (set CCSTATE_SHARED)")
        return 2
    by_corpus = {corpus: read_calls(corpus) for corpus in CORPORA}
    print_counts(by_corpus)
    if args.list:
        print_list(by_corpus)
    judged = json.loads(args.judged.read_text(encoding="utf-8"))
    return compare(by_corpus, judged)


if __name__ == "__main__":
    sys.exit(main())
