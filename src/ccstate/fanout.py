"""Run a function over many items in forked worker processes, the calling process included.

`ccstate report` spreads transcript scans over the CPUs with this instead of
`concurrent.futures.ProcessPoolExecutor`: on the public corpus the executor's machinery (its
imports, queues, feeder threads and idle parent) cost more than a second CPU saved, so
`-j 2` was slower than `-j 1`. Here the parent forks `workers - 1` children and scans too.

- Work is handed out one item at a time through a non-blocking pipe of 4-byte indices, so a
  process that drew small items takes more of them. Every write is a whole number of
  indices within PIPE_BUF (all or nothing) and every read takes one, so no index is ever
  split; the parent refills the pipe as it drains, whatever its capacity.
- Each child sends `(index, result)` frames (length-prefixed pickles) on its own pipe; the
  parent reads them between its own items, so `on_result` (a progress bar) sees them as they
  come.
- Anything a child does not deliver (it raised, was killed, sent garbage) the parent computes
  itself at the end, so an error surfaces in the parent with its normal traceback.
- Without `os.fork` (Windows) or with one worker, everything runs in the parent.

Standard library only; the caller forks before it starts threads (a progress bar's refresher).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_INDEX = struct.Struct("<I")
_LENGTH = struct.Struct("<Q")
_BATCH = 1024  # indices per write: 4 KiB, within PIPE_BUF, so each write is all or nothing


def fan_out(
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    on_result: Callable[[int, R], None] | None = None,
    after_fork: Callable[[], None] | None = None,
    *,
    parent_works: bool = True,
) -> list[R]:
    """`[func(item) for item in items]`, computed by `workers` processes (this one included).

    Items are handed out in order: put the expensive ones first. `after_fork` runs in the
    parent once the children exist (start threads there, not before). `parent_works=False`:
    `workers` children compute and the parent only takes their results as they come (when
    `on_result` is work of its own, e.g. the one writer of a database: a child never waits
    for the parent to finish an item before its result is read).
    """
    results: dict[int, R] = {}

    def deliver(index: int, value: R) -> None:
        if index not in results:
            results[index] = value
            if on_result is not None:
                on_result(index, value)

    workers = min(workers, len(items))
    if workers > 1 and hasattr(os, "fork"):
        _run_forked(func, items, workers, deliver, after_fork, parent_works)
    elif after_fork is not None:
        after_fork()
    for index, item in enumerate(items):  # one worker, or whatever the children left undone
        if index not in results:
            deliver(index, func(item))
    return [results[i] for i in range(len(items))]


def auto_workers(files: int, size: int, min_size: int, per_worker: int) -> int:
    """Processes for `files` items of `size` bytes in all: one per CPU this process may run
    on (its affinity, not the host's count, in a container), at most one per file and per
    `per_worker` bytes, and one below `min_size` (forking would cost more than it saves)."""
    if size < min_size:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, files, size // per_worker))


def _run_forked(
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    deliver: Callable[[int, R], None],
    after_fork: Callable[[], None] | None,
    parent_works: bool = True,
) -> None:
    tasks_r, tasks_w = os.pipe()
    os.set_blocking(tasks_w, False)
    os.set_blocking(tasks_r, False)  # shared by all: children wait in select, never in read
    feeder = _Feeder(tasks_w, len(items))
    feeder.fill()
    sys.stdout.flush()  # a child must not write the parent's buffered output again
    sys.stderr.flush()
    children: list[_Child] = []
    for _ in range(workers - 1 if parent_works else workers):
        out_r, out_w = os.pipe()
        _widen(out_w)
        try:
            pid = os.fork()
        except OSError:  # no more processes allowed: fewer workers
            os.close(out_r)
            os.close(out_w)
            break
        if pid == 0:  # the child: never returns
            os.close(out_r)
            feeder.close()  # its copy: the parent alone ends the task list
            _child_main(func, items, tasks_r, out_w)
        os.close(out_w)
        children.append(_Child(pid, out_r))
    try:
        if after_fork is not None:
            after_fork()
        while not parent_works and any(child.fd is not None for child in children):
            feeder.fill()
            open_fds = [child.fd for child in children if child.fd is not None]
            select.select(open_fds, [], [], 0.05)  # the timeout: refill the task pipe
            for child in children:
                child.poll(deliver, block=False)
        while parent_works:
            feeder.fill()
            try:
                index = _next_task(tasks_r)
            except BlockingIOError:  # the children emptied it: refill
                continue
            if index is None:
                break
            deliver(index, func(items[index]))
            for child in children:
                child.poll(deliver, block=False)
        for child in children:
            child.poll(deliver, block=True)
    except BaseException:  # an error or Ctrl-C here: the children's work is not wanted
        for child in children:
            child.kill()
        raise
    finally:
        os.close(tasks_r)
        feeder.close()
        for child in children:
            child.close()


def _widen(fd: int) -> None:
    """A 1 MiB result pipe where Linux allows it: a child then waits less often for the
    parent, which reads results only between its own items (the default 64 KiB holds a few
    scans)."""
    try:
        import fcntl
    except ImportError:  # Windows: no fork either
        return
    if hasattr(fcntl, "F_SETPIPE_SZ"):
        with contextlib.suppress(OSError):  # over /proc/sys/fs/pipe-max-size: keep the default
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)


class _Feeder:
    """Writes the task indices into the pipe as room allows; closes it after the last one."""

    def __init__(self, fd: int, count: int) -> None:
        self.fd: int | None = fd
        self.next = 0
        self.count = count

    def fill(self) -> None:
        while self.fd is not None and self.next < self.count:
            end = min(self.count, self.next + _BATCH)
            chunk = b"".join(_INDEX.pack(i) for i in range(self.next, end))
            try:
                os.write(self.fd, chunk)
            except BlockingIOError:
                return
            self.next = end
        self.close_if_done()

    def close_if_done(self) -> None:
        if self.fd is not None and self.next >= self.count:
            self.close()

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _next_task(fd: int) -> int | None:
    """The next index from the task pipe; None once it is empty and closed (BlockingIOError:
    empty for now)."""
    data = os.read(fd, _INDEX.size)
    if len(data) < _INDEX.size:
        return None
    value: int = _INDEX.unpack(data)[0]
    return value


def _wait_for_task(fd: int) -> int | None:
    while True:
        select.select([fd], [], [])
        try:
            return _next_task(fd)
        except BlockingIOError:  # another process took it
            continue


def _child_main(func: Callable[[Any], Any], items: Sequence[Any], tasks: int, out: int) -> None:
    code = 1
    try:
        with os.fdopen(out, "wb") as sink:
            while (index := _wait_for_task(tasks)) is not None:
                frame = pickle.dumps((index, func(items[index])), pickle.HIGHEST_PROTOCOL)
                sink.write(_LENGTH.pack(len(frame)) + frame)
                sink.flush()
        code = 0
    except BaseException:  # the parent computes what this child did not deliver
        code = 1
    finally:
        os._exit(code)  # no atexit handlers, no second flush of inherited buffers


class _Child:
    """One child's result pipe: frames are parsed as they arrive."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd: int | None = fd
        self.buffer = bytearray()
        os.set_blocking(fd, False)

    def poll(self, deliver: Callable[[int, Any], None], *, block: bool) -> None:
        """Read what is there (block: everything, to the end of the pipe) and deliver it."""
        while self.fd is not None:
            if block:
                select.select([self.fd], [], [])
            try:
                data = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                return
            if not data:
                self.close()
                return
            self.buffer += data
            self._frames(deliver)

    def _frames(self, deliver: Callable[[int, Any], None]) -> None:
        start = 0
        while len(self.buffer) - start >= _LENGTH.size:
            (size,) = _LENGTH.unpack_from(self.buffer, start)
            end = start + _LENGTH.size + size
            if len(self.buffer) < end:
                break
            try:
                index, value = pickle.loads(self.buffer[start + _LENGTH.size : end])
            except Exception:  # garbage: the parent recomputes whatever is missing
                index = None
            if isinstance(index, int):
                deliver(index, value)
            start = end
        del self.buffer[:start]

    def kill(self) -> None:
        import signal

        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.pid:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0
