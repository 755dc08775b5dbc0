"""Every writer ccstate has, run over planted texts (issue #23): the harness the secret tests
share (tests/test_writers_gitleaks.py, tests/test_writers_property.py).

`plan(texts)` spreads texts over sessions, each text at one *position* of a transcript where a
session leaves text: a prompt, a failed command's words, a failed command's output (long
enough to be cut, the text at its head and at its tail), a failed edit's error (the text at its
end, before `</tool_use_error>`), an edit's old and new strings, a written file's path (a
moment's title, a handoff's path) and content, a todo, a task's title, a commit subject, a
failed check's output, an assistant answer, a `handoff note`, a hook's
command (report's hook table), a re-read file's path (report's re-read table), and a hook
payload that crashes the hook (hooks.log). `run_writers` then runs, in process, what a session's
end and the CLI run: the handoff writer (markdown, JSON, progress log) per session, the
SessionStart capsule's handoff section, `handoff note`, `handoff show` (text and --json), the
hook guard on a crashing payload, the recall index over every transcript (moments, stored
state, keys), `recall` queries (text and --json), `report`'s text output, and the facts a
compaction block is made of (handoff/facts.py, printed at PreCompact and recorded), and what
a scan its deadline stopped keeps for the next run (handoff/resume.py, #37).

`Written` holds every byte written under the state dir (the index database files included)
and every text shown. The two content-addressed stores that keep a *verbatim* copy of what
the session itself delivered (`ledger/blobs/`, `out/`) are left out on purpose: a digest's
original must be restorable byte for byte and a diff needs the file as read; no writer here
fills them (they are the PostToolUse hook's, tests/hooks/test_post_tool_use*.py), and they are
private (tests/hooks/test_private_state.py).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ccstate import config, paths
from ccstate.cli import cli
from ccstate.handoff import index as handoff_index
from ccstate.handoff import resume as handoff_resume
from ccstate.handoff import store as handoff_store
from ccstate.hooks import __main__ as guard
from ccstate.recall import index as recall_index
from ccstate.recall import update as recall_update
from ccstate.secrets import redact

NOW = 1_772_362_800.0
POSITIONS = (
    "prompt",
    "command",
    "output",
    "error",
    "edit",
    "path",
    "todo",
    "commit",
    "check",
    "answer",
    "note",
    "hook",
    "reread",
    "payload",
)
# Per session, how many texts a position takes (what one handoff shows of it, or fewer)
CAPACITY = {
    "prompt": 2,  # first and latest prompt
    "command": 4,  # the ten latest failed calls: command, output and error share them
    "output": 3,
    "error": 3,
    "edit": 10,
    "path": 40,  # a handoff keeps 60 touched paths
    "todo": 40,  # the last todo list and the open tasks: 60 items kept
    "task": 20,  # a task's title: `plan_at` only (#37), `plan` spreads over `POSITIONS`
    "commit": 8,
    "check": 8,
    "answer": 10,
    "note": 40,  # two notes of 20 texts (ten notes are kept)
    "hook": 20,
    "reread": 20,
    "payload": 40,  # in crashing payloads of 2 KB (what hooks.log keeps)
}
NOTE_TEXTS = 20
PAYLOAD_HEAD = 1800
# Between two texts of one string (a note, a payload): more lines than any rule looks across.
GAP = "\n" * 12
# Verbatim copies of what the session delivered (see the module's docstring).
VERBATIM = ("ledger/blobs/", "out/")


@dataclass
class Session:
    sid: str
    placed: dict[str, list[str]] = field(default_factory=dict)

    def texts(self, position: str) -> list[str]:
        return self.placed.get(position, [])


@dataclass
class Written:
    files: dict[str, bytes] = field(default_factory=dict)  # state dir, relative path
    shown: dict[str, str] = field(default_factory=dict)  # what the CLI printed, the capsule

    def texts(self) -> Iterator[tuple[str, str]]:
        for name, data in self.files.items():
            yield name, data.decode("utf-8", "replace")
        yield from self.shown.items()


def plan(texts: Sequence[str], *, rounds: int = 1) -> list[Session]:
    """`texts` spread over sessions, each session's positions filled up to `CAPACITY` in an
    interleaved order (one position after another); each text is placed `rounds` times, each
    round half a session's slots further on (so at another position)."""
    slots = _slots()
    sessions: list[Session] = []
    for r in range(rounds):
        for n, text in enumerate(texts):
            number, slot = divmod(n + r * (len(slots) // 2 + 1), len(slots))
            while len(sessions) <= number:
                sessions.append(Session(_sid(len(sessions))))
            sessions[number].placed.setdefault(slots[slot], []).append(text)
    return sessions


def plan_at(
    placed: Sequence[tuple[str, str]], capacity: Mapping[str, int] = CAPACITY
) -> list[Session]:
    """(position, text) pairs as sessions, each position filled up to `capacity`."""
    sessions: list[Session] = []
    for position, text in placed:
        free = next((s for s in sessions if len(s.texts(position)) < capacity[position]), None)
        if free is None:
            free = Session(_sid(len(sessions)))
            sessions.append(free)
        free.placed.setdefault(position, []).append(text)
    return sessions


# Where each position's text is cut before it is written (the caps of the writers: recall's
# moments, the handoff's items, hooks.log's payload head), in characters from its start; a
# secret that starts a little before one is cut by it.
CUTS = {
    "prompt": (120, 240, 2000, 4000),
    "command": (60, 100, 140, 400, 2000),
    "output": (180, 240, 297, 600, 2000, 16384),
    "error": (180, 240, 297, 600),
    "edit": (400, 800),
    "path": (60, 160),
    "todo": (160, 4000),
    "task": (160, 4000),
    "commit": (120,),
    "check": (160, 240),
    "answer": (2000,),
    "note": (140, 300),
    "payload": (1800, 2048),
    "hook": (34,),
    "reread": (100,),
}


def _slots() -> list[str]:
    """One session's slots, the positions interleaved by how full each is."""
    order = [(i / CAPACITY[p], p) for p in POSITIONS for i in range(CAPACITY[p])]
    return [p for _f, p in sorted(order, key=lambda fp: (fp[0], POSITIONS.index(fp[1])))]


def _sid(n: int) -> str:
    return f"5ec23000-0000-4000-8000-{n:012d}"


class _Transcript:
    """Records shaped as Claude Code 2.1 writes them, in order."""

    def __init__(self, session: Session, project: Path) -> None:
        self.sid, self.project = session.sid, str(project)
        self.records: list[dict[str, Any]] = []
        self.n = 0

    def _base(self, kind: str) -> dict[str, Any]:
        self.n += 1
        stamp = f"2026-03-01T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z"
        return {
            "type": kind,
            "uuid": f"{self.sid[:8]}-{self.n}",
            "sessionId": self.sid,
            "cwd": self.project,
            "gitBranch": "main",
            "timestamp": stamp,
        }

    def prompt(self, text: str) -> None:
        self.records.append({**self._base("user"), "message": {"role": "user", "content": text}})

    def answer(self, text: str) -> None:
        block = {"type": "text", "text": text}
        message = {"role": "assistant", "content": [block]}
        self.records.append({**self._base("assistant"), "message": message})

    def call(
        self, name: str, tool_input: dict[str, Any], output: str, *, error: bool = False
    ) -> None:
        tool_id = f"toolu_{self.n:05d}"
        use = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
        message = {"role": "assistant", "content": [use]}
        self.records.append({**self._base("assistant"), "message": message})
        result = {"type": "tool_result", "tool_use_id": tool_id, "content": output}
        result["is_error"] = error
        reply = {**self._base("user"), "message": {"role": "user", "content": [result]}}
        self.records.append(reply)

    def hook(self, command: str) -> None:
        attachment = {
            "type": "hook_success",
            "hookName": "PostToolUse:Bash",
            "hookEvent": "PostToolUse",
            "command": command,
            "durationMs": 12,
        }
        self.records.append({**self._base("attachment"), "attachment": attachment})

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records))
        return path


def noisy_output(text: str, lines: int = 200) -> str:
    """A failed command's output holding `text` at its head and its tail, long enough that
    every writer cuts it (recall keeps 600 characters, a handoff 180)."""
    return f"Exit code 1\nerror: {text}\n" + "compiling module\n" * lines + f"failed: {text}\n"


def transcript_of(session: Session, project: Path) -> _Transcript:
    t = _Transcript(session, project)
    prompts = session.texts("prompt") or ["carry on"]
    t.prompt(prompts[0])
    for n, text in enumerate(session.texts("command")):
        t.call(
            "Bash", {"command": f"step{n} run {text}"}, "Exit code 1\nerror: refused", error=True
        )
    for n, text in enumerate(session.texts("output")):
        t.call("Bash", {"command": f"build{n} all"}, noisy_output(text), error=True)
    for n, text in enumerate(session.texts("error")):
        path = f"{project}/src/broken{n}.py"
        message = f"<tool_use_error>String to replace not found in file.\nString: {text}"
        message += "</tool_use_error>"  # as Claude Code ends it: the text's end touches a tag
        t.call(
            "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, message, error=True
        )
    for n, text in enumerate(session.texts("edit")):
        edit = {"file_path": f"{project}/src/mod{n}.py", "old_string": text, "new_string": text}
        t.call("Edit", edit, "The file has been updated.")
    for text in session.texts("path"):
        path = f"{project}/notes/{text}"  # as it is, at the end: nothing glued to it
        t.call("Write", {"file_path": path, "content": text}, f"File created at: {path}")
    todos = [{"content": text, "status": "pending"} for text in session.texts("todo")]
    if todos:
        t.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
    for n, text in enumerate(session.texts("task")):  # a task's title, as Claude Code 2.1 keeps
        created = f"Task #{n + 1} created successfully: {text}"
        t.call("TaskCreate", {"subject": text, "description": "as planned"}, created)
    for n, text in enumerate(session.texts("commit")):
        subject = text.strip().splitlines()[0] if text.strip() else "x"  # a subject is a line
        out = f"[main {n + 1:07x}] {subject}\n 1 file changed, 1 insertion(+)"
        t.call("Bash", {"command": f"git commit -am 'step {n}'"}, out)
    for n, text in enumerate(session.texts("check")):
        out = f"Exit code 1\nFAILED tests/test_{n}.py::test_it - {text}\n1 failed"
        t.call("Bash", {"command": f"pytest -q tests/test_{n}.py"}, out, error=True)
    for text in session.texts("answer"):
        t.answer(text)
    for text in session.texts("hook"):
        t.hook(text)
    for n, text in enumerate(session.texts("reread")):
        path = f"{project}/docs/{n}/{text}"
        for _ in range(2):
            t.call("Read", {"file_path": path}, "     1\tsame text\n")
    if len(prompts) > 1:
        t.prompt(prompts[1])
    return t


def _invoke(args: list[str], env: dict[str, str] | None = None) -> str:
    done = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    assert done.exit_code == 0, (args, done.output)
    return done.output


def run_writers(
    project: Path, home: Path, sessions: Sequence[Session], *, shown: bool = True
) -> Written:
    """Every writer over `sessions` (module docstring); what they wrote and showed
    (`shown=False`: what they wrote only, without the CLI's reading commands)."""
    (project / ".ccstate.yaml").write_text(CONFIG)
    state = paths.state_dir(project)
    cfg = config.load_config(project)
    folder = home / ".claude" / "projects" / paths.project_slug(project)
    out = Written()
    transcripts = []
    for session in sessions:
        t = transcript_of(session, project)
        path = t.write(folder / f"{session.sid}.jsonl")
        transcripts.append(path)
        written = handoff_store.write_handoff(
            project, state, cfg, transcript=path, event="SessionEnd", now=NOW
        )
        # what PreCompact prints to the summariser and the compaction record keeps (#26)
        out.shown[f"compaction facts {session.sid}"] = json.dumps(written.facts)
        # what a scan its deadline stopped keeps for the next run (#37): here the whole scan
        scan, _note, where = handoff_store.scan_from(path, None, None)
        assert where is not None
        redactor = redact.for_project(project)
        handoff_resume.save(state, session.sid, path, scan, where, redactor)
        notes = session.texts("note")
        for i in range(0, len(notes), NOTE_TEXTS):
            note = GAP.join(notes[i : i + NOTE_TEXTS])
            _invoke(["handoff", "note", "-C", str(project), "--session", session.sid, "--", note])
        _crash(project, session.texts("payload"))
        if shown:
            _show(project, state, cfg, session.sid, out)
    con, _report = recall_update.refresh(project, state, cfg, environ={"HOME": str(home)}, jobs=1)
    con.close()
    if shown:
        for query in ("error", "compiling module", "notes", "step run", "handoff"):
            for flag in ([], ["--json"]):
                where = ["-n", "100", "--no-update", "-C", str(project)]
                out.shown[f"recall {' '.join(flag)} {query}"] = _invoke(
                    ["recall", *where, *flag, query]
                )
        report = ["report", "--no-cache", "--top", "100000", *map(str, transcripts)]
        out.shown["report"] = _invoke(report, env={"COLUMNS": "400"})
    for path in sorted(state.rglob("*")):
        name = str(path.relative_to(state))
        if path.is_file() and not name.startswith(VERBATIM):
            out.files[name] = path.read_bytes()
    assert recall_index.folder(state).is_dir()
    return out


def _show(project: Path, state: Path, cfg: config.Config, sid: str, out: Written) -> None:
    """What SessionStart injects of a session's handoff, and `handoff show` prints."""
    capsule = handoff_index.capsule_section(project, state, cfg, "startup", now=NOW)
    out.shown[f"capsule {sid}"] = "\n".join(capsule)
    for flag in ([], ["--json"]):
        printed = _invoke(["handoff", "show", "--session", sid, *flag, "-C", str(project)])
        out.shown[f"handoff show {' '.join(flag)} {sid}"] = printed


def _crash(project: Path, texts: Sequence[str]) -> None:
    """The hook guard on payloads that are no JSON: hooks.log keeps each one's head."""
    batches: list[list[str]] = []
    for text in texts:
        if batches and len(GAP.join([*batches[-1], text])) <= PAYLOAD_HEAD:
            batches[-1].append(text)
        else:
            batches.append([text])
    environ = {"CLAUDE_PROJECT_DIR": str(project)}
    for batch in batches:
        payload = '{"cwd": "' + str(project) + '", oops ' + GAP.join(batch)
        guard.run("PostToolUse", io.StringIO(payload), io.StringIO(), environ)


# Logs and progress big enough to keep every entry the harness makes.
CONFIG = "log:\n  max_bytes: 1073741824\nhandoff:\n  progress_max_bytes: 1073741824\n"
