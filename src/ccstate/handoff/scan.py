"""What a session did, from its transcript: one streaming pass, no LLM (issue #4).

`Scan.feed(line, record)` takes the records in file order and keeps only what a
handoff needs: the first and latest user prompts, files edited or written, the
newest verdict of each test, build, lint or type tool run through Bash (checks.py: a
check passes only when its output or exit status proves it), commits seen in `git commit`
output, the last todo list, errors not followed by a success of the same kind,
and decision IDs mentioned. Every fact keeps the transcript line it came from.
Texts are kept raw but bounded (`KEEP`: the `TEXT_CAP` characters a handoff looks at, plus
`redact.CUT_SLACK` so that a secret reaching into them is whole); redaction happens when the
handoff is built, before anything is cut for display (#23). Lookup keys hold no text of the
call (`problem_key`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ccstate.handoff import checks
from ccstate.handoff.checks import Check
from ccstate.secrets.redact import CUT_SLACK
from ccstate.transcript.content import (
    REJECTED,
    block_text,
    message_content,
    prompt_text,
    user_prompt,
)

TEXT_CAP = 4000  # characters of any one prompt, command or output a handoff looks at
KEEP = TEXT_CAP + CUT_SLACK  # characters kept raw: redaction sees a secret at the cap whole
FILE_TOOLS = {"Edit": "edited", "MultiEdit": "edited", "NotebookEdit": "edited", "Write": "written"}
TODO_TOOLS = {"TodoWrite"}
MAX_PENDING = 2000  # tool_use blocks waiting for their result (bounded for odd transcripts)
_COMMIT_LINE = re.compile(r"^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.*)$", re.M)
_DECISION_ID = re.compile(r"\bD(\d{1,4})\b")
# What `ccstate decide` prints: "Recorded D7 (DECISIONS.md): <title>"; before #13 just "D7".
_RECORDED = re.compile(r"^Recorded D(\d{1,4}) \(|^D(\d{1,4})$", re.M)
# Records that name the session (2.1.x), the user's own name first, and their value's key.
TITLE_KEYS = {"custom-title": "customTitle", "ai-title": "aiTitle", "agent-name": "agentName"}
RECAP_SUFFIX = "(disable recaps in /config)"  # what Claude Code adds to an away_summary


@dataclass(frozen=True)
class Prompt:
    text: str
    line: int


@dataclass
class Touch:
    path: str
    kind: str  # edited | written | created
    count: int
    first_line: int
    last_line: int


@dataclass(frozen=True)
class Problem:
    tool: str
    subject: str  # the command or path the call was about
    message: str
    line: int


@dataclass(frozen=True)
class Todo:
    status: str
    text: str
    line: int


@dataclass
class Scan:
    """Accumulates the facts; feed every record in order, then read the fields."""

    session_id: str = ""
    branch: str = ""
    cwd: str = ""
    first_time: str = ""
    last_time: str = ""
    records: int = 0
    last_line: int = 0
    compactions: int = 0
    prompt_count: int = 0
    first_prompt: Prompt | None = None
    latest_prompt: Prompt | None = None
    sidechain_prompt: Prompt | None = None
    # the session's name: the user's (`/rename`: custom-title), else Claude Code's (ai-title,
    # 2.1.1xx), else the agent's; the latest of each
    titles: dict[str, Prompt] = field(default_factory=dict)
    recap: Prompt | None = None  # Claude Code's own "while you were away" summary, the latest
    touches: dict[str, Touch] = field(default_factory=dict)
    checks: dict[str, Check] = field(default_factory=dict)  # Verdict.key -> the newest run
    commits: dict[str, tuple[str, int]] = field(default_factory=dict)  # sha -> (subject, line)
    todos: list[Todo] = field(default_factory=list)
    tasks: dict[str, Todo] = field(default_factory=dict)
    problems: dict[str, Problem] = field(default_factory=dict)
    cited: dict[str, int] = field(default_factory=dict)  # D-id -> first line
    added: dict[str, int] = field(default_factory=dict)  # D-id from `ccstate decide` output
    _pending: dict[str, tuple[str, dict[str, Any], int]] = field(default_factory=dict)
    _queued: list[tuple[str, int]] = field(default_factory=list)  # typed while Claude worked
    _delivered: list[str] = field(default_factory=list)  # queued prompts counted, the latest

    def feed(self, line: int, record: dict[str, Any]) -> None:
        self.records += 1
        self.last_line = line
        self._meta(record)
        kind = record.get("type")
        if kind == "assistant":
            self._assistant(line, record)
        elif kind == "user":
            self._user(line, record)
        elif kind == "system":
            self._system(line, record)
        elif kind == "queue-operation":
            self._queue(line, record)
        elif kind == "attachment":
            self._attachment(line, record)
        elif kind in TITLE_KEYS:
            value = record.get(TITLE_KEYS[kind])
            if isinstance(value, str) and value.strip():
                self.titles[kind] = Prompt(value.strip()[:KEEP], line)

    def _system(self, line: int, record: dict[str, Any]) -> None:
        subtype = record.get("subtype")
        if subtype == "compact_boundary":
            self.compactions += 1
        elif subtype == "away_summary" and isinstance(record.get("content"), str):
            recap = record["content"].removesuffix(RECAP_SUFFIX).strip()
            if recap:
                self.recap = Prompt(recap[:KEEP], line)

    def _queue(self, line: int, record: dict[str, Any]) -> None:
        """A prompt the user typed while Claude worked (2.1.x): `enqueue`d, then `remove`d when
        Claude Code hands it to the model between tool calls (`dequeue`: at the turn's end,
        as an ordinary user record, counted there)."""
        operation = record.get("operation")
        content = record.get("content")
        if operation == "enqueue" and isinstance(content, str):
            if len(self._queued) < MAX_PENDING:
                self._queued.append((content, line))
        elif operation in ("remove", "dequeue") and self._queued:
            text, queued_at = self._queued.pop(0)
            if operation == "remove":
                self._queued_prompt(text, queued_at)

    def _attachment(self, line: int, record: dict[str, Any]) -> None:
        attachment = record.get("attachment")
        if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
            return
        text = attachment.get("prompt")
        if attachment.get("commandMode") in (None, "prompt") and isinstance(text, str):
            if text in self._delivered:  # its queue-operation counted it already
                self._delivered.remove(text)
                return
            self._queued_prompt(text, line, note=False)

    def _queued_prompt(self, text: str, line: int, *, note: bool = True) -> None:
        if text.lstrip().startswith('{"task_id"'):
            return  # a background task's notice, not the user
        prompt = prompt_text(text)
        if not prompt:
            return
        if note:
            self._delivered = [*self._delivered[-7:], text]
        self._prompt(Prompt(prompt[:KEEP], line), sidechain=False)

    def _meta(self, record: dict[str, Any]) -> None:
        for attr, key in (("session_id", "sessionId"), ("branch", "gitBranch"), ("cwd", "cwd")):
            value = record.get(key)
            if isinstance(value, str) and value and not record.get("isSidechain"):
                setattr(self, attr, value)
        stamp = record.get("timestamp")
        if isinstance(stamp, str) and stamp:
            self.first_time = self.first_time or stamp
            self.last_time = stamp

    def _assistant(self, line: int, record: dict[str, Any]) -> None:
        for block in message_content(record):
            if block.get("type") == "text":
                self._cite(str(block.get("text", ""))[:KEEP], line)
            elif block.get("type") == "tool_use":
                self._tool_use(line, block)

    def _tool_use(self, line: int, block: dict[str, Any]) -> None:
        name = str(block.get("name", ""))
        raw = block.get("input")
        tool_input: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if name in TODO_TOOLS and isinstance(tool_input.get("todos"), list):
            self.todos = [
                Todo(str(t.get("status", "")), str(t.get("content", ""))[:KEEP], line)
                for t in tool_input["todos"]
                if isinstance(t, dict)
            ]
        tool_id = block.get("id")
        if isinstance(tool_id, str) and len(self._pending) < MAX_PENDING:
            self._pending[tool_id] = (name, tool_input, line)

    def _user(self, line: int, record: dict[str, Any]) -> None:
        blocks = message_content(record)
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results:
            extra = record.get("toolUseResult")
            for block in results:
                self._tool_result(line, block, extra if len(results) == 1 else None)
            return
        prompt = user_prompt(record, blocks)
        if not prompt:
            return
        self._prompt(Prompt(prompt[:KEEP], line), sidechain=bool(record.get("isSidechain")))

    def _prompt(self, found: Prompt, *, sidechain: bool) -> None:
        self._cite(found.text, found.line)
        if sidechain:
            self.sidechain_prompt = self.sidechain_prompt or found
            return
        self.prompt_count += 1
        self.first_prompt = self.first_prompt or found
        self.latest_prompt = found

    def _tool_result(self, line: int, block: dict[str, Any], extra: Any) -> None:
        pending = self._pending.pop(str(block.get("tool_use_id", "")), None)
        if pending is None:
            return
        name, tool_input, _use_line = pending
        whole = block_text(block.get("content"))
        text = whole[:KEEP]
        if any(marker in text[:300] for marker in REJECTED):
            return  # the user said no, or a hook blocked it: not an error to fix
        failed = bool(block.get("is_error")) or (
            isinstance(extra, dict) and extra.get("interrupted")
        )
        key, subject = problem_key(name, tool_input)
        if failed:
            self.problems.pop(key, None)  # re-insert: keeps the latest order
            self.problems[key] = Problem(name, subject, text, line)
        else:
            self.problems.pop(key, None)
        if name in FILE_TOOLS and not failed:
            self._touch(name, tool_input, extra, line)
        elif name == "Bash":
            self._bash(tool_input, whole, bool(block.get("is_error")), extra, line)
        elif name in ("TaskCreate", "TaskUpdate") and not failed:
            self._task(name, tool_input, text, extra, line)

    def _touch(self, name: str, tool_input: dict[str, Any], extra: Any, line: int) -> None:
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        if not isinstance(path, str) or not path:
            return
        kind = FILE_TOOLS[name]
        if isinstance(extra, dict) and extra.get("type") == "create":
            kind = "created"
        seen = self.touches.get(path)
        if seen is None:
            self.touches[path] = Touch(path, kind, 1, line, line)
        else:
            seen.count += 1
            seen.last_line = line
            if seen.kind != "created":
                seen.kind = kind if kind != "edited" or seen.kind == "edited" else seen.kind

    def _bash(
        self, tool_input: dict[str, Any], whole: str, is_error: bool, extra: Any, line: int
    ) -> None:
        """`whole`: the call's whole output (a tool's summary is at its end); `is_error`:
        Claude Code's mark of a non-zero exit."""
        command = str(tool_input.get("command", ""))[:KEEP]
        text = whole[:KEEP]
        if "git commit" in command or "git merge" in command:
            for match in _COMMIT_LINE.finditer(text):
                if match.end() < KEEP:  # a line the bound cut is not whole: no subject
                    self.commits.setdefault(match.group(2), (match.group(3), line))
        if "ccstate decide" in command and not is_error:
            for match in _RECORDED.finditer(text[:500]):
                self.added.setdefault(f"D{match.group(1) or match.group(2)}", line)
        extra = extra if isinstance(extra, dict) else {}
        status = checks.status_of(
            whole,
            is_error=is_error,
            interrupted=bool(extra.get("interrupted")),
            background=bool(extra.get("backgroundTaskId")),
        )
        for verdict in checks.classify(command, whole, status):
            if verdict.outcome == checks.NOT_RUN and verdict.key in self.checks:
                continue  # a refused or skipped run does not undo what an earlier one showed
            self.checks.pop(verdict.key, None)  # re-insert: keeps the newest order
            output = text if verdict.ok is False else ""
            self.checks[verdict.key] = Check(command, verdict, line, output, self.last_time)

    def _task(
        self, name: str, tool_input: dict[str, Any], text: str, extra: Any, line: int
    ) -> None:
        if name == "TaskCreate":
            task = extra.get("task") if isinstance(extra, dict) else None
            task_id = task.get("id") if isinstance(task, dict) else None
            if task_id is None:
                match = re.search(r"#(\w+)", text)
                task_id = match.group(1) if match else str(len(self.tasks) + 1)
            subject = str(tool_input.get("subject") or tool_input.get("description") or "")
            self.tasks[str(task_id)] = Todo("pending", subject[:KEEP], line)
            return
        task_id = str(tool_input.get("taskId", ""))
        old = self.tasks.get(task_id)
        status = str(tool_input.get("status") or (old.status if old else "pending"))
        if status == "deleted":
            self.tasks.pop(task_id, None)
            return
        subject = str(tool_input.get("subject") or (old.text if old else f"task {task_id}"))
        self.tasks[task_id] = Todo(status, subject[:KEEP], line)

    def _cite(self, text: str, line: int) -> None:
        for number in _DECISION_ID.findall(text):
            self.cited.setdefault(f"D{number}", line)

    def open_todos(self) -> list[Todo]:
        """The last todo list's unfinished items, then unfinished tasks."""
        items = [t for t in self.todos if t.status != "completed"]
        items += [t for t in self.tasks.values() if t.status != "completed"]
        return items

    def title(self) -> Prompt | None:
        """The session's name: the user's, else Claude Code's, else the agent's."""
        return next((self.titles[k] for k in TITLE_KEYS if k in self.titles), None)

    def goal_prompts(self) -> list[tuple[str, Prompt]]:
        """[("first prompt", p), ("latest prompt", p)]; a subagent's task if nothing else."""
        first = self.first_prompt or self.sidechain_prompt
        if first is None:
            return []
        if self.latest_prompt is None or self.latest_prompt.line == first.line:
            return [("prompt", first)]
        return [
            ("first prompt", first),
            (f"latest prompt (of {self.prompt_count})", self.latest_prompt),
        ]

    def named(self) -> list[tuple[str, Prompt]]:
        """What Claude Code wrote about the session (2.1.x): its title and its recap."""
        title = next((self.titles[k] for k in TITLE_KEYS if k in self.titles), None)
        out = [("session title", title)] if title is not None else []
        return out + ([("Claude Code's recap", self.recap)] if self.recap is not None else [])


def problem_key(name: str, tool_input: dict[str, Any]) -> tuple[str, str]:
    """Calls with the same key address the same thing: a later success resolves an error.
    The key is a digest, never the call's words (#23: recall stores its keys, and a
    command's first words can be a secret: `AWS_SECRET=… make`); the subject is raw text
    (every writer redacts it)."""
    if name == "Bash":
        command = str(tool_input.get("command", ""))
        last = re.split(r"&&|;|\|\|", command)[-1].split()
        subject = " ".join(last[:2]) if last else command[:60]
        return f"Bash:{_digest(subject)}", command
    path = tool_input.get("file_path") or tool_input.get("notebook_path") or tool_input.get("path")
    if isinstance(path, str) and path:
        group = "file" if name in FILE_TOOLS or name == "Read" else name
        return f"{group}:{_digest(path)}", path
    return name, ""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]
