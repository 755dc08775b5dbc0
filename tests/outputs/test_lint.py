"""Linter reports grouped by rule (outputs/lint.py)."""

from __future__ import annotations

from ccstate.outputs import lines as L
from ccstate.outputs import lint
from helpers import FIXTURES


def test_warnings_are_grouped_and_every_error_row_stays_under_its_file() -> None:
    rows = L.normalize((FIXTURES / "outputs" / "eslint-2-errors.txt").read_text())
    grouped = lint.group_warnings(rows)
    assert grouped is not None
    out, numbers = grouped
    assert len(out) == len(numbers)
    assert "/work/web/src/components/widget_04.tsx" in out
    assert "  12:7   error    'useMemo' is not defined                  no-undef" in out
    assert "✖ 74 problems (2 errors, 72 warnings)" in out
    groups = [line for line in out if line.startswith("[ccstate: ") and "x " in line]
    assert len(groups) == 1 and groups[0].startswith(
        '[ccstate: 69x "Unexpected any. Specify a different type" and the like '
        "(@typescript-eslint/no-explicit-any) in 18 files: widget_00.tsx:"
    )
    assert not any("warning  Unexpected any" in line for line in out)


def test_a_warning_whose_message_names_a_failure_is_kept() -> None:
    rows = ["/w/a.ts"] + [f"  {i}:1  warning  Unexpected any  no-explicit-any" for i in range(12)]
    rows += ["  20:1  warning  'error' is assigned a value but never used  no-unused-vars"]
    out, _numbers = lint.group_warnings(rows) or ([], [])
    assert "  20:1  warning  'error' is assigned a value but never used  no-unused-vars" in out


def test_output_that_is_mostly_not_a_report_is_left_alone() -> None:
    rows = ["/w/a.ts", "  1:1  warning  x  r"] + [f"log line {i}" for i in range(40)]
    assert lint.group_warnings(rows) is None
