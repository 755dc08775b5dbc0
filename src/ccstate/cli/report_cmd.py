"""`ccstate report`: token accounting over Claude Code transcripts."""

from __future__ import annotations

import csv
import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ccstate import paths
from ccstate.cli import cli, handle_errors, project_option, request_fast_exit, resolve_project
from ccstate.errors import CcstateError

if TYPE_CHECKING:
    from ccstate import pricing, usage

PARALLEL_MIN_BYTES = 4 << 20  # below this, forking workers costs more than it saves
BYTES_PER_WORKER = 2 << 20  # auto: no more workers than this many bytes each would keep busy


@cli.command(name="report")
@click.argument("transcripts", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--session", "session_id", help="Only this session (its transcript and subagents).")
@click.option("--all", "all_projects", is_flag=True, help="Every project under ~/.claude/projects.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV: one row per session, then TOTAL.")
@click.option(
    "--pricing",
    "pricing_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Pricing JSON over the built-in table (default: report.pricing in config).",
)
@click.option("--top", default=10, show_default=True, help="Re-read files to list.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: auto).")
@click.option("--no-cache", is_flag=True, help="Read every transcript again (no scan cache).")
@handle_errors
def report_cmd(
    transcripts: tuple[Path, ...],
    session_id: str | None,
    all_projects: bool,
    project: Path | None,
    as_json: bool,
    as_csv: bool,
    pricing_file: Path | None,
    top: int,
    jobs: int | None,
    no_cache: bool,
) -> None:
    """Tokens, cost, cache hits and context composition of Claude Code sessions.

    Reads transcripts (any size, any Claude Code version, subagents included), counts each
    API response once by message.id, prices it with a dated table, and shows what filled the
    context: tool results by tool, re-reads, Bash re-prints, compactions and what ccstate
    itself added and saved. Without arguments: this project's sessions. Scans of unchanged
    files are cached (~/.cache/ccstate/report-scans.json; --no-cache to bypass).

    \b
    Example:
        ccstate report                      # this project's sessions
        ccstate report --all --json         # every project, as JSON
        ccstate report ~/.claude/projects/-home-me-app/1234.jsonl --csv
    """
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    root = resolve_project(project)
    files = select_transcripts(transcripts, session_id, all_projects, root, os.environ)
    tables: list[pricing.PricingTable] = []

    def prepare() -> None:  # runs while the workers scan: these imports cost no wall time
        from ccstate import pricing, report  # noqa: F401  (report: imported for later)

        tables.append(pricing.load_pricing(_pricing_path(pricing_file, root)))

    quiet = as_json or as_csv
    scans = _scan_all(files, jobs, progress=not quiet, use_cache=not no_cache, meanwhile=prepare)
    from ccstate import report  # here, not at import: every ccstate command loads cli/

    result = report.build_report(scans, tables[0])
    if as_json:
        click.echo(_dumps(report.report_json(result, top)))
    elif as_csv:
        csv.writer(sys.stdout, lineterminator="\n").writerows(report.csv_rows(result))
    else:
        from ccstate.cli import report_render

        report_render.render(result, top)
    request_fast_exit()  # all written; the workers are reaped, no lock or file is held


def _dumps(data: Any) -> bytes:
    """One line of JSON, keys sorted: orjson's encoder (~5x json's on a big report)."""
    try:
        import orjson
    except ImportError:  # the same document, slower
        return json.dumps(data, sort_keys=True).encode()
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


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
    elif session_id:
        found = [
            f for m in sorted(projects.glob(f"*/{session_id}.jsonl")) for f in _with_subagents(m)
        ]
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
    from ccstate import transcript

    return [main, *transcript.subagent_transcripts(main)]


def _pricing_path(option: Path | None, root: Path) -> Path | None:
    if option is not None:
        return option
    from ccstate import config

    configured = str(config.load_cached(root).get("report.pricing") or "")
    return (root / configured) if configured else None


def _scan_all(
    files: list[Path],
    jobs: int | None,
    *,
    progress: bool,
    use_cache: bool,
    meanwhile: Callable[[], None] = lambda: None,
) -> list[usage.FileScan]:
    """The scans of `files`: from the cache or read, over several processes when they are
    big. `meanwhile` runs in this process once the workers have started."""
    from ccstate import fanout, transcript, usage

    prefixes = usage.notice_prefixes()
    cache = None
    if use_cache:
        from ccstate import scan_cache

        cache = scan_cache.ScanCache(scan_cache.default_path(), prefixes)
    done = {f: cache.get(f) for f in files} if cache is not None else {}
    todo = sorted((f for f in files if done.get(f) is None), key=_size, reverse=True)
    sizes = [_size(f) for f in todo]  # big files first: the workers end together
    auto = auto_workers(len(todo), sum(sizes))
    transcript.fast_loads()  # import the decoder once, before any fork
    bar = _Progress(len(todo), sum(sizes), enabled=progress)

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
    """Processes to scan `files` files of `size` bytes: one per CPU this process may run on
    (its affinity, not the host's count, in a container), at most one per file and per
    BYTES_PER_WORKER, and one below PARALLEL_MIN_BYTES."""
    if size < PARALLEL_MIN_BYTES:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, files, size // BYTES_PER_WORKER))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


class _Progress:
    """A rich progress bar over bytes read, on stderr, only for a terminal and many files."""

    def __init__(self, count: int, size: int, *, enabled: bool) -> None:
        self.enabled = enabled and count > 1 and sys.stderr.isatty()
        self.size = size
        self._bar: Any = None
        self._task: Any = None

    def start(self) -> None:
        if not self.enabled:
            return
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

        self._bar = Progress(
            TextColumn("reading transcripts"),
            BarColumn(),
            DownloadColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._bar.start()
        self._task = self._bar.add_task("read", total=self.size)

    def advance(self, size: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, size)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
