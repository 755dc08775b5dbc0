"""Fault injection through the real hook entry points, checked by an independent model
(issue #12; the model and the driver: tests/fault_model.py; the figures: docs/RELIABILITY.md).

CI runs a few sequences; `CCSTATE_FAULTS_LONG=1` runs many more, with lock timeouts (seconds
each) in the mix: `CCSTATE_FAULTS_LONG=1 pytest tests/hooks/test_fault_injection.py`.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import fault_model as fm
from ccstate.compaction.steer import HEADER as STEER_HEADER
from ccstate.hooks import __main__ as guard

LONG = os.environ.get("CCSTATE_FAULTS_LONG") == "1"
SEQUENCES = 200 if LONG else 10
MAX_STEPS = 45 if LONG else 24
FAULTS = fm.FAULTS if LONG else tuple(f for f in fm.FAULTS if f != "lock")


def _weighted(values: tuple[str, ...], weights: list[int]) -> st.SearchStrategy[str]:
    return st.sampled_from([v for v, w in zip(values, weights, strict=False) for _ in range(w)])


fault = _weighted(FAULTS, fm.FAULT_WEIGHTS)
read = st.tuples(
    st.just("read"),
    st.sampled_from(fm.AGENTS),
    st.sampled_from(fm.FILES),
    st.sampled_from(fm.WINDOWS),
    fault,
).map(lambda t: (t[0], t[1], t[2], t[3][0], t[3][1], t[4]))
change = st.tuples(
    st.just("change"), st.sampled_from(fm.FILES), st.integers(0, 99), st.sampled_from(fm.CHANGES)
)
compact = st.tuples(st.just("compact"), fault, fault, st.booleans())
step = st.one_of(
    read,
    read,
    read,
    read,
    change,
    compact,
    st.just(("micro",)),
    st.tuples(st.just("resume"), fault),
    st.just(("idle",)),
)
SEQUENCE = [
    ("read", None, "a.py", 0, 0, "none"),
    ("read", None, "a.py", 0, 0, "none"),
    ("read", None, "b.py", 0, 0, "none"),
]


@settings(
    max_examples=SEQUENCES,
    deadline=None,
    derandomize=not LONG,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(steps=st.lists(step, min_size=4, max_size=MAX_STEPS), launcher=st.booleans())
@example(  # every epoch kind with its hooks failing, through the launcher and a broken venv
    steps=[
        *SEQUENCE,
        ("compact", "unwritable", "kill", True),
        ("read", None, "a.py", 0, 0, "none"),
        ("read", None, "a.py", 0, 0, "none"),
        ("read", None, "b.py", 0, 0, "none"),
        ("compact", "none", "none", False),
        ("read", None, "a.py", 0, 0, "none"),
        ("read", "a0000000000000001", "a.py", 0, 0, "none"),
        ("read", "a0000000000000001", "a.py", 0, 0, "corrupt"),
        ("micro",),
        ("read", None, "a.py", 0, 0, "none"),
        ("resume", "unwritable"),
        ("read", None, "b.py", 0, 0, "kill"),
        ("idle",),
        ("read", None, "b.py", 0, 0, "none"),
    ],
    launcher=True,
)
@example(  # a lock held past its timeout, at a Read and at PreCompact
    steps=[
        *SEQUENCE,
        ("read", None, "a.py", 0, 0, "lock"),
        ("compact", "lock", "none", True),
        *SEQUENCE,
    ],
    launcher=False,
)
def test_no_false_notice_under_faults(steps: list[tuple[Any, ...]], launcher: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = fm.World(Path(tmp), launcher=launcher)
        figures = fm.run_steps(world, steps)
    assert figures.false_notices == []
    assert figures.bad_exits == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=12,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "session_id": st.one_of(st.text(max_size=40), JSON),
        "cwd": st.one_of(st.just("."), JSON),
        "agent_id": JSON,
        "transcript_path": st.one_of(st.just("/dev/zero"), JSON),
        "tool_name": st.sampled_from(["Read", "Bash", "Edit", "Write"]),
        "tool_input": JSON,
        "tool_response": st.one_of(
            JSON,
            st.fixed_dictionaries(
                {"type": st.just("text")},
                optional={
                    "file": st.fixed_dictionaries(
                        {},
                        optional={
                            "filePath": st.one_of(st.just("/dev/zero"), JSON),
                            "content": JSON,
                            "numLines": JSON,
                            "startLine": JSON,
                            "totalLines": JSON,
                        },
                    )
                },
            ),
        ),
        "source": JSON,
        "trigger": JSON,
    },
)


@settings(max_examples=300 if LONG else 60, deadline=None)
@given(fields=FIELDS, event=st.sampled_from(["PostToolUse", "PreCompact", "SessionStart"]))
def test_malformed_payloads_never_escape_the_guard(fields: dict[str, Any], event: str) -> None:
    """Any payload: no exception, no output but at most one JSON object (or nothing; or for
    PreCompact, the block for the summariser, plain text)."""
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / ".git").mkdir()
        fields = {**fields, "cwd": str(project)} if fields.get("cwd") == "." else fields
        out = io.StringIO()
        env = {"CLAUDE_PROJECT_DIR": str(project), "HOME": tmp}
        guard.run(event, io.StringIO(json.dumps(fields)), out, env)
        text = out.getvalue()
        if event == "PreCompact" and text.startswith(STEER_HEADER):
            return
        assert text == "" or isinstance(json.loads(text), dict)
