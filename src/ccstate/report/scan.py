"""Which transcripts `ccstate report` reads, and their scans: cached, or read over workers.

Big inputs are scanned by processes forked in `fanout` (the caller's own process included);
small ones in this process. No click or rich: the CLI passes its progress bar in.
"""

from __future__ import annotations

import functools
import glob
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ccstate import paths
from ccstate.errors import CcstateError
from ccstate.transcript.runs import fast_loads
from ccstate.transcript.sessions import session_transcripts, subagent_transcripts

if TYPE_CHECKING:
    from ccstate.report import scan_cache, summary, usage
    from ccstate.report.builder import SessionPart
    from ccstate.report.pricing import PricingTable

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
        mains = session_transcripts(session_id, projects.glob(pattern))
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
    return [main, *subagent_transcripts(main)]


def scan_all(
    files: list[Path],
    jobs: int | None,
    *,
    use_cache: bool,
    progress: Callable[[int, int], Progress] | None = None,
) -> list[usage.FileScan]:
    """The scans of `files`: from the cache or read, over several processes when they are
    big (the charts of `--html` need them; `report_all` builds the rest). `progress(count,
    size)` makes the object told about the bytes scanned (the CLI's progress bar)."""
    from ccstate.report import usage

    prefixes = usage.notice_prefixes()
    cache, done = _cached(files, use_cache, prefixes)
    todo = sorted((f for f in files if f not in done), key=_size, reverse=True)
    sizes = [_size(f) for f in todo]  # big files first: the workers end together
    task = functools.partial(usage.scan_file, prefixes=prefixes)
    fresh = dict(zip(todo, _fan_out(task, todo, sizes, len(todo), jobs, progress), strict=True))
    _save(cache, fresh)
    done.update(fresh)
    return [done[f] for f in files]


def report_all(
    files: list[Path],
    jobs: int | None,
    pricing: PricingTable,
    *,
    use_cache: bool,
    progress: Callable[[int, int], Progress] | None = None,
) -> summary.Report:
    """The report of `files` (`builder.build_report` of their scans), each session built by
    the worker that scans its files: the parent no longer builds every session alone after
    the scans, nor holds every scan (whose objects its garbage collector walked again and
    again at 50x); it takes the sessions in order.

    A session whose API responses an earlier session already counted (a resumed 1.0.x
    session copies them) is built again here, from its scans as the worker pickled them, so
    the result is the same. Sessions whose files are all in the scan cache are built here.
    """
    from ccstate.report import usage
    from ccstate.report.builder import scan_order

    prefixes = usage.notice_prefixes()
    cache, cached = _cached(files, use_cache, prefixes)
    sessions: dict[tuple[str, str], list[Path]] = {}
    for f in files:
        sessions.setdefault(usage.file_session(f)[:2], []).append(f)
    todo = [(key, paths) for key, paths in sessions.items() if any(p not in cached for p in paths)]
    sizes = [sum(_size(p) for p in paths if p not in cached) for _key, paths in todo]
    order = sorted(range(len(todo)), key=lambda i: sizes[i], reverse=True)  # big ones first
    todo, sizes = [todo[i] for i in order], [sizes[i] for i in order]
    task = functools.partial(
        _session_task, prefixes=prefixes, pricing=pricing, cached=cached, keep=cache is not None
    )
    count = sum(len(paths) for _key, paths in todo)
    results = _fan_out(task, todo, sizes, count, jobs, progress)
    scans = dict(cached)
    for _part, fresh, _pickled in results:
        scans.update(fresh)
    _save(cache, {f: scan for f, scan in scans.items() if f not in cached})
    built: list[tuple[tuple[str, str], SessionPart | None, tuple[str, str], bytes]] = [
        (part.order, part, key, pickled)
        for (key, _paths), (part, _fresh, pickled) in zip(todo, results, strict=True)
    ]
    done = {key for key, _paths in todo}
    for key, members in sessions.items():  # all cached: built in order from their scans
        if key not in done:
            built.append((min(scan_order(scans[p]) for p in members), None, key, b""))
    built.sort(key=lambda entry: entry[0])
    return _assemble(built, sessions, scans, pricing)


def _cached(
    files: list[Path], use_cache: bool, prefixes: tuple[str, ...]
) -> tuple[scan_cache.ScanCache | None, dict[Path, usage.FileScan]]:
    """The scan cache (None: not used) and the scans it holds of `files`."""
    if not use_cache:
        return None, {}
    from ccstate.report import scan_cache

    cache = scan_cache.ScanCache(scan_cache.default_path(), prefixes)
    return cache, {f: s for f in files if (s := cache.get(f)) is not None}


def _fan_out(
    task: Callable[[Any], Any],
    todo: list[Any],
    sizes: list[int],
    files: int,
    jobs: int | None,
    progress: Callable[[int, int], Progress] | None,
) -> list[Any]:
    """`task` over `todo` (items of `sizes` bytes, `files` files in all) on the workers
    `jobs` or `auto_workers` asks for, the progress bar told of each item done."""
    from ccstate import fanout

    fast_loads()  # import the decoder once, before any fork
    bar = (progress or _Silent)(len(todo), sum(sizes))
    try:  # the bar's thread starts after the forks: forking a threaded process can deadlock
        return fanout.fan_out(
            task,
            todo,
            jobs or auto_workers(files, sum(sizes)),
            on_result=lambda index, _result: bar.advance(sizes[index]),
            after_fork=bar.start,
        )
    finally:
        bar.stop()


def _save(cache: scan_cache.ScanCache | None, fresh: dict[Path, usage.FileScan]) -> None:
    if cache is not None:
        for f, scan in fresh.items():
            cache.put(f, scan)
        cache.save()


def _session_task(
    item: tuple[tuple[str, str], list[Path]],
    *,
    prefixes: tuple[str, ...],
    pricing: PricingTable,
    cached: dict[Path, usage.FileScan],
    keep: bool,
) -> tuple[SessionPart, list[tuple[Path, usage.FileScan]], bytes]:
    """In a worker: scan one session's files (those not cached) and build the session.
    Besides the part: the fresh scans when they go to the cache (`keep`), else the scans
    pickled, for the parent to build the session from if another counted its responses first
    (bytes: sent as they are, decoded only then, no objects for the parent to hold)."""
    from ccstate.report import usage
    from ccstate.report.builder import session_part

    (project, session_id), paths = item
    scans = [cached.get(p) or usage.scan_file(p, prefixes) for p in paths]
    part = session_part(project, session_id, scans, pricing)
    if keep:
        fresh = [(p, s) for p, s in zip(paths, scans, strict=True) if p not in cached]
        return part, fresh, b""
    return part, [], pickle.dumps(scans, pickle.HIGHEST_PROTOCOL)


def _assemble(
    built: list[tuple[tuple[str, str], SessionPart | None, tuple[str, str], bytes]],
    sessions: dict[tuple[str, str], list[Path]],
    scans: dict[Path, usage.FileScan],
    pricing: PricingTable,
) -> summary.Report:
    """The sessions in `build_report`'s order: a part taken as built, or the session built
    here from its scans (all cached, or sharing API responses with an earlier session)."""
    from ccstate.report.builder import ReportBuilder, scan_order

    builder = ReportBuilder(pricing)
    counts = [0, 0, 0, 0]  # files, records, skipped lines, folded records
    for _order, part, key, pickled in built:
        if part is not None and builder.take(part):
            numbers = (part.files, part.records, part.skipped, part.folded)
        else:
            members = pickle.loads(pickled) if pickled else [scans[p] for p in sessions[key]]
            members.sort(key=scan_order)
            builder.add(key[0], key[1], members)
            numbers = (
                len(members),
                sum(m.records for m in members),
                sum(m.skipped for m in members),
                sum(m.folded for m in members),
            )
        counts = [c + n for c, n in zip(counts, numbers, strict=True)]
    return builder.report(files=counts[0], records=counts[1], skipped=counts[2], folded=counts[3])


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
