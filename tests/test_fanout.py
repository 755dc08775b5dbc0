"""fan_out: forked workers plus the parent, results in order, nothing lost when a child fails."""

from __future__ import annotations

import os
import time

import pytest

from ccstate import fanout

PARENT = os.getpid()


def square_and_pid(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def slow_square_and_pid(n: int) -> tuple[int, int]:
    time.sleep(0.002)  # long enough that every process gets some
    return square_and_pid(n)


def test_results_come_back_in_order_from_several_processes() -> None:
    items = list(range(60))
    seen: list[int] = []
    results = fanout.fan_out(slow_square_and_pid, items, 3, on_result=lambda i, _r: seen.append(i))
    assert [value for value, _pid in results] == [n * n for n in items]
    assert sorted(seen) == items  # on_result once per item, in the parent
    assert len({pid for _value, pid in results}) > 1  # the work was shared


def test_more_items_than_one_pipe_write_holds() -> None:
    """Indices go out 1,024 at a time as the pipe drains: 5,000 items need several refills."""
    results = fanout.fan_out(square_and_pid, range(5000), 2)
    assert [value for value, _pid in results] == [n * n for n in range(5000)]


def test_after_fork_runs_once_in_the_parent() -> None:
    calls: list[int] = []
    fanout.fan_out(square_and_pid, range(10), 2, after_fork=lambda: calls.append(os.getpid()))
    assert calls == [PARENT]
    fanout.fan_out(square_and_pid, range(10), 1, after_fork=lambda: calls.append(os.getpid()))
    assert calls == [PARENT, PARENT]


def fails_in_children(n: int) -> tuple[int, int]:
    if os.getpid() != PARENT:
        raise RuntimeError("a worker broke")
    return square_and_pid(n)


def test_what_a_failed_child_leaves_undone_the_parent_computes() -> None:
    results = fanout.fan_out(fails_in_children, range(50), 3)
    assert results == [(n * n, PARENT) for n in range(50)]


def fails_in_parent(n: int) -> int:
    if os.getpid() == PARENT:
        raise ValueError(f"bad item {n}")
    time.sleep(0.002)  # the parent gets items too
    return n


def test_an_error_in_the_parent_propagates_and_leaves_no_child_behind() -> None:
    with pytest.raises(ValueError, match="bad item"):
        fanout.fan_out(fails_in_parent, range(100), 3)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # every child was reaped


def test_one_worker_or_no_items_forks_nothing() -> None:
    assert fanout.fan_out(square_and_pid, [3], 4) == [(9, PARENT)]
    assert fanout.fan_out(square_and_pid, [], 4) == []
    assert fanout.fan_out(square_and_pid, range(3), 1) == [(n * n, PARENT) for n in range(3)]


def test_a_parent_that_only_collects_gets_every_result_from_its_children() -> None:
    seen: list[int] = []
    out = fanout.fan_out(
        slow_square_and_pid,
        list(range(40)),
        2,
        on_result=lambda i, _v: seen.append(i),
        parent_works=False,
    )
    assert [square for square, _pid in out] == [n * n for n in range(40)]
    assert PARENT not in {pid for _square, pid in out}  # the parent computed nothing
    assert len({pid for _square, pid in out}) == 2
    assert sorted(seen) == list(range(40))
