"""What git says about the project: HEAD for everyone, details for cold paths only.

`read_head` and `head_at` read `.git` with the standard library (HEAD, loose refs,
packed-refs, worktree `gitdir:` files, the HEAD reflog): SessionStart uses them and
must stay fast. `snapshot` (branch, dirty files, commits and diffstat since a base
commit) runs the `git` command (at most four calls, each bounded by GIT_TIMEOUT): the
CLI and the cold hooks (PreCompact, SessionEnd) only. It needs no third-party package,
so the plugin's first session, whose hooks run before its private venv exists, gets the
same details. Without `git` on PATH it returns what `read_head` knows.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

GIT_TIMEOUT = 10  # seconds per git call; a hung git must not eat SessionEnd's budget
MAX_COMMITS = 20
MAX_DIFFSTAT = 200
MAX_DIRTY = 200


class Head:
    """HEAD as the files say. A plain class: SessionStart must not import dataclasses."""

    __slots__ = ("branch", "sha")

    def __init__(self, branch: str | None, sha: str | None) -> None:
        self.branch = branch  # None: detached HEAD
        self.sha = sha  # None: unborn branch (no commit yet)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Head) and (self.branch, self.sha) == (other.branch, other.sha)

    def __hash__(self) -> int:
        return hash((self.branch, self.sha))

    def __repr__(self) -> str:
        return f"Head(branch={self.branch!r}, sha={self.sha!r})"


class Snapshot:
    """What the handoff needs from git (cold paths only)."""

    __slots__ = ("base", "branch", "commits", "diffstat", "dirty", "head", "head_subject", "note")

    def __init__(
        self,
        branch: str | None,
        head: str | None,
        head_subject: str = "",
        base: str | None = None,
        commits: tuple[tuple[str, str], ...] = (),
        diffstat: tuple[tuple[str, int, int], ...] = (),
        dirty: tuple[str, ...] = (),
        note: str = "",
    ) -> None:
        self.branch = branch
        self.head = head
        self.head_subject = head_subject
        self.base = base  # the commit the diffstat and commit list start from
        self.commits = commits  # (sha, subject), newest first, base excluded
        self.diffstat = diffstat  # (path, added, deleted); -1 for binary files
        self.dirty = dirty  # `git status --porcelain` lines
        self.note = note  # why some of it is missing


def find_git_dir(start: str | os.PathLike[str]) -> str | None:
    """The git dir for `start` or its nearest parent: `.git/`, or where a `.git` file points."""
    candidate = os.path.abspath(start)
    while True:
        dotgit = os.path.join(candidate, ".git")
        if os.path.isdir(dotgit):
            return dotgit
        if os.path.isfile(dotgit):
            return _follow_gitfile(dotgit)
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return None
        candidate = parent


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _follow_gitfile(dotgit: str) -> str | None:
    """A worktree's or submodule's `.git` file: `gitdir: <path>` (relative to the file)."""
    text = (_read(dotgit) or "").strip()
    if not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:") :].strip()
    return os.path.normpath(os.path.join(os.path.dirname(dotgit), target))


def _common_dir(git_dir: str) -> str:
    """A linked worktree keeps shared refs in the main repository's git dir (`commondir`)."""
    rel = (_read(os.path.join(git_dir, "commondir")) or "").strip()
    return os.path.normpath(os.path.join(git_dir, rel)) if rel else git_dir


def read_head(project: str | os.PathLike[str]) -> Head | None:
    """Branch and commit of HEAD, read from the files; None outside a git repository."""
    git_dir = find_git_dir(project)
    if git_dir is None:
        return None
    text = _read(os.path.join(git_dir, "HEAD"))
    if text is None:
        return None
    text = text.strip()
    if not text.startswith("ref:"):
        return Head(branch=None, sha=text or None)
    ref = text[4:].strip()
    branch = ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ref
    return Head(branch=branch, sha=resolve_ref(git_dir, ref))


def resolve_ref(git_dir: str, ref: str, _depth: int = 0) -> str | None:
    """The sha a ref points to: a loose ref file, else packed-refs; symbolic refs followed."""
    if _depth > 5:
        return None
    common = _common_dir(git_dir)
    for base in dict.fromkeys((git_dir, common)):
        value = _read(os.path.join(base, ref))
        if value is None:
            continue
        value = value.strip()
        if value.startswith("ref:"):
            return resolve_ref(git_dir, value[4:].strip(), _depth + 1)
        return value or None
    return _packed_ref(common, ref)


def _packed_ref(common: str, ref: str) -> str | None:
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(("#", "^")):
                    continue
                sha, _, name = line.rstrip("\n").partition(" ")
                if name == ref:
                    return sha
    except OSError:
        return None
    return None


def head_at(project: str | os.PathLike[str], when: float) -> str | None:
    """Where HEAD pointed at time `when` (seconds), from the HEAD reflog; None if unknown."""
    git_dir = find_git_dir(project)
    text = _read(os.path.join(git_dir, "logs", "HEAD")) if git_dir else None
    if not text:
        return None
    found: str | None = None
    for line in text.splitlines():
        fields = line.partition("\t")[0].split()
        if len(fields) < 4 or not fields[-2].isdigit():
            continue
        old, new, stamp = fields[0], fields[1], int(fields[-2])
        if stamp > when:
            if found is None and set(old) != {"0"}:
                found = old  # the log starts after `when`: HEAD was where its first entry left
            break
        found = new
    return found


def snapshot(project: Path, base: str | None) -> Snapshot:
    """HEAD, dirty files, and commits plus diffstat since `base` (the git command; cold paths)."""
    head = read_head(project)
    if head is None:
        return Snapshot(branch=None, head=None, note="not a git repository")
    run = _GitRunner(str(project))
    subject: str | None = None
    commits: list[tuple[str, str]] | None = None
    diffstat: list[tuple[str, int, int]] | None = None
    dirty: list[str] | None = None
    note = ""
    try:
        if head.sha:
            subject = run("log", "-1", "--format=%s", head.sha).strip()
        dirty = run("status", "--porcelain=v1", "--untracked-files=normal").splitlines()
        if base and head.sha:
            log = run("log", "--format=%H%x00%s", f"-{MAX_COMMITS}", f"{base}..{head.sha}")
            pairs = (line.split("\0", 1) for line in log.splitlines() if "\0" in line)
            commits = [(sha, subj) for sha, subj in pairs]
            diffstat = _parse_numstat(run("diff", "--numstat", base).splitlines())
    except GitError as exc:
        note = f"git: {exc}"
    return Snapshot(
        branch=head.branch,
        head=head.sha,
        head_subject=subject or "",
        base=base if diffstat is not None else None,
        commits=tuple(commits or ()),
        diffstat=tuple(diffstat or ()),
        dirty=tuple((dirty or ())[:MAX_DIRTY]),
        note=note or ("" if base else "no session start recorded: no diffstat"),
    )


class GitError(Exception):
    """A git call failed; the message says which and why, in one line."""


class _GitRunner:
    """`git -C <project> ...` with a timeout, stdout as text; GitError on any failure."""

    def __init__(self, project: str) -> None:
        self.project = project

    def __call__(self, *args: str) -> str:
        import subprocess

        cmd = ["git", "-C", self.project, *args]
        env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")  # read-only; English
        try:
            done = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                errors="replace",
                env=env,
                timeout=GIT_TIMEOUT,
                check=False,
            )
        except FileNotFoundError as exc:
            raise GitError("git is not installed; git details omitted") from exc
        except subprocess.TimeoutExpired as exc:
            raise GitError(f"`git {args[0]}` took longer than {GIT_TIMEOUT}s") from exc
        except OSError as exc:
            raise GitError(f"`git {args[0]}` could not run ({exc.strerror})") from exc
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0][:120]
            raise GitError(f"`git {args[0]}` failed ({first})")
        return done.stdout


def _parse_numstat(lines: Sequence[str]) -> list[tuple[str, int, int]]:
    rows = []
    for line in lines[:MAX_DIFFSTAT]:
        parts = line.split("\t", 2)
        if len(parts) != 3:
            continue
        added, deleted, path = parts
        rows.append(
            (path, int(added) if added.isdigit() else -1, int(deleted) if deleted.isdigit() else -1)
        )
    return rows
