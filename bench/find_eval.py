#!/usr/bin/env python3
"""Localization quality of `ccstate find` and the repo map on the sets of find_sets.py.

Makes the localization figures docs/FIND.md and README.md quote.

    python bench/find_eval.py                        # both sets, every method
    python bench/find_eval.py --set commits --split tune -v
    python bench/find_eval.py --mirrors DIR --work DIR

For each task the tree of its commit is written from the repository's snapshot into a
scratch git work tree (tasks of one repository in order, so only what changed between two
is rewritten; blobs a snapshot lacks are left out; for a session task its logs are taken
out), `git add -A`, then ccstate's own incremental update (`repo.update.refresh`) brings
the code index up to date and each method ranks files for the query:

- `find`: `ccstate find` (`repo.search.search`), the files of its locations in order;
- `map`: `ccstate map` at 1,024 tokens (query-free), the files it names in order;
  `named` = a gold file anywhere in the map;
- `bm25-file`: plain FTS5 `bm25()` over whole files (path and text), the same words;
- `grep`: files ranked by how many of the query's words they hold (`grep -i -F` per word),
  then by occurrences.

Acc@k: the share of tasks with a gold file among a method's first k files. Tokens (cl100k):
`find`'s answer as the CLI prints it (5 locations), and for session tasks what the session
spent on Read, Grep and Glob results before its first edit of a gold file (from the set).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from find_sets import SESSION_LOGS, mirror_of  # noqa: E402

from ccstate.recall.text import TOKENIZER, query_terms  # noqa: E402
from ccstate.repo import graph, index, search, update  # noqa: E402
from ccstate.repo import map as repo_map  # noqa: E402
from ccstate.repo.render import render_hits  # noqa: E402
from ccstate.tokens import count_tokens  # noqa: E402

METHODS = ("find", "map", "bm25-file", "grep")
KS = (1, 5)


class Tree:
    """A repository's scratch work tree, moved from commit to commit."""

    def __init__(self, mirror: Path, root: Path) -> None:
        self.mirror, self.root = mirror, root
        self.files: dict[str, str] = {}  # path -> blob sha written
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        self._git("init", "-q", "-b", "main")  # the snapshot's objects, borrowed: history too
        alternates = root / ".git" / "objects" / "info" / "alternates"
        alternates.write_text(str(mirror / "objects") + "\n")

    def _git(self, *args: str) -> None:
        subprocess.run(["git", *args], cwd=self.root, capture_output=True, check=True)

    def checkout(self, commit: str, drop_logs: bool) -> None:
        listing = subprocess.run(
            ["git", "--git-dir", str(self.mirror), "ls-tree", "-r", "-z", commit],
            capture_output=True, check=True,
        ).stdout.decode("utf-8", "surrogateescape")  # fmt: skip
        wanted = {}
        for entry in filter(None, listing.split("\0")):
            meta, path = entry.split("\t", 1)
            mode, kind, sha = meta.split()
            keep = kind == "blob" and mode in ("100644", "100755")
            if keep and not (drop_logs and SESSION_LOGS.search(path)):
                wanted[path] = sha
        for path in [p for p in self.files if p not in wanted]:
            (self.root / path).unlink(missing_ok=True)
            del self.files[path]
        todo = [(p, s) for p, s in wanted.items() if self.files.get(p) != s]
        self._write(todo)
        self._git("read-tree", commit)  # git's index and HEAD as a checkout of it leaves them
        self._git("update-ref", "refs/heads/main", commit)

    def _write(self, todo: list[tuple[str, str]]) -> None:
        if not todo:
            return
        cat = subprocess.Popen(
            ["git", "--git-dir", str(self.mirror), "cat-file", "--batch"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
        assert cat.stdin is not None and cat.stdout is not None
        for path, sha in todo:
            cat.stdin.write(sha.encode() + b"\n")
            cat.stdin.flush()
            head = cat.stdout.readline().split()
            if head[-1] == b"missing":
                continue
            data = cat.stdout.read(int(head[2]))
            cat.stdout.read(1)
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.unlink(missing_ok=True)
            target.write_bytes(data)
            self.files[path] = sha
        cat.stdin.close()
        cat.wait()


class Baselines:
    """Whole-file BM25 (FTS5) and grep over the files the code index holds."""

    def __init__(self) -> None:
        self.con = sqlite3.connect(":memory:")
        self.con.execute(
            f'CREATE VIRTUAL TABLE whole USING fts5(path, body, tokenize="{TOKENIZER}")'
        )
        self.texts: dict[str, str] = {}
        self.stamps: dict[str, tuple[int, int]] = {}

    def sync(self, root: Path, con: sqlite3.Connection) -> None:
        now = {
            p: (s, m)
            for p, s, m in con.execute("SELECT path, size, mtime_ns FROM files WHERE skip = ''")
        }
        for path in [p for p in self.stamps if now.get(p) != self.stamps[p]]:
            self.con.execute("DELETE FROM whole WHERE path = ?", (path,))
            self.texts.pop(path, None)
            del self.stamps[path]
        for path, stamp in now.items():
            if path in self.stamps:
                continue
            text = (root / path).read_text(encoding="utf-8", errors="replace")
            self.con.execute("INSERT INTO whole(path, body) VALUES (?, ?)", (path, text))
            self.texts[path] = text.lower()
            self.stamps[path] = stamp

    def bm25(self, query: str) -> list[str]:
        expression, _words = search.match_expression(query)
        if not expression:
            return []
        rows = self.con.execute(
            "SELECT path FROM whole WHERE whole MATCH ? ORDER BY bm25(whole), path LIMIT 10",
            (expression,),
        ).fetchall()
        return [r[0] for r in rows]

    def grep(self, query: str) -> list[str]:
        words = [w.lower() for w in query_terms(query)]
        scored = []
        for path, text in self.texts.items():
            hits = [text.count(w) for w in words]
            found = sum(1 for h in hits if h)
            if found:
                scored.append((-found, -sum(hits), path))
        return [p for _f, _n, p in sorted(scored)[:10]]


def rank_all(
    con: sqlite3.Connection, base: Baselines, task: dict[str, Any], budget: int
) -> dict[str, Any]:
    hits = search.search(con, task["query"], limit=10)
    files = con.execute("SELECT count(*) FROM files WHERE skip = ''").fetchone()[0]
    answer = render_hits(task["query"], hits[:5], files)
    the_map = repo_map.build(con, budget)
    return {
        "find": [h.path for h in hits],
        "map": graph.files_named(the_map),
        "bm25-file": base.bm25(task["query"]),
        "grep": base.grep(task["query"]),
        "answer_tokens": count_tokens(answer)[0],
    }


def evaluate(
    tasks: list[dict[str, Any]], mirrors: Path, work: Path, budget: int, verbose: bool
) -> list[dict[str, Any]]:
    out = []
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for task in tasks:
        by_repo.setdefault(task["repo"], []).append(task)
    for repo, items in by_repo.items():
        root, state = work / repo.replace("/", "+"), work / (repo.replace("/", "+") + ".state")
        shutil.rmtree(state, ignore_errors=True)
        tree, base = Tree(mirror_of(mirrors, repo), root), Baselines()
        started = time.monotonic()
        for task in items:
            tree.checkout(task["commit"], drop_logs=task.get("drop") == "logs")
            update.refresh(root, state, max_bytes=1 << 30, jobs=update.cpus())
            con = index.connect(state)
            base.sync(root, con)
            got = rank_all(con, base, task, budget)
            con.close()
            out.append({**task, **got})
            if verbose:
                _show(out[-1])
        print(f"  {repo}: {len(items)} tasks in {time.monotonic() - started:.1f}s", file=sys.stderr)
    return out


def _show(result: dict[str, Any]) -> None:
    gold = set(result["gold"])
    marks = " ".join(
        f"{m}:{next((i + 1 for i, p in enumerate(result[m][:10]) if p in gold), '-')}"
        for m in METHODS
    )
    print(f"{result['repo']:<34} {marks}  {result['query'][:60]!r}", file=sys.stderr)


def accuracy(results: list[dict[str, Any]], method: str, k: int) -> float:
    if not results:
        return 0.0
    good = sum(1 for r in results if set(r["gold"]) & set(r[method][:k]))
    return good / len(results)


def report(name: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    table = {m: {f"acc@{k}": round(accuracy(results, m, k), 3) for k in KS} for m in METHODS}
    table["map"]["named"] = round(accuracy(results, "map", 10_000), 3)
    tokens = sorted(r["answer_tokens"] for r in results)
    summary: dict[str, Any] = {"set": name, "tasks": len(results), "methods": table}
    if tokens:
        summary["answer_tokens"] = {"median": tokens[len(tokens) // 2], "max": tokens[-1]}
    looked = [r["looked_tokens"] for r in results if "looked_tokens" in r]
    if looked:
        summary["session_looked_tokens"] = {
            "median": sorted(looked)[len(looked) // 2], "total": sum(looked),
            "find_total": sum(r["answer_tokens"] for r in results),
        }  # fmt: skip
    return summary


def _wanted(task: dict[str, Any], repo: str, split: str) -> bool:
    return (not repo or task["repo"] == repo) and (not split or task["split"] == split)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--set", default="commits,sessions")
    parser.add_argument("--split", default="", help="tune or report (default: both, apart)")
    parser.add_argument("--repo", default="", help="only this repository (owner/name)")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / "find-eval"
    parser.add_argument("--work", type=Path, default=scratch)
    parser.add_argument("--map-tokens", type=int, default=repo_map.DEFAULT_TOKENS)
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument(
        "--param", action="append", default=[], help="NAME=VALUE: set a repo.search constant"
    )
    parser.add_argument("--json", type=Path, default=None, help="write every task's rankings here")
    args = parser.parse_args()
    for item in args.param:  # tuning: e.g. --param NAMED=1.0 --param "WEIGHTS=(3,2,1,1,.5)"
        name, _, value = item.partition("=")
        setattr(search, name, ast.literal_eval(value))
    summaries, everything = [], []
    for name in args.set.split(","):
        data = json.loads((REPO / "bench" / f"find_{name}.json").read_text(encoding="utf-8"))
        tasks = [t for t in data["tasks"] if _wanted(t, args.repo, args.split)]
        results = evaluate(tasks, args.mirrors, args.work, args.map_tokens, args.verbose)
        everything.extend(results)
        for split in sorted({r["split"] for r in results}):
            if not args.split or split == args.split:
                summaries.append(
                    report(f"{name}/{split}", [r for r in results if r["split"] == split])
                )
    for summary in summaries:
        print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
