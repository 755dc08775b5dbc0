"""`ccstate handoff write|note|show`: the session handoff from the command line (#4)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import click

from ccstate import config, paths, store
from ccstate.cli import cli, echo_json, handle_errors, project_option, resolve_project
from ccstate.errors import CcstateError
from ccstate.handoff import index as handoff
from ccstate.handoff import store as handoff_store

SESSION_ENV = "CLAUDE_CODE_SESSION_ID"  # set by Claude Code for the Bash tool's commands
_session_option = click.option(
    "--session",
    "session",
    default=None,
    help=f"Session id or its start, e.g. 1a2b3c4d (default: ${SESSION_ENV} inside Claude "
    "Code, else the newest handoff).",
)


@cli.group(name="handoff")
def handoff_group() -> None:
    """Write, annotate and show session handoffs (what a successor session needs).

    Handoffs are written automatically at compaction and session end; see docs/HANDOFF.md.

    \b
    Example:
        ccstate handoff note "next: run the e2e suite, then update the changelog"
        ccstate handoff show
        ccstate handoff write --transcript ~/.claude/projects/<slug>/<session>.jsonl
    """


@handoff_group.command(name="write")
@click.option(
    "--transcript",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Transcript JSONL to read (default: this session's, found by its id).",
)
@_session_option
@project_option
@handle_errors
def write_cmd(transcript: Path | None, session: str | None, project: Path | None) -> None:
    """Write (or refresh) a session's handoff from its transcript and git.

    \b
    Example:
        ccstate handoff write
        ccstate handoff write --transcript session.jsonl
    """
    root = resolve_project(project)
    state = paths.state_dir(root)
    if transcript is None:
        session = session or os.environ.get(SESSION_ENV)
        transcript = find_transcript(root, session)
        session = transcript.stem if session else None
    result = handoff_store.write_handoff(
        root,
        state,
        config.load_config(root),
        transcript=transcript,
        event="manual",
        now=time.time(),
        session_id=session,
    )
    verb = "Wrote" if result.written else "Unchanged"
    assert result.path is not None  # only SessionEnd skips
    click.echo(f"{verb} {_shown(result.path, root)} (~{result.tokens} tokens)")


@handoff_group.command(name="note")
@click.argument("text")
@_session_option
@project_option
@handle_errors
def note_cmd(text: str, session: str | None, project: Path | None) -> None:
    """Add a next step for whoever continues this session's work.

    Notes lead the handoff ("Next steps") and the capsule of the next session.
    Write what to do next and why, not what was done: that comes from the transcript.

    \b
    Example:
        ccstate handoff note "next: make test_parse_dates pass (fails on a leap day)"
    """
    root = resolve_project(project)
    state = paths.state_dir(root)
    session = _session(state, root, session or os.environ.get(SESSION_ENV))
    path, count = handoff_store.add_note(
        root, state, config.load_config(root), session, text, now=time.time()
    )
    where = f": {_shown(path, root)}" if path else " (it goes into the next handoff written)"
    click.echo(f"Noted ({count} note{'s' * (count != 1)}) for session {session[:8]}{where}")


@handoff_group.command(name="show")
@_session_option
@click.option("--list", "as_list", is_flag=True, help="List the handoffs kept, newest first.")
@click.option("--json", "as_json", is_flag=True, help="Print the structured handoff as JSON.")
@project_option
@handle_errors
def show_cmd(session: str | None, as_list: bool, as_json: bool, project: Path | None) -> None:
    """Print the handoff a new session on this branch would start from.

    \b
    Example:
        ccstate handoff show
        ccstate handoff show --list
    """
    root = resolve_project(project)
    state = paths.state_dir(root)
    index = handoff.read_index(state)
    if as_list:
        _print_list(index, as_json, state, root)
        return
    chosen = _session(state, root, session)
    entry = index["sessions"].get(chosen)
    if not isinstance(entry, dict):
        raise CcstateError(f"no handoff for session {chosen}; see 'ccstate handoff show --list'")
    path = Path(handoff.handoff_dir(state)) / str(entry["path"])
    if as_json:
        echo_json(store.read_json(path.with_suffix(".json")))
        return
    try:
        click.echo(path.read_text(encoding="utf-8"), nl=False)
    except OSError as exc:
        msg = f"{path}: cannot be read ({exc.strerror}); run 'ccstate handoff write'"
        raise CcstateError(msg) from exc


def _print_list(index: dict[str, Any], as_json: bool, state: Path, root: Path) -> None:
    entries = sorted(index["sessions"].values(), key=lambda e: -int(e.get("seq", 0)))
    if as_json:
        echo_json(entries)
        return
    if not entries:
        where = _shown(Path(handoff.handoff_dir(state)), root)
        click.echo(
            f"No handoffs in {where} yet: one is written {handoff.WRITTEN_WHEN}; "
            "'ccstate handoff write' writes one now"
        )
        return
    for e in entries:
        where = e.get("branch") or "(detached)"
        head = str(e.get("head") or "-------")[:7]
        click.echo(f"{e.get('written')}  {e.get('session')}  {where}  {head}  {e.get('event')}")


def _session(state: Path, root: Path, session: str | None) -> str:
    """The given session (or the one known session it is the start of), else the newest
    handoff on the current branch."""
    if session:
        return handoff.match_known(state, session)
    from ccstate import gitinfo

    head = gitinfo.read_head(root)
    entry = handoff.choose(handoff.read_index(state), head.branch if head else None)
    if entry is None:
        raise CcstateError(
            f"no handoff in {state} yet and no session given; pass --session ID "
            f"(inside Claude Code ${SESSION_ENV} is used)"
        )
    return str(entry["session"])


def find_transcript(root: Path, session: str | None) -> Path:
    """The transcript of `session` in Claude Code's project dir, or the newest one there."""
    folders = [
        paths.user_claude_dir() / "projects" / paths.project_slug(where)
        for where in dict.fromkeys((str(root), str(Path.cwd().resolve())))
    ]
    if session:  # a full id, or its start as ccstate prints it
        from ccstate.transcript.sessions import session_transcripts

        candidates = [p for d in folders if d.is_dir() for p in d.glob("*.jsonl")]
        found = session_transcripts(session, candidates)
        if found:
            return found[0]
    else:
        found = [p for folder in folders if folder.is_dir() for p in folder.glob("*.jsonl")]
        if found:
            return max(found, key=lambda p: (p.stat().st_mtime, p.name))
    what = f"session {session}" if session else "this project"
    raise CcstateError(f"no transcript for {what} in {folders[0]}; pass --transcript FILE")


def _shown(path: Path, root: Path) -> str:
    rel = os.path.relpath(path, root)
    return str(path) if rel.startswith("..") else rel
