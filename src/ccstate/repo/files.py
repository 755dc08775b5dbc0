"""Which files of the project the index holds: git's tracked files and the untracked ones
`.gitignore` lets through (`git ls-files --cached --others --exclude-standard`), minus
symlinks, vendored trees, data files and anything over the size cap; read as UTF-8 text
(a file with a NUL byte, not UTF-8, or of minified lines is skipped). Every skipped file
keeps its reason, which `ccstate doctor` shows.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

MAX_FILE_BYTES = 1 << 20  # a bigger file is generated or data, not code to read
LS_TIMEOUT = 30.0
NOT_GIT = "not a git repository: `ccstate find` indexes the files git tracks"
# Folders whose code is someone else's (checked in or built): never indexed.
VENDORED = frozenset(
    {
        "node_modules",
        "vendor",
        "vendors",
        "third_party",
        "third-party",
        "bower_components",
        "site-packages",
        ".venv",
        "venv",
        "__pycache__",
        ".git",
        "dist",
        ".next",
        ".nuxt",
        "coverage",
    }
)
# Extensions of data, media and lock files: text no question about the code is answered by.
_DATA_TEXT = (
    ".jsonl .ndjson .csv .tsv .lock .log .map .svg .snap .pdf .png .jpg .jpeg .gif .webp "
    ".ico .mp3 .mp4 .wav .woff .woff2 .ttf .eot .zip .gz .tar .tgz .bz2 .xz .7z .jar .whl "
    ".so .dylib .dll .exe .bin .pyc .o .a .db .sqlite .parquet .pkl .npy .npz"
)
DATA = frozenset(_DATA_TEXT.split())
LOCK_NAMES = frozenset(
    {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock", "uv.lock"}
)
_MINIFIED_LINE = 1000  # average characters per line above which a file is minified


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the project, `/`-separated
    size: int
    mtime_ns: int
    skip: str  # why it is not indexed ("" when it is)


class NotGit(Exception):
    """The project is not inside a git work tree (or git is missing)."""


def tracked(project: Path) -> list[str]:
    """The paths git lists for the project (tracked, and untracked but not ignored), sorted;
    NotGit when it is no git work tree."""
    cmd = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    try:
        proc = subprocess.run(
            cmd, cwd=project, capture_output=True, timeout=LS_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NotGit(f"{NOT_GIT} (git ls-files: {exc})") from exc
    if proc.returncode != 0:
        raise NotGit(NOT_GIT)
    names = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted({n for n in names if n})


HISTORY = 300  # commits whose changed files make the churn prior


def head(project: Path) -> str:
    """HEAD's commit ('' when there is none yet); `git rev-parse` (HEAD may be packed, a
    worktree's, detached)."""
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "-q", "--verify", "HEAD"],
            cwd=project, capture_output=True, text=True, timeout=LS_TIMEOUT, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def churn(project: Path) -> dict[str, int]:
    """{path: how many of the last HISTORY commits (merges aside) changed it}, paths as
    `ls-files` gives them (relative to the project, which may be a subfolder)."""
    cmd = ["git", "log", "--no-merges", "--relative", "--format=", "--name-only", f"-{HISTORY}"]
    try:
        proc = subprocess.run(
            cmd, cwd=project, capture_output=True, timeout=LS_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    counts: dict[str, int] = {}
    for line in proc.stdout.decode("utf-8", "surrogateescape").splitlines():
        if line:
            counts[line] = counts.get(line, 0) + 1
    return counts


def vetted(project: Path | str, path: str) -> Entry:
    """`path`'s size and mtime, and why it is skipped ("" when it is not), from one lstat.
    Symlinks are never followed (a link loop, a link out of the project). `project` as a
    string spares a Path per file (an update lstats every listed file)."""
    if path_skip := skip_by_name(path):
        return Entry(path, -1, -1, path_skip)
    try:
        st = os.lstat(os.path.join(project, path))
    except OSError:
        return Entry(path, -1, -1, "gone")
    if stat.S_ISLNK(st.st_mode):
        return Entry(path, st.st_size, st.st_mtime_ns, "symlink (not followed)")
    if not stat.S_ISREG(st.st_mode):
        return Entry(path, -1, -1, "not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        mb = st.st_size / (1 << 20)
        return Entry(path, st.st_size, st.st_mtime_ns, f"{mb:.1f} MB, over the 1 MB cap")
    return Entry(path, st.st_size, st.st_mtime_ns, "")


def skip_by_name(path: str) -> str:
    parts = path.split("/")
    if any(p in VENDORED for p in parts[:-1]):
        return "vendored or built"
    name = parts[-1]
    if name in LOCK_NAMES or name.endswith((".min.js", ".min.css")):
        return "lock or minified file"
    if os.path.splitext(name)[1].lower() in DATA:
        return "data or media file"
    return ""


def read_text(project: Path, entry: Entry) -> tuple[str, bytes, str]:
    """(text, raw bytes, "") or ("", b"", why it is skipped): not UTF-8, binary, minified."""
    try:
        fd = os.open(project / entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return "", b"", f"unreadable ({exc.strerror or exc})"
    if len(data) > MAX_FILE_BYTES:
        return "", b"", "over the 1 MB cap"
    if b"\0" in data[:8192]:
        return "", b"", "binary"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return "", b"", f"not UTF-8 (byte {exc.start})"
    lines = text.count("\n") + 1
    if len(text) > 20_000 and len(text) / lines > _MINIFIED_LINE:
        return "", b"", "minified (lines over 1,000 characters)"
    return text, data, ""
