"""Which transcripts `ccstate report` reads, and their scans: cached, or read over workers.

Big inputs are scanned by processes forked in `fanout` (the caller's own process included);
small ones in this process. No click or rich: the CLI passes its progress bar in.
"""

from __future__ import annotations

import functools
import glob
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ccstate import paths, transcript
from ccstate.errors import CcstateError

if TYPE_CHECKING:
    from ccstate.report import usage

PARALLEL_MIN_BYTES = 4 << 20  # below this, forking workers costs more than it saves
BYTES_PER_WORKER = 2 << 20  # auto: no more workers than this many bytes each would keep busy


class Progress(Protocol):
    """What `scan_all` tells about its progress: started, bytes done, stopped."""

    def start(self) -> None: ...
    def advance(self, size: int) -> None: ...
    def stop(self) -> None: ...


class _Silent:
    def __init__(self, count: int, size: int) -> None:
        pass

    def start(self) -> None:
        pass

    def advance(self, size: int) -> None:
        pass

    def stop(self) -> None:
        pass


def select_transcripts(
    given: tuple[Path, ...],
    session_id: str | None,
    all_projects: bool,
    root: Path,
    environ: Any,
) -> list[Path]:
    """The transcript files to read: given files/dirs, one session, all projects, or the
    project's own folder under `~/.claude/projects`."""
    projects = paths.user_claude_dir(environ) / "projects"
    if given:
        found = [f for g in given for f in (_in_dir(g) if g.is_dir() else _with_subagents(g))]
    elif session_id:  # a full id, or its start as ccstate prints it
        pattern = f"*/{glob.escape(session_id)}*.jsonl"
        mains = transcript.session_transcripts(session_id, projects.glob(pattern))
        found = [f for m in mains for f in _with_subagents(m)]
        if not found:
            raise CcstateError(f"No transcript for session {session_id} under {projects}")
    elif all_projects:
        found = _in_dir(projects)
    else:
        folders = {projects / paths.project_slug(d) for d in (root, Path.cwd().resolve())}
        found = [f for d in sorted(folders) if d.is_dir() for f in _in_dir(d)]
        if not found:
            raise CcstateError(
                f"No Claude Code transcripts for {root} in {projects}/{paths.project_slug(root)}; "
                "pass TRANSCRIPT files, --session ID or --all"
            )
    unique = sorted(dict.fromkeys(found))
    if not unique:
        raise CcstateError("No transcripts (*.jsonl) found in the given paths")
    return unique


def _in_dir(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.jsonl") if p.is_file())


def _with_subagents(main: Path) -> list[Path]:
    return [main, *transcript.subagent_transcripts(main)]


def scan_all(
    files: list[Path],
    jobs: int | None,
    *,
    use_cache: bool,
    meanwhile: Callable[[], None] = lambda: None,
    progress: Callable[[int, int], Progress] | None = None,
) -> list[usage.FileScan]:
    """The scans of `files`: from the cache or read, over several processes when they are
    big. `meanwhile` runs in this process once the workers have started; `progress(count,
    size)` makes the object told about the bytes scanned (the CLI's progress bar)."""
    from ccstate import fanout
    from ccstate.report import usage

    prefixes = usage.notice_prefixes()
    cache = None
    if use_cache:
        from ccstate.report import scan_cache

        cache = scan_cache.ScanCache(scan_cache.default_path(), prefixes)
    done = {f: cache.get(f) for f in files} if cache is not None else {}
    todo = sorted((f for f in files if done.get(f) is None), key=_size, reverse=True)
    sizes = [_size(f) for f in todo]  # big files first: the workers end together
    auto = auto_workers(len(todo), sum(sizes))
    transcript.fast_loads()  # import the decoder once, before any fork
    bar = (progress or _Silent)(len(todo), sum(sizes))

    def started() -> None:
        meanwhile()
        bar.start()

    try:  # the bar's thread starts after the forks: forking a threaded process can deadlock
        scans = fanout.fan_out(
            functools.partial(usage.scan_file, prefixes=prefixes),
            todo,
            jobs or auto,
            on_result=lambda index, _scan: bar.advance(sizes[index]),
            after_fork=started,
        )
    finally:
        bar.stop()
    fresh = dict(zip(todo, scans, strict=True))
    if cache is not None:
        for f, scan in fresh.items():
            cache.put(f, scan)
        cache.save()
    done.update(fresh)
    return [s for f in files if (s := done[f]) is not None]


def auto_workers(files: int, size: int) -> int:
    """Processes to scan `files` files of `size` bytes (`fanout.auto_workers`): none forked
    below PARALLEL_MIN_BYTES, at most one per BYTES_PER_WORKER."""
    from ccstate import fanout

    return fanout.auto_workers(files, size, PARALLEL_MIN_BYTES, BYTES_PER_WORKER)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
