"""PostCompact: check Claude Code's summary against what PreCompact asked it to keep (#26).

Records per compaction what the summary kept and lost (compaction/store.py) and puts the
record into the session's handoff. What was lost and the SessionStart(compact) capsule did
not carry either becomes one reminder line, left for the next PostToolUse or UserPromptSubmit
(compaction/pending.py): PostCompact runs after SessionStart(compact) and its own output
reaches the model only as an echo after a manual `/compact`, so it prints nothing.

Bad input never costs the record: no summary, an empty or a huge one, or no PreCompact
before it is recorded as such, the reason goes to hooks.log, and the hook exits 0.
"""

from __future__ import annotations

import os

from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    if not env.config.get("compaction.enabled"):
        return HookResult.noop(check="disabled")
    if inp.agent_id:  # PreCompact asked nothing for a subagent's compaction
        return HookResult.noop(check="not for a subagent")
    from ccstate.compaction import check
    from ccstate.compaction import store as compaction_store

    raw = inp.raw.get("compact_summary")
    summary = raw if isinstance(raw, str) else ""
    for problem in _problems(raw):
        _log(env, f"PostCompact: {problem}")
    offset = _size(inp.transcript_path)
    remind: list[Any] = []

    def decide(asked: dict[str, Any] | None, capsule: str) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "trigger": inp.trigger or "unknown",
            "time": int(env.now),
            "summary_chars": len(check.summary_part(summary[: check.MAX_CHARS])),
            "raw_chars": len(summary),
        }
        if asked is None:
            entry["note"] = "no PreCompact record before it: nothing to check"
            return entry
        items = [tuple(i) for i in asked.get("items") or () if len(i) == 3]
        kept, lost = check.check(items, summary)
        carried = [i for i in lost if check.in_text(i, capsule)]
        remind.extend(i for i in lost if i not in carried)
        entry.update(
            asked=len(kept) + len(lost),
            kept=[i[1] for i in kept],
            lost=[i[1] for i in lost],
            in_capsule=[i[1] for i in carried],
            reminder="pending" if remind else "none" if lost else "",
            handoff=str(asked.get("handoff") or ""),
        )
        return entry

    entry = compaction_store.settle(env.state, inp.session_id, decide)
    _replace_older_reminder(inp, env)
    if entry.get("note"):
        _log(env, f"PostCompact: compaction {entry['n']} of {inp.session_id}: {entry['note']}")
    if remind:
        _leave_reminder(inp, env, entry, remind, offset)
    _update_handoff(inp, env)
    detail = {k: entry.get(k) for k in ("n", "asked", "kept", "lost", "reminder", "note")}
    return HookResult.noop(**{k: v for k, v in detail.items() if v not in (None, "")})


def _replace_older_reminder(inp: HookInput, env: HookEnv) -> None:
    """A reminder of an earlier compaction nobody took yet: this compaction's block asked for
    what still held, so this compaction's check replaces it."""
    from ccstate.compaction import pending
    from ccstate.compaction import store as compaction_store

    old = pending.take(inp.session_id, env.environ)
    if old is not None and isinstance(old.get("n"), int) and old.get("state"):
        compaction_store.update(str(old["state"]), inp.session_id, old["n"], reminder="replaced")


def _problems(raw: Any) -> list[str]:
    from ccstate.compaction.check import MAX_CHARS

    if not isinstance(raw, str):
        return ["the payload has no compact_summary: everything asked for counts as lost"]
    if not raw.strip():
        return ["compact_summary is empty: everything asked for counts as lost"]
    if len(raw) > MAX_CHARS:
        return [f"compact_summary has {len(raw):,} characters; checked its first {MAX_CHARS:,}"]
    return []


def _leave_reminder(
    inp: HookInput, env: HookEnv, entry: dict[str, Any], remind: list[Any], offset: int
) -> None:
    from ccstate.compaction import check, pending
    from ccstate.compaction.steer import HEADER

    data = {
        "session": inp.session_id,
        "state": env.state,
        "n": entry["n"],
        "line": check.reminder(remind, str(entry.get("handoff") or "")),
        "manual": (inp.trigger or "") == "manual",
        "transcript": inp.transcript_path,
        "offset": offset,
        "marker": HEADER,
    }
    pending.put(inp.session_id, env.environ, data, env.now)


def _update_handoff(inp: HookInput, env: HookEnv) -> None:
    """The handoff was written at PreCompact, before the compaction: add its record now."""
    if not env.config.get("handoff.enabled"):
        return
    try:
        from ccstate.compaction import store as compaction_store
        from ccstate.handoff import store as handoff_store

        entries = compaction_store.handoff_entries(env.state, inp.session_id)
        handoff_store.set_compactions(
            env.state_dir, env.config, inp.session_id, entries, now=env.now
        )
    except Exception as exc:  # the record is kept in compaction/ either way
        _log(env, f"PostCompact: the handoff was not updated: {type(exc).__name__}: {exc}")


def _size(path: str) -> int:
    try:
        return os.path.getsize(path) if path else 0
    except OSError:
        return 0


def _log(env: HookEnv, line: str) -> None:
    from ccstate import hooklog

    hooklog.append_log(env.state, line, max_bytes=int(env.config.get("log.max_bytes")), now=env.now)
