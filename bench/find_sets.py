#!/usr/bin/env python3
"""Build the two localization sets `bench/find_eval.py` runs `ccstate find` on (#41.5).

Makes bench/find_commits.json and bench/find_sessions.json; docs/FIND.md describes them.

    python bench/find_sets.py              # writes bench/find_commits.json, find_sessions.json
    python bench/find_sets.py --mirrors DIR --shared DIR

Repositories come as bare git snapshots under `--mirrors` (default /work/.mirror, one
`owner+name/repo` folder each, as the `fetch` tool leaves them); each set file records the
repository, its snapshot's HEAD and, per task, the commit whose tree is searched.

- **commit tasks**: per repository, up to `PER_REPO` commits spread evenly over its last
  `WINDOW` first-parent commits: the query is the commit's subject and body (trailers such as
  `Co-Authored-By:` and "Generated with" lines cut), the gold the files it modified that
  exist in its first parent's tree (the tree searched). Skipped: merges, "wip", version
  bumps and releases, changelog-only and dependency bumps, commits touching more than
  `MAX_FILES` files (sweeps, not a task to localize), and gold files no method could
  return (data, lock, vendored: `repo.files.skip_by_name`). Split by repository: the
  `TUNE` repositories were used to choose the ranking's weights, the others only report.
- **session tasks**: each transcript of ../shared/transcripts/{modern,public} whose
  repository was fetched: the query is its first user prompt that names a task (no slash
  command or caveat, not "yes"/"continue": at least `MIN_PROMPT_WORDS` words), the tree the
  repository's last commit before the session started, with the session's own logs
  (`logs/*.json*`, `logs/transcript_backups/`) taken out of it, the gold the files the
  session edited that exist in that tree (matched by the longest path suffix), and the
  tokens (cl100k) of the Read, Grep and Glob results it received before its first edit of
  a gold file. No transcript text but the prompt is written.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ccstate.repo.files import skip_by_name  # noqa: E402

PER_REPO = 28
WINDOW = 400
MAX_FILES = 12
MIN_PROMPT_WORDS = 6
# Repositories whose commits chose the weights (docs/FIND.md); every other one only reports.
TUNE = frozenset(
    {
        "Aider-AI/aider",
        "simonw/sqlite-utils",
        "codemie-ai/codemie-code",
        "dirvine/saorsa-core",
        "marot/spotter",
        "AojdevStudio/cdev",
        "psf/requests",
    }
)
COMMIT_REPOS = (
    *sorted(TUNE),
    "kesslerio/attio-mcp-server",
    "d-kimuson/claude-code-viewer",
    "DRMacIver/claude-reliability",
    "rickhallett/blackcore",
    "johnmatthewtennant/mcp-voice-hooks",
    "pypa/packaging",
    "BurntSushi/ripgrep",
    "casey/just",
    "spf13/cobra",
    "expressjs/express",
    "more-itertools/more-itertools",
    "pleelapr/a-sdlc",
    "Johannes0501/openshrooly",
    "erewhon/dotfiles",
)
SKIP_SUBJECT = re.compile(
    r"^(wip\b|merge\b|bump\b|release\b|v?\d+\.\d+(\.\d+)?\b|version\b|prepare\b.*release|"
    r"update changelog|changelog\b|chore\(deps|chore\(release|revert\b)|"
    r"\bbump(s|ed)?\b|\(deps\)|\bdependabot\b|autoupdate|^initial commit",
    re.IGNORECASE,
)
TRAILER = re.compile(r"^[A-Za-z][\w-]*(-[Bb]y|-[Tt]o)?: |generated with|co-authored", re.IGNORECASE)
SESSION_LOGS = re.compile(r"(^|/)logs/([^/]+\.jsonl?|transcript_backups/.*|chat\.json)$")


def git(mirror: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), *args], capture_output=True, text=True, check=True
    ).stdout


def mirror_of(mirrors: Path, repo: str) -> Path:
    return mirrors / repo.replace("/", "+") / "repo"


def query_of(subject: str, body: str) -> str:
    lines = [ln for ln in body.splitlines() if not TRAILER.search(ln.strip())]
    return "\n".join([subject, *lines]).strip()


def commit_tasks(mirrors: Path, repo: str) -> list[dict[str, object]]:
    mirror = mirror_of(mirrors, repo)
    shas = git(mirror, "rev-list", "--first-parent", f"--max-count={WINDOW}", "HEAD").split()
    tasks = []
    step = max(1, len(shas) // (PER_REPO * 3))
    for sha in shas[::step]:
        task = _commit_task(mirror, repo, sha)
        if task is not None:
            tasks.append(task)
    tasks = tasks[:PER_REPO]
    tasks.reverse()  # oldest first: successive trees differ least
    return tasks


def _commit_task(mirror: Path, repo: str, sha: str) -> dict[str, object] | None:
    parents = git(mirror, "rev-list", "--parents", "-n", "1", sha).split()[1:]
    if len(parents) != 1:
        return None
    subject, _, body = git(mirror, "log", "-1", "--format=%s%x00%b", sha).partition("\0")
    if SKIP_SUBJECT.search(subject.strip()):
        return None
    status = git(mirror, "diff-tree", "--no-commit-id", "-r", "--name-status", parents[0], sha)
    changed = [ln.split("\t") for ln in status.splitlines() if ln]
    if not changed or len(changed) > MAX_FILES:
        return None
    gold = sorted(p[1] for p in changed if p[0] == "M" and not skip_by_name(p[1]))
    query = query_of(subject.strip(), body)
    if not gold or len(query.split()) < 3 or all(p.endswith(".md") for p in gold):
        return None
    return {"repo": repo, "commit": parents[0], "of": sha, "query": query, "gold": gold}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--shared", type=Path, default=REPO.parent.parent / "shared")
    args = parser.parse_args()
    repos: dict[str, dict[str, object]] = {}
    tasks = []
    for repo in COMMIT_REPOS:
        mirror = mirror_of(args.mirrors, repo)
        if not mirror.is_dir():
            print(f"skip {repo}: no snapshot under {args.mirrors}", file=sys.stderr)
            continue
        repos[repo] = {"head": git(mirror, "rev-parse", "HEAD").strip()}
        found = commit_tasks(args.mirrors, repo)
        split = "tune" if repo in TUNE else "report"
        tasks.extend({**t, "split": split} for t in found)
        print(f"{repo}: {len(found)} commit tasks ({split})", file=sys.stderr)
    _write(REPO / "bench" / "find_commits.json", repos, tasks)
    from find_sessions import session_tasks

    repos_s, stasks = session_tasks(args.mirrors, args.shared)
    _write(REPO / "bench" / "find_sessions.json", repos_s, stasks)
    return 0


def _write(path: Path, repos: dict[str, dict[str, object]], tasks: list[dict[str, object]]) -> None:
    data = {"schema": 1, "repos": repos, "tasks": tasks}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(tasks)} tasks)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
