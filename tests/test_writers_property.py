"""A planted secret, anywhere a session leaves text, never reaches what ccstate writes (#23,
point 2: "redact before any cut, and every stored string").

Hypothesis picks a secret (the text of a gitleaks true positive, tests/fixtures/gitleaks, or
one of ccstate's own kinds, tests/secrets_corpus.py), where it goes (tests/writers.py
`POSITIONS`: a prompt, a command, a failed command's output, an edit, an error, a file path,
a todo, a commit, a check, an answer, a note, a crashing hook payload), and ordinary text
around it that puts it across one of the cuts the writers make there (`writers.CUTS`: from
120 characters to the 16 KB an output is looked through at each end). Every writer then runs
(tests/writers.py), and no stretch of 12 characters of the secret (the whole of a shorter one)
may be in any file of the state dir, the index's database files included. A second test walks
that grid whole for a few secrets whose rules need them whole.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccstate import paths
from gitleaks_corpus import TRUE_POSITIVES, surviving, windows
from secrets_corpus import KINDS
from writers import CUTS as WRITER_CUTS
from writers import POSITIONS, Session, plan_at, run_writers

EXAMPLES = int(os.environ.get("WRITERS_EXAMPLES", "30"))
PLANTED = [
    (rule, text, secrets) for rule, text, secrets in TRUE_POSITIVES if any(map(windows, secrets))
]
PLANTED += [(kind, text, [secret]) for kind, text, secret, _look in KINDS]
PLACES = [p for p in POSITIONS if p not in ("hook", "reread")]  # those are report's, not stored
LINES = ["compiling module 7", "ok 12 tests passed", "  at parse (src/dates.py:41)", "", "x" * 90]


def _filler(size: int, seed: int) -> str:
    """`size` characters of ordinary output lines."""
    out, n = [], 0
    while n < size:
        line = LINES[(seed + len(out)) % len(LINES)]
        out.append(line)
        n += len(line) + 1
    return "\n".join(out)[:size]


@st.composite
def planted(draw: st.DrawFn) -> tuple[str, str, list[str], str]:
    """(rule, text, its secrets, where it goes): the secret near one of the cuts its position
    makes (`writers.CUTS`), counted from the text's start or from its end, anywhere within
    64 characters of it, at the start of a line or after a long one (recall cuts lines to
    240 characters), with ordinary text around it."""
    rule, text, secrets = draw(st.sampled_from(PLANTED))
    place = draw(st.sampled_from(PLACES))
    cut = draw(st.sampled_from(WRITER_CUTS[place])) + draw(st.integers(-64, 64))
    seed = draw(st.integers(0, 9))
    column = draw(st.sampled_from([0, 0, 0, 170, 200, 220, 230]))
    glue = "\n" + "=" * column + " " if column else draw(st.sampled_from(["\n", " ", "\t"]))
    if draw(st.booleans()):  # from the start
        before, after = _filler(max(0, cut), seed), _filler(draw(st.sampled_from([0, 300])), seed)
    else:
        before, after = _filler(draw(st.sampled_from([0, 2000])), seed), _filler(max(0, cut), seed)
    return rule, f"{before}{glue}{text}\n{after}", secrets, place


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(sample=planted())
def test_a_planted_secret_reaches_nothing_ccstate_writes(
    sample: tuple[str, str, list[str], str], git_project: Path, isolated_home: Path
) -> None:
    rule, text, secrets, place = sample
    for made in (paths.state_dir(git_project), isolated_home / ".claude"):
        shutil.rmtree(made, ignore_errors=True)
    written = run_writers(
        git_project,
        isolated_home,
        [Session("5ec23000-0000-4000-8000-0000000000aa", {place: [text]})],
        shown=False,
    )
    assert "recall/index.sqlite" in written.files
    wanted = set().union(*map(windows, secrets))
    leaks = {where: surviving(out, wanted) for where, out in written.texts()}
    assert {where: found for where, found in leaks.items() if found} == {}, (rule, place)


# Secrets whose rule needs them whole (an exact length, a `BEGIN` line, a name before them)
GRID_RULES = ("github-pat", "gcp-api-key", "slack-bot-token", "private-key", "openai-api-key")
GRID_KINDS = ("aws-secret-assignment", "anthropic-key", "jwt")


def _grid_samples() -> list[tuple[str, str, list[str]]]:
    picked: dict[str, tuple[str, str, list[str]]] = {}
    for rule, text, secrets in TRUE_POSITIVES:
        if rule in GRID_RULES and rule not in picked and len(text) < 400:
            picked[rule] = (rule, text, secrets)
    for kind, text, secret, _look in KINDS:
        if kind in GRID_KINDS:
            picked[kind] = (kind, text, [secret])
    assert len(picked) == len(GRID_RULES) + len(GRID_KINDS)
    return list(picked.values())


def test_secrets_across_every_cut_reach_nothing_ccstate_writes(
    git_project: Path, isolated_home: Path
) -> None:
    """The grid the property samples from, walked whole for a few secrets: each position,
    each of its cuts (`writers.CUTS`), the secret's middle on the cut from the start and from
    the end."""
    placed, wanted = [], {}
    for n, (rule, text, secrets) in enumerate(_grid_samples()):
        for position, cuts in WRITER_CUTS.items():
            if position in ("hook", "reread"):
                continue
            for cut in cuts:
                half = len(text) // 2
                head = _filler(max(0, cut - half), n) + "\n" + text + "\n" + _filler(40, n)
                tail = _filler(2000, n) + "\n" + text + "\n" + _filler(max(0, cut - half), n)
                placed += [(position, head), (position, tail)]
        wanted[rule] = set().union(*map(windows, secrets))
    written = run_writers(git_project, isolated_home, plan_at(placed), shown=False)
    leaks = {
        (where, rule)
        for where, out in written.texts()
        for rule, found in wanted.items()
        if surviving(out, found)
    }
    assert leaks == set()
