"""The session tasks of `bench/find_sets.py` (see its docstring): one per transcript of
../shared/transcripts/{modern,public} whose repository was fetched and whose edits land in
its tree. The token counts use ccstate's tokenizer (cl100k).

Imported by bench/find_sets.py; docs/FIND.md describes the sets.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ccstate.tokens import count_tokens  # noqa: E402

EDITS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
LOOKS = ("Read", "Grep", "Glob")
MIN_PROMPT_WORDS = 6
NO_TASK = ("<", "/", "caveat", "warmup", "[request interrupted", "this session is being continued")


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), *args], capture_output=True, text=True, check=False
    ).stdout


def _records(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _prompt(rec: dict[str, Any]) -> str:
    if rec.get("type") != "user" or rec.get("isMeta") or rec.get("isSidechain"):
        return ""
    content = rec.get("message", {}).get("content")
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return ""
        content = " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    return content.strip() if isinstance(content, str) else ""


def task_prompt(records: list[dict[str, Any]]) -> str:
    """The first prompt that names a task (no slash command, caveat or short reply)."""
    for rec in records:
        text = _prompt(rec)
        if text and not text.lower().startswith(NO_TASK) and len(text.split()) >= MIN_PROMPT_WORDS:
            return text
    return ""


def _tool_calls(records: list[dict[str, Any]]) -> list[tuple[int, str, dict[str, Any], str]]:
    """(record index, tool name, input, id) of every tool call, in order, once each."""
    out, seen = [], set()
    for n, rec in enumerate(records):
        if rec.get("type") != "assistant":
            continue
        for block in rec.get("message", {}).get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                if block.get("id") in seen:
                    continue
                seen.add(block.get("id"))
                out.append((n, str(block.get("name")), block.get("input") or {}, block.get("id")))
    return out


def _results(records: list[dict[str, Any]]) -> dict[str, str]:
    out = {}
    for rec in records:
        content = rec.get("message", {}).get("content") if rec.get("type") == "user" else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                body = block.get("content")
                if isinstance(body, list):
                    body = "\n".join(b.get("text", "") for b in body if isinstance(b, dict))
                out[str(block.get("tool_use_id"))] = str(body or "")
    return out


def _in_tree(path: str, tree: set[str]) -> str:
    """The tree path `path` (absolute, from the session's machine) is: its longest suffix
    that is a file of the tree ('' when none of two components or more is)."""
    parts = path.strip("/").split("/")
    for start in range(len(parts) - 1):
        candidate = "/".join(parts[start:])
        if candidate in tree and (len(parts) - start >= 2 or start == len(parts) - 1):
            return candidate
    return parts[-1] if parts[-1] in tree else ""


def one_session(mirror: Path, repo: str, transcript: Path) -> dict[str, Any] | None:
    records = _records(transcript)
    prompt = task_prompt(records)
    stamps = sorted(r["timestamp"] for r in records if isinstance(r.get("timestamp"), str))
    if not prompt or not stamps:
        return None
    commit = _git(mirror, "rev-list", "-1", f"--before={stamps[0]}", "HEAD").strip()
    if not commit:
        return None
    tree = {p for p in _git(mirror, "ls-tree", "-r", "--name-only", commit).splitlines()}
    tree = {p for p in tree if not _is_log(p)}
    calls = _tool_calls(records)
    gold_at: dict[str, int] = {}
    for n, name, inp, _id in calls:
        raw = inp.get("file_path") or inp.get("notebook_path")
        if name in EDITS and isinstance(raw, str) and (found := _in_tree(raw, tree)):
            gold_at.setdefault(found, n)
    if not gold_at:
        return None
    first_edit = min(gold_at.values())
    results = _results(records)
    spent = sum(
        count_tokens(results.get(cid, ""))[0] for n, name, _i, cid in calls
        if name in LOOKS and n < first_edit
    )  # fmt: skip
    return {
        "repo": repo,
        "commit": commit,
        "session": transcript.name,
        "query": prompt,
        "gold": sorted(gold_at),
        "drop": "logs",
        "looked_tokens": spent,
        "split": "report",
    }


def _is_log(path: str) -> bool:
    from find_sets import SESSION_LOGS

    return bool(SESSION_LOGS.search(path))


def session_tasks(mirrors: Path, shared: Path) -> tuple[dict[str, dict[str, object]], list[Any]]:
    repos: dict[str, dict[str, object]] = {}
    tasks = []
    for corpus in ("modern", "public"):
        for transcript in sorted((shared / "transcripts" / corpus).glob("*.jsonl")):
            owner, name = transcript.name.split("__")[:2]
            repo = f"{owner}/{name}"
            mirror = mirrors / f"{owner}+{name}" / "repo"
            if not mirror.is_dir():
                continue
            task = one_session(mirror, repo, transcript)
            if task is None:
                print(f"  no session task: {transcript.name}", file=sys.stderr)
                continue
            repos[repo] = {"head": _git(mirror, "rev-parse", "HEAD").strip()}
            tasks.append({**task, "corpus": corpus})
    return repos, tasks
