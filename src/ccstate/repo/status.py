"""What the rest of ccstate hears from the code index: the capsule's map (SessionStart reads
the cached file, no SQLite, nothing but the standard library at import), the hooks' trigger
(the detached worker), the work after an update (vectors, the cached map) and `doctor`."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from ccstate.config import Config

MAP_HEADER = "[ccstate] repo map: most-referenced definitions (`ccstate find QUERY` locates code)"
HOOK_SECONDS = 300.0  # the detached worker's bound per run


def capsule_map(state: str, config: Config) -> str:
    """The map block for the capsule when `capsule.repo_map_tokens` > 0 (else ""), from the
    map the last index update cached: byte-identical while the code is."""
    tokens = int(config.get("capsule.repo_map_tokens"))
    if tokens <= 0 or not config.get("find.enabled"):
        return ""
    from ccstate.repo.map import read_cached

    text = read_cached(state, tokens)
    return f"{MAP_HEADER}\n{text}" if text else ""


def trigger(project: str, state: str, config: Config) -> str:
    """Start the detached indexer for a git project (SessionStart, SessionEnd); what
    happened, for the heartbeat. Never waits and never raises."""
    if not config.get("find.enabled"):
        return "disabled"
    from ccstate.gitinfo import find_git_dir

    if find_git_dir(project) is None:  # the project may be a folder inside the repository
        return "not a git repository"
    from importlib.util import find_spec

    try:
        if find_spec("tree_sitter") is None:
            return "tree-sitter not installed (the plugin's venv brings it)"
    except (ImportError, ValueError):
        return "tree-sitter not importable"
    return "indexing in the background" if spawn(project, state) else "not started"


def spawn(project: str, state: str, seconds: float = HOOK_SECONDS) -> bool:
    """Start the worker detached (its own session, no stdin or stdout); False when it
    could not be started. The child sees this process's module path (the plugin's `src/`
    and its venv's site-packages included)."""
    import subprocess
    import sys

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    try:
        subprocess.Popen(
            [sys.executable, "-m", "ccstate.repo.worker", project, state, str(seconds)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=project,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    return True


def after_update(project: Path, state: Path, config: Config, deadline: float | None) -> str:
    """After an update: the configured model's vectors for new chunks, then the cached map
    when the capsule carries one; '' or why semantic ranking is off."""
    from ccstate.errors import CcstateError
    from ccstate.repo import index

    con = index.connect(state)
    try:
        why = ""
        name = str(config.get("recall.embedding_model"))
        if name:
            from ccstate.recall import embed
            from ccstate.repo import vectors

            try:
                vectors.update_vectors(con, embed.load_model(name, project), deadline)
            except CcstateError as exc:
                why = str(exc)
        tokens = int(config.get("capsule.repo_map_tokens"))
        if tokens > 0:
            from ccstate.repo import map as repo_map

            repo_map.cached(state, con, tokens)
        return why
    finally:
        con.close()


def doctor_lines(project: Path, state: Path, config: Config) -> list[tuple[str, str, str]]:
    """(check name, level, message) for `ccstate doctor`: the index's size against
    `find.max_mb`, how far it got, what was skipped and why."""
    from ccstate.errors import CcstateError
    from ccstate.repo import index

    if not config.get("find.enabled"):
        return [("code index", "info", "disabled (find.enabled: false)")]
    if not index.index_path(state).exists():
        from ccstate.gitinfo import find_git_dir
        from ccstate.repo.files import NOT_GIT

        if find_git_dir(project) is None:
            return [("code index", "info", NOT_GIT)]
        return [("code index", "info", "none yet: `ccstate find` or the next session builds it")]
    try:
        con = index.connect(state, create=False)
    except CcstateError as exc:
        return [("code index", "warn", str(exc))]
    try:
        stats = index.stats(con)
        listed, pending = (index.meta(con, k) for k in ("listed", "pending"))
    finally:
        con.close()
    limit = int(config.get("find.max_mb"))
    level = "ok" if stats.bytes <= (limit << 20) else "warn"
    what = (
        f"{stats.files:,} files, {stats.chunks:,} chunks; {stats.bytes / 1e6:.1f} MB of "
        f"{limit} MB (find.max_mb) in {index.index_path(state)}"
    )
    if pending and pending != "0":
        what += f"; {pending} of {listed} changed files still to read (the next update goes on)"
    lines = [("code index", level, what)]
    if stats.skipped:
        lines.append(("code index: skipped", "info", _grouped(stats.skipped)))
    if stats.notes:
        lines.append(("code index: line windows", "info", _grouped(stats.notes)))
    return lines


def _grouped(groups: dict[str, list[str]]) -> str:
    """`binary: 2 (a.png, b.bin); not UTF-8: 1 (x.txt)`, largest group first."""
    parts = []
    for why, paths in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(paths[:3]) + (", ..." if len(paths) > 3 else "")
        parts.append(f"{why}: {len(paths)} ({shown})")
    return "; ".join(parts)
