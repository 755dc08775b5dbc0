"""What recall indexes: moments, not whole files (pure, standard library).

A moment is one thing a developer may ask about later, with where it happened:

| kind | from | text |
|---|---|---|
| prompt | a user prompt (slash commands as `/name args`) | the prompt |
| answer | the assistant's last text of a turn, a longer explanation, a plan | the text |
| edit | a successful Edit, MultiEdit, Write or NotebookEdit | path; old/new text trimmed |
| command | a Bash call and its result | command, description, exit status, errors or end |
| error | a failed tool call other than Bash | tool, subject, error lines |
| fix | a failure, then a success of the same call | the error, the edits in between, what passed |
| output | another tool's result, a hook's context, a turn's time | tool, subject; telling lines |
| decision | an entry of DECISIONS.md | ID, title, status, context, decision, consequences |
| handoff | a section of a session's handoff, or a progress-log entry | its items |

`TranscriptMoments` takes transcript records in file order; its state is plain JSON so an
index can stop at a byte offset and carry on from there when the transcript grows.
Every text is redacted before it is cut (#23: a key's `BEGIN` line cut off, then its body
stored; a token cut short of its length): a text longer than its cap goes through
`redact.before_cut` first (with the project's .env values when the index passes its redactor),
a shorter one is kept whole and the index redacts it, like every text, before it stores
anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ccstate.handoff.scan import problem_key
from ccstate.recall import facts
from ccstate.recall.text import clip, head_tail
from ccstate.secrets import redact
from ccstate.transcript.content import REJECTED, block_text, message_content, user_prompt

PROMPT_CAP = 2000
ANSWER_CAP = 2000
ANSWER_MIN = 200  # a mid-turn text shorter than this is narration ("Let me look at X")
EDIT_CAP = 400  # characters of old and of new text
OUTPUT_CAP = 600
MAX_PENDING = 500  # tool calls waiting for their result
MAX_OPEN = 50  # failures waiting for a success of the same call
MAX_EDITS = 30  # recent edits remembered for a fix
FILE_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
PLAN_TOOLS = frozenset({"ExitPlanMode", "exit_plan_mode"})
# Tools whose output is the session's own bookkeeping (a todo list, a task's state): not a
# moment, and their records need not even be decoded (`skip_line`). Every other tool's
# output is (#27: what a command printed, what a file said is what people ask about).
QUIET_TOOLS = frozenset(
    {"TodoWrite", "TodoRead", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "TaskStop"}
)
# Tools that only look: their failures (a missing file, a bad glob) are not moments.
READING_TOOLS = frozenset(
    {"Read", "Grep", "Glob", "LS", "NotebookRead", "WebFetch", "WebSearch", "BashOutput"}
)
RECORD_TYPES = frozenset({"attachment", "system"})  # fed to `facts.record_moment`
_TOOL_USE_ID = b'"tool_use_id":"'
_TOOL_USE_BLOCK = b'"type":"tool_use"'
_TEXT_BLOCK = b'"type":"text"'
_NAME = b'"name":"'
_USER_ROLE = b'"role":"user"'
_ASSISTANT_ROLE = b'"role":"assistant"'
_QUIET_NAMES = frozenset(name.encode() for name in QUIET_TOOLS)
_HEAD = 2048  # a result's id comes early in its record
_CALL_MAX = 8192  # a quiet tool's call is a short record
_RECALL_COMMAND = re.compile(r"\bccstate\s+recall\b|-m\s+ccstate\s+recall\b")
_ERROR_LINE = re.compile(  # searched in the lower-cased output: faster than (?i)
    r"\b(?:error|errors|failed|failure|fatal|exception|panic|traceback|cannot|"
    r"not found|undefined|refused|denied|timeout|timed out)\b|^e\s|^\s*at\s|\be\d{3,5}\b",
    re.M,
)
# The same on ASCII text: `\b` and `\s` then test a table, not the Unicode database, for
# each character (several times faster; on ASCII text both match the same).
_ERROR_LINE_ASCII = re.compile(_ERROR_LINE.pattern, re.M | re.ASCII)
SCAN_CAP = 16 << 10  # characters of a long output looked through (its start and its end)
# what of a successful output `facts.telling` looks through: a command's start and end (its
# verdict), another tool's start (a file's head, a page's answer). Redacting costs in
# proportion to the text: 16 KiB of each end of every file read made indexing 5x slower.
OUTPUT_HEAD = 1024
COMMAND_HEAD = 512
COMMAND_TAIL = 512
TITLE_CAP = 400
_SHORTEST_CUT = 240  # an output no longer than this is cut nowhere (`error_lines` clips 240)


@dataclass(frozen=True, slots=True)
class Moment:
    kind: str
    line: int  # 1-based line of the transcript (of the file, for decisions and handoffs)
    title: str  # a path, a command, "D7: ...": weighed above the body
    body: str
    ts: str = ""  # ISO 8601 from the record, or the file's date
    branch: str = ""
    session: str = ""
    end_line: int = 0  # where a moment that spans lines ends: a tool's result, a fix's success
    # the body was cut from a text this redactor already redacted (`_output`): stored as it
    # is (redacting every output's telling lines a second time cost a third of indexing)
    redacted: bool = False


class TranscriptMoments:
    """Feed records in order (`feed`), take the moments found so far (`drain`), and
    `finish` at the end of what is on disk. `state()` / `from_state()` carry it over."""

    def __init__(
        self,
        session: str = "",
        state: dict[str, Any] | None = None,
        redactor: redact.Redactor | None = None,
    ) -> None:
        s = state or {}
        self._redactor = redactor
        self.session = str(s.get("session") or session)
        self.branch = str(s.get("branch", ""))
        self.ts = str(s.get("ts", ""))
        self.pending: dict[str, list[Any]] = dict(s.get("pending", {}))
        self.open: dict[str, list[Any]] = dict(s.get("open", {}))
        self.edits: list[list[Any]] = list(s.get("edits", []))
        self.last_text: list[Any] | None = s.get("last_text")
        self.out: list[Moment] = []

    def state(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "branch": self.branch,
            "ts": self.ts,
            "pending": self.pending,
            "open": self.open,
            "edits": self.edits,
            "last_text": self.last_text,
        }

    def skip_line(self, raw: bytes | bytearray) -> bool:
        """True for a record that cannot yield a moment, seen without decoding it: the call
        of a quiet tool, or a result no pending call waits for (quiet tools never wait).
        Records written otherwise than Claude Code's compact JSON are decoded."""
        at = raw.find(_TOOL_USE_ID, 0, _HEAD)
        if at >= 0:
            start = at + len(_TOOL_USE_ID)
            end = raw.find(b'"', start, start + 200)
            if end < 0 or raw[start:end].decode("ascii", "replace") in self.pending:
                return False
            # one result in a user record (a second one may wait: decode then)
            return raw.find(_TOOL_USE_ID, end) < 0 and raw.find(_USER_ROLE, 0, _HEAD) >= 0
        if len(raw) > _CALL_MAX:
            return False
        at = raw.find(_TOOL_USE_BLOCK)
        if at < 0 or raw.find(_TOOL_USE_BLOCK, at + 1) >= 0 or raw.find(_TEXT_BLOCK) >= 0:
            return False
        name = raw.find(_NAME, at, at + 400)
        if name < 0 or raw.find(_ASSISTANT_ROLE) < 0:
            return False
        start = name + len(_NAME)
        return raw[start : raw.find(b'"', start, start + 80)] in _QUIET_NAMES

    def drain(self) -> list[Moment]:
        out, self.out = self.out, []
        return out

    def finish(self) -> None:
        """The end of the file as it stands: the turn's last text is its conclusion."""
        self._flush_text()

    # ------------------------------------------------------------------ records

    def feed(self, line: int, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind in RECORD_TYPES:
            self._record(line, record)
            return
        if kind not in ("user", "assistant"):
            return
        stamp = record.get("timestamp")
        if isinstance(stamp, str) and stamp:
            self.ts = stamp
        branch = record.get("gitBranch")
        if isinstance(branch, str) and branch and branch != "HEAD":
            self.branch = branch
        sid = record.get("sessionId")
        if isinstance(sid, str) and sid and not self.session:
            self.session = sid
        if kind == "assistant":
            self._assistant(line, record)
        else:
            self._user(line, record)

    def _record(self, line: int, record: dict[str, Any]) -> None:
        """An attachment or system record (2.1.x): a moment when it holds one."""
        stamp = record.get("timestamp")
        if isinstance(stamp, str) and stamp:
            self.ts = stamp
        found = facts.record_moment(record, self._prep)
        if found is None or not found[2].strip():
            return
        kind, title, body = found
        if kind == "prompt":
            self._flush_text()
            body = self._clip(body, PROMPT_CAP)
        self._emit(kind, line, self._clip(title, TITLE_CAP), body)

    def _prep(self, text: str) -> str:
        """A record's text redacted where `facts` may cut it (its head): every text longer
        than the shortest cap `facts` cuts a record's text to (`SHORT_CAP`)."""
        if len(text) <= facts.SHORT_CAP:
            return text
        return self._before_cut(text, head=OUTPUT_HEAD)

    def _emit(
        self, kind: str, line: int, title: str, body: str, end_line: int = 0, redacted: bool = False
    ) -> None:
        moment = Moment(
            kind, line, title, body, self.ts, self.branch, self.session, end_line, redacted
        )
        self.out.append(moment)

    def _assistant(self, line: int, record: dict[str, Any]) -> None:
        for block in message_content(record):
            kind = block.get("type")
            if kind == "text":
                text = str(block.get("text") or "").strip()
                if text and (self.last_text is None or self.last_text[1] != text):
                    self._flush_text(mid_turn=True)
                    self.last_text = [line, text, self.ts]
            elif kind == "tool_use":
                self._tool_use(line, block)

    def _flush_text(self, mid_turn: bool = False) -> None:
        if self.last_text is None:
            return
        line, text, _ts = self.last_text
        self.last_text = None
        if mid_turn and len(text) < ANSWER_MIN:
            return
        self._emit("answer", int(line), "", self._clip(text, ANSWER_CAP))

    def _tool_use(self, line: int, block: dict[str, Any]) -> None:
        name = str(block.get("name", ""))
        raw = block.get("input")
        tool_input: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if name in PLAN_TOOLS and isinstance(tool_input.get("plan"), str):
            self._emit("answer", line, "plan", self._clip(tool_input["plan"], ANSWER_CAP))
            return
        tool_id = block.get("id")
        if name in QUIET_TOOLS or (name == "Read" and facts.is_code(tool_input.get("file_path"))):
            return  # its output is not a moment (a failure neither: a missing file, a bad glob)
        if isinstance(tool_id, str) and (
            tool_id in self.pending or len(self.pending) < MAX_PENDING
        ):
            self.pending[tool_id] = [name, self._summary(name, tool_input), line]

    def _user(self, line: int, record: dict[str, Any]) -> None:
        blocks = message_content(record)
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results:
            for block in results:
                self._tool_result(line, block)
            return
        prompt = user_prompt(record, blocks)
        if prompt:
            self._flush_text()
            self._emit("prompt", line, "", self._clip(prompt, PROMPT_CAP))
            return
        said = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        if said.lstrip().startswith(facts.LOCAL_OUTPUT):  # what a slash command printed (2.0.x)
            body = facts.local_output(self._prep(said))
            if body:
                self._emit("command", line, "local command", body)

    def _tool_result(self, line: int, block: dict[str, Any]) -> None:
        pending = self.pending.pop(str(block.get("tool_use_id", "")), None)
        if pending is None:
            return
        name, tool_input, use_line = pending
        # a tool's moment spans its call (the command, the change) to its result
        start = int(use_line) if 0 < int(use_line) < line else line
        end = line if start != line else 0
        text = block_text(block.get("content"))
        if any(marker in text[:300] for marker in REJECTED):
            return  # the user said no, or a hook blocked it
        failed = bool(block.get("is_error"))
        # `_output` redacts it with the index's own redactor: the body needs no second pass
        prepped = self._redactor is not None and not failed and len(text) > facts.OUTPUT_CAP
        text = self._output(name, text, failed)
        errors = error_lines(text) if failed else []
        key, subject = problem_key(name, tool_input)
        if name == "Bash":
            command = str(tool_input.get("command", ""))
            if failed or not _RECALL_COMMAND.search(command):
                self._command((start, end), tool_input, text, errors, failed)  # not recall's own
        elif name in FILE_TOOLS and not failed:
            self._edit((start, end), line, name, tool_input)
        elif not failed:
            body = facts.telling(text)
            if body:
                title = self._clip(f"{name} {tool_input.get('subject', '')}".strip(), TITLE_CAP)
                self._emit("output", start, title, body, end, redacted=prepped)
        elif name not in READING_TOOLS:
            body = "\n".join(errors) or clip(text.strip(), OUTPUT_CAP)
            about = subject or str(tool_input.get("subject", ""))
            title = self._clip(f"{name} {about}".strip(), TITLE_CAP)
            self._emit("error", start, title, body, end)
        self._settle(key, subject, name, text, errors, failed, line)

    def _settle(
        self,
        key: str,
        subject: str,
        name: str,
        text: str,
        errors: list[str],
        failed: bool,
        line: int,
    ) -> None:
        """A failure waits for a success of the same call; that pair is a fix, from the
        failure's result to the result of the call that passed."""
        if failed:
            message = "\n".join(errors[:4]) or clip(text.strip(), 300)
            self.open.pop(key, None)
            self.open[key] = [line, name, subject, message]
            while len(self.open) > MAX_OPEN:
                self.open.pop(next(iter(self.open)))
            return
        opened = self.open.pop(key, None)
        if opened is None:
            return
        err_line, tool, what, message = opened
        edited = sorted({str(p) for p, at in self.edits if int(at) > int(err_line)})
        how = f"edited {', '.join(edited[:8])}" if edited else "retried"
        body = f"failed: {message}\nfixed: {how}; passed at line {line}"
        self._emit("fix", int(err_line), self._clip(f"{tool} {what}".strip(), 300), body, line)

    def _command(
        self,
        lines: tuple[int, int],
        tool_input: dict[str, Any],
        text: str,
        errors: list[str],
        failed: bool,
    ) -> None:
        command = str(tool_input.get("command", ""))
        description = str(tool_input.get("description", ""))
        code = _exit_code(text)
        if failed:
            status = f"failed (exit {code})" if code else "failed"
            detail = "\n".join(errors) or head_tail(text.strip(), OUTPUT_CAP)
        else:  # what it printed: the first lines, the figures, versions, URLs (#27)
            status = "ok"
            detail = facts.telling(text, OUTPUT_CAP)
        body = "\n".join(x for x in (description, f"exit: {status}", detail) if x)
        self._emit("command", lines[0], self._clip(command, 400), body, lines[1])

    def _edit(
        self, lines: tuple[int, int], line: int, name: str, tool_input: dict[str, Any]
    ) -> None:
        path = str(tool_input.get("path") or "")
        if not path:
            return
        self.edits.append([path, line])  # its result's line: a fix lists the edits after a failure
        del self.edits[:-MAX_EDITS]
        verb = "wrote" if name == "Write" else "edited"
        body = f"{verb}\n{tool_input.get('change', '')}".strip()
        self._emit("edit", lines[0], path, body, lines[1])

    # ------------------------------------------------------------------ cuts

    def _clip(self, text: str, limit: int) -> str:
        """`clip`, after redaction when it cuts (#23); a text it keeps whole the index redacts."""
        if len(text) <= limit:
            return text
        return clip(self._before_cut(text, head=limit), limit)

    def _before_cut(self, text: str, *, head: int = 0, tail: int = 0) -> str:
        if self._redactor is not None:
            return self._redactor.before_cut(text, head=head, tail=tail)
        return redact.before_cut(text, head=head, tail=tail)

    def _output(self, name: str, text: str, failed: bool) -> str:
        """A tool's output, redacted where the moment's cuts look: a failure's head and tail
        (`error_lines`, `head_tail`), a success's first and last characters (`facts.telling`);
        a short output is cut nowhere and kept whole (the index redacts it)."""
        if failed and len(text) > _SHORTEST_CUT:
            return self._before_cut(text, head=SCAN_CAP, tail=SCAN_CAP)
        if not failed and name == "Bash" and len(text) > OUTPUT_CAP:  # `_command` cuts it
            return self._before_cut(text, head=COMMAND_HEAD, tail=COMMAND_TAIL)
        if not failed and len(text) > facts.OUTPUT_CAP:  # `facts.telling` cuts it
            return self._before_cut(text, head=OUTPUT_HEAD)
        return text

    def _summary(self, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        """What of a tool call's input a moment needs (pending calls are kept in the state)."""
        if name == "Bash":
            return {
                "command": self._clip(str(tool_input.get("command", "")), 2000),
                "description": self._clip(str(tool_input.get("description", "")), 300),
            }
        path = (
            tool_input.get("file_path") or tool_input.get("notebook_path") or tool_input.get("path")
        )
        summary: dict[str, Any] = {"path": str(path) if isinstance(path, str) else ""}
        if name not in FILE_TOOLS:
            summary["subject"] = self._clip(facts.subject(name, tool_input), 300)
        if name in FILE_TOOLS:
            summary["change"] = self._change(name, tool_input)
        return summary

    def _change(self, name: str, tool_input: dict[str, Any]) -> str:
        if name == "Write":
            return "+ " + self._clip(str(tool_input.get("content", "")), EDIT_CAP * 2)
        if name == "NotebookEdit":
            return "+ " + self._clip(str(tool_input.get("new_source", "")), EDIT_CAP * 2)
        edits = tool_input.get("edits") if name == "MultiEdit" else [tool_input]
        out = []
        for edit in (edits if isinstance(edits, list) else [])[:4]:
            if isinstance(edit, dict):
                old = self._clip(str(edit.get("old_string", "")), EDIT_CAP)
                new = self._clip(str(edit.get("new_string", "")), EDIT_CAP)
                out.append(f"- {old}\n+ {new}")
        return "\n".join(out)


def error_lines(text: str, limit: int = 6) -> list[str]:
    """The telling lines of a failure's output: errors, failures, exceptions, codes."""
    found: list[str] = []
    text = head_tail(text, SCAN_CAP)
    lower = text.lower()
    if len(lower) != len(text):  # a few characters change length in lower case
        lower = "".join(c.lower()[:1] or c for c in text)
    pattern = _ERROR_LINE_ASCII if lower.isascii() else _ERROR_LINE
    pos = 0
    while len(found) < limit:
        match = pattern.search(lower, pos)
        if match is None:
            break
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        line = clip(text[start:end].strip(), 240)
        if line and line not in found:
            found.append(line)
        pos = end + 1
    return found


def _exit_code(text: str) -> str:
    match = re.match(r"\s*Exit code (\d+)", text)
    return match.group(1) if match else ""
