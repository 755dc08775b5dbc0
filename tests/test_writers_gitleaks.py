"""gitleaks' own samples through every writer ccstate has (issue #23, point 1).

tests/secrets/test_gitleaks.py runs the redactor over each sample alone; here the samples go where a
session leaves text (tests/writers.py: prompts, commands, long outputs, errors, edits, paths,
todos, commits, checks, answers, notes, hook commands, re-read paths, crashing hook payloads),
many to a session, and every writer runs: handoff (markdown, JSON), progress log, notes,
capsule, `handoff show` (text, --json), hooks.log, the recall index (its database files:
moments, stored state, keys), `recall` (text, --json) and `report`'s text. Then:

- no 12-character stretch of any true positive's secret is in any byte written or shown;
- with redaction on and off, every writer gives the same bytes for gitleaks' false positives
  (those the redactor alone leaves: all but the 23 `BY_DESIGN`, which test_gitleaks checks)
  and for ccstate's own look-alike corpus (all but what the redactor alone changes, at most
  2 %, tests/handoff/test_secrets_corpus.py): no writer mangles what redaction keeps.
"""

from __future__ import annotations

import collections
import difflib
import os
import re
import shutil
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import ahocorasick_rs
import pytest

from ccstate import paths
from ccstate.recall import index as recall_index
from ccstate.secrets import redact
from gitleaks_corpus import BY_DESIGN, FALSE_POSITIVES, TRUE_POSITIVES, WRAPPERS
from gitleaks_corpus import windows as secret_windows
from secrets_corpus import KINDS, ORDINARY
from writers import Written, plan, plan_at, run_writers

_MARK = re.compile(r"\[REDACTED:[^\]]*\]")


def found(texts: Iterable[tuple[str, str]], windows: Iterable[str]) -> dict[str, set[str]]:
    """{where: the windows found there}, redaction marks taken out first (a mark names a
    rule, `bedrock-api-key`, which a secret may share)."""
    finder = ahocorasick_rs.AhoCorasick(list(windows))
    out: dict[str, set[str]] = {}
    for where, text in texts:
        plain = _MARK.sub("\0", text)
        hits = {plain[a:b] for _n, a, b in finder.find_matches_as_indexes(plain, overlapping=True)}
        if hits:
            out[where] = hits
    return out


def test_no_gitleaks_true_positive_survives_any_writer(
    git_project: Path, isolated_home: Path
) -> None:
    texts = [text for _rule, text, _secrets in TRUE_POSITIVES]
    owners: dict[str, set[int]] = collections.defaultdict(set)
    for n, (_rule, _text, secrets) in enumerate(TRUE_POSITIVES):
        for secret in secrets:
            for window in secret_windows(secret):
                owners[window].add(n)
    # A window the redactor keeps in some sample's own text (there it is no secret: another
    # rule's context) tells nothing when found: left out.
    kept = found(((str(n), redact.redact(t)) for n, t in enumerate(texts)), owners)
    for window in set().union(*kept.values()):
        del owners[window]
    testable = {n for samples in owners.values() for n in samples}
    with_windows = {
        n for n, (_r, _t, secrets) in enumerate(TRUE_POSITIVES) if any(map(secret_windows, secrets))
    }
    assert len(testable) >= len(with_windows) - 10, sorted(with_windows - testable)
    written = run_writers(git_project, isolated_home, plan(texts, rounds=2))
    assert any(name.startswith("recall/") for name in written.files)
    leaks = {
        where: sorted({TRUE_POSITIVES[n][0] for w in windows for n in owners[w]})
        for where, windows in found(written.texts(), owners).items()
    }
    assert leaks == {}


# Where a transcript ends a secret (#37), by position: a tool's error (its end touches
# `</tool_use_error>`), a commit subject, a todo, a task's title; per session, what a handoff
# shows of each (10 failed calls, 8 commits, 60 open todos and tasks).
ENDS_AT = ("error", "commit", "todo", "task")
ENDS_CAPACITY = {"error": 10, "commit": 8, "todo": 40, "task": 20}
# Wrappers per sample: 1 in CI (each sample in one of `WRAPPERS`, in turn: every rule in each
# wrapper), 9 (`WRAPPED_EACH=9`, about 5 minutes) for every sample in every wrapper, at every
# one of the four positions.
WRAPPED_EACH = int(os.environ.get("WRAPPED_EACH", "1"))


def test_no_true_positive_survives_any_writer_where_transcripts_end_it(
    git_project: Path, isolated_home: Path
) -> None:
    """#37: gitleaks' samples inside a tag, brackets, pipes, backticks, before a comma or a full
    stop, between JSON-escaped newlines or tabs (`WRAPPERS`), at the end of a tool's error, a
    commit subject, a todo and a task's title: no 12-character stretch of a secret in any byte
    a writer writes (the handoff, its JSON, the progress log, the compaction facts, the recall
    index's database files). A key's armor (`-----BEGIN RSA PRIVATE KEY-----`) is the same in
    every key, and a commit subject keeps a block's first line: it is not counted."""
    placed: list[tuple[str, str]] = []
    owners: dict[str, set[int]] = collections.defaultdict(set)
    for n, (_rule, text, secrets) in enumerate(TRUE_POSITIVES):
        for k in range(WRAPPED_EACH):
            before, after = WRAPPERS[(n + k) % len(WRAPPERS)]
            placed.append((ENDS_AT[(n + k) % len(ENDS_AT)], before + text + after))
            for secret in secrets:
                for window in secret_windows(secret) - _armor(secret):
                    owners[window].add(n)
    # A window the redactor keeps in a sample's own text, unwrapped, is no secret there (as in
    # the test above); kept in a wrapped text, it is a leak.
    texts = ((str(n), redact.redact(text)) for n, (_r, text, _s) in enumerate(TRUE_POSITIVES))
    for window in set().union(*found(texts, owners).values()):
        del owners[window]
    with_windows = {
        n for n, (_r, _t, s) in enumerate(TRUE_POSITIVES) if any(map(secret_windows, s))
    }
    testable = {n for samples in owners.values() for n in samples}
    assert len(testable) >= len(with_windows) - 10, sorted(with_windows - testable)
    sessions = plan_at(placed, ENDS_CAPACITY)
    written = run_writers(git_project, isolated_home, sessions, shown=False)
    assert any(name.startswith("recall/") for name in written.files)
    assert any("facts" in where for where, _text in written.texts())
    leaks = {
        where: sorted({TRUE_POSITIVES[n][0] for w in windows for n in owners[w]})
        for where, windows in found(written.texts(), owners).items()
    }
    assert leaks == {}


_ARMOR = re.compile(r"\s*-----(?:BEGIN|END)[A-Z0-9 ]*-----\s*")


def _armor(secret: str) -> set[str]:
    """The windows of `secret` within an armor line of a PEM block and its line breaks."""
    return {w for m in _ARMOR.finditer(secret) for w in secret_windows(m.group(0))}


_FILE_ID = re.compile(r'"file":\[\d+,\d+\]')  # a kept scan's transcript (device, inode)
_STAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?Z?|\b1[6-9]\d{8}(?:\.\d+)?\b")
# What differs between two runs whatever the texts: run times, caches of file stamps, the
# index's pages and `recall`'s order among equal scores (by the notes' times); the index is
# compared by its rows.
_RUN_ONLY = ("heartbeat/", "cache/", "recall/", "recall ")


def _comparable(written: Written, project: Path) -> dict[str, str]:
    """What the writers wrote and showed, the run's own stamps taken out; the index as its
    moments (`docs` rows), not its pages."""
    out = {
        where: _FILE_ID.sub('"file":"<inode>"', _STAMP.sub("<time>", text))
        for where, text in written.texts()
        if not where.startswith(_RUN_ONLY)
    }
    con = sqlite3.connect(recall_index.index_path(paths.state_dir(project)))
    try:
        rows = con.execute("SELECT kind, session, line, title, body FROM docs ORDER BY 1, 2, 3")
        out["recall docs"] = "\n".join("\x1f".join(map(str, row)) for row in rows)
        state = con.execute("SELECT state FROM sources ORDER BY path")
        out["recall state"] = "\n".join(row[0] for row in state)
    finally:
        con.close()
    return out


def _twice(project: Path, home: Path, texts: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple:
    """Every writer over `texts` with redaction, then again with redaction doing nothing."""
    runs = []
    for off in (False, True):
        for made in (paths.state_dir(project), home / ".claude", home / ".cache"):
            shutil.rmtree(made, ignore_errors=True)
        with monkeypatch.context() as patch:
            if off:
                patch.setattr(redact, "apply_rules", lambda text, every_rule=False: text)
            runs.append(_comparable(run_writers(project, home, plan(texts)), project))
    return runs[0], runs[1]


def test_writers_change_no_false_positive_the_redactor_keeps(
    git_project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gitleaks' false positives and ccstate's look-alikes: the redactor alone changes the
    23 `BY_DESIGN` and at most 2 % of the look-alikes; through every writer nothing else."""
    kept = [text for _rule, text in FALSE_POSITIVES if redact.redact(text) == text]
    assert len(kept) == len(FALSE_POSITIVES) - sum(n for n, _why in BY_DESIGN.values())
    alike = [*ORDINARY, *(look for _k, _t, _s, look in KINDS)]
    kept_alike = [s for s in alike if redact.redact(s) == s]
    assert len(kept_alike) >= 0.98 * len(alike)
    on, off = _twice(git_project, isolated_home, [*kept, *kept_alike], monkeypatch)
    assert on.keys() == off.keys()
    changed = {
        where: difflib.unified_diff(off[where].splitlines(), on[where].splitlines(), n=0)
        for where in on
        if on[where] != off[where]
    }
    shown = "\n".join(f"{where}:\n" + "\n".join(list(d)[2:8]) for where, d in changed.items())
    assert not changed, shown
    # the comparison saw the texts: most have their first line written somewhere as it is
    # (JSON files escape the quotes of the others)
    everything = "\n".join(on.values())
    seen = [text for text in kept if text.strip().splitlines()[0][:40] in everything]
    assert len(seen) >= 0.8 * len(kept), [t for t in kept if t not in seen][:5]
