"""Which files make a session: a transcript's session id from where it lies, its subagents'
transcripts (`<session>/subagents/agent-*.jsonl`), a session named by a prefix of its id."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

SUBAGENTS_DIR = "subagents"


def subagent_transcripts(main: Path) -> list[Path]:
    """The subagent transcripts of a main transcript: `<dir>/<session>/subagents/agent-*.jsonl`."""
    folder = main.parent / main.stem / SUBAGENTS_DIR
    try:
        return sorted(folder.glob("agent-*.jsonl"))
    except OSError:
        return []


def session_of(path: Path) -> str:
    """The session a transcript file belongs to: its stem, or for a file in
    `<session>/subagents/`, that session's id."""
    if path.parent.name == SUBAGENTS_DIR:
        return path.parent.parent.name
    return path.stem


def match_session(given: str, known: Iterable[str]) -> str | None:
    """The session id `given` stands for among `known`: itself, or the one id it is the
    start of (ccstate prints ids cut to 8 characters); None when it fits none.
    CcstateError when it is the start of several."""
    from ccstate.errors import CcstateError

    ids = set(known)
    if given in ids:
        return given
    matches = sorted(i for i in ids if given and i.startswith(given))
    if len(matches) > 1:
        shown = ", ".join(m[: len(given) + 4] + "…" for m in matches[:5])
        raise CcstateError(
            f"session {given!r} is the start of {len(matches)} sessions ({shown}); "
            "pass more of its id"
        )
    return matches[0] if matches else None


def session_transcripts(given: str, candidates: Iterable[Path]) -> list[Path]:
    """The main transcripts (`<session>.jsonl`) of the session `given` stands for."""
    files = list(candidates)
    session = match_session(given, (p.stem for p in files))
    return sorted(p for p in files if p.stem == session)
