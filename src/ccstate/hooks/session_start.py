"""SessionStart: inject the capsule (and the repo map when `capsule.repo_map_tokens` > 0);
start the detached code indexer; in plugin mode, make sure the private venv exists."""

from __future__ import annotations

import os

from ccstate import capsule
from ccstate.decisions import capsule as decisions
from ccstate.handoff import index as handoff
from ccstate.hookio import HookInput, HookResult
from ccstate.hooks import HookEnv
from ccstate.instructions import status as instructions_status
from ccstate.recall import status as recall_status
from ccstate.repo import status as repo_status


def handle(inp: HookInput, env: HookEnv) -> HookResult:
    _ledger_epoch(inp, env)  # first: forgetting must not depend on anything else
    _prune_outputs(inp, env)
    indexing = repo_status.trigger(env.project, env.state, env.config)  # detached (#41)
    notice = "\n".join(m for m in (_venv_notice(env), _resume_warning(inp, env)) if m)
    if env.config.get("handoff.enabled"):
        handoff.record_start(env.project, env.state, inp.session_id)
    if not env.config.get("capsule.enabled"):
        return HookResult(
            system_message=notice or None, detail={"source": inp.source, "find": indexing}
        )
    sections = [  # each from a cache keyed by file stamps: flat however long the history
        _ledger_section(inp, env),
        handoff.capsule_section(
            env.project, env.state, env.config, inp.source, session_id=inp.session_id, now=env.now
        ),
        decisions.capsule_section(env.project, env.state, env.config),
        instructions_status.capsule_section(env.project, env.state, env.config),
        recall_status.capsule_section(env.state, env.config),
    ]
    budget = int(env.config.get("capsule.budget_tokens"))
    name = os.path.basename(env.project)  # Path.name, without importing pathlib
    text = capsule.render_capsule(name, sections, budget)
    repo_map = repo_status.capsule_map(env.state, env.config)  # capsule.repo_map_tokens > 0
    text = f"{text}\n\n{repo_map}" if text and repo_map else text or repo_map
    if inp.source == "compact":
        _note_capsule(inp, env, text)
    return HookResult(
        additional_context=text or None,
        system_message=notice or None,
        detail={"source": inp.source, "capsule_chars": len(text), "find": indexing},
    )


def _note_capsule(inp: HookInput, env: HookEnv, text: str) -> None:
    """PostCompact, which runs after this, checks the summary; what the capsule carries again
    needs no reminder (#26). Never costs the capsule."""
    if not env.config.get("compaction.enabled"):
        return
    from ccstate.compaction import store as compaction_store
    from ccstate.errors import StateError

    try:
        compaction_store.note_capsule(env.state, inp.session_id, text)
    except (OSError, StateError):
        return


def _ledger_epoch(inp: HookInput, env: HookEnv) -> None:
    """Compaction and resume start a new read-ledger epoch; startup and /clear prune it."""
    from ccstate.ledger import lifecycle as ledger_lifecycle

    ledger_lifecycle.on_lifecycle(
        env.state,
        "SessionStart",
        inp.session_id,
        inp.source,
        now=env.now,
        store_max_bytes=int(env.config.get("dedupe.store_max_mb")) << 20,
        log_max_bytes=int(env.config.get("log.max_bytes")),
    )


def _prune_outputs(inp: HookInput, env: HookEnv) -> None:
    """Startup and /clear keep the digests' originals within `outputs.store_max_mb`."""
    if inp.source not in ("startup", "clear"):
        return
    from ccstate.outputs import store as out_store

    out_store.prune(env.state, max_bytes=int(env.config.get("outputs.store_max_mb")) << 20)


def _ledger_section(inp: HookInput, env: HookEnv) -> list[str]:
    from ccstate.ledger import lifecycle as ledger_lifecycle

    return ledger_lifecycle.capsule_section(env.state, env.project, inp.session_id, inp.source)


def _resume_warning(inp: HookInput, env: HookEnv) -> str:
    """Resume or fork on an expired cache: what the next turn re-writes, for the user only
    (docs/MOMENTS.md); the capsule is the same with or without it."""
    if inp.source not in ("resume", "fork") or not env.config.get("moments.resume.enabled"):
        return ""
    import time

    from ccstate.moments import rates, resume

    found = resume.facts(inp.raw, inp.transcript_path, env.now, env.environ)
    if found is None:
        return ""
    override = str(env.config.get("report.pricing"))
    if override and not os.path.isabs(override):
        override = os.path.join(env.project, override)
    today = time.strftime("%Y-%m-%d", time.gmtime(env.now))
    card = rates.card(found.model, today=today, override=override)
    text = resume.warning(
        found,
        card,
        min_usd=float(env.config.get("moments.resume.min_usd")),
        compact_min_usd=float(env.config.get("moments.resume.compact_min_usd")),
    )
    return text or ""


def _venv_notice(env: HookEnv) -> str:
    """Plugin mode only: start the venv build once; relay a failure to the user."""
    if env.plugin_root_str is None or env.plugin_data_str is None:
        return ""  # the Path properties below import pathlib: not for every SessionStart
    if env.environ.get("CCSTATE_PLUGIN_VENV"):
        return ""  # the launcher found the venv ready and runs with it: nothing to check (#14)
    root, data = env.plugin_root, env.plugin_data
    if root is None or data is None:
        return ""
    from ccstate.install import bootstrap

    state = bootstrap.check(root, data)
    if state.status == "missing":
        bootstrap.start_build(root, data)
    return state.message if state.status == "failed" else ""
