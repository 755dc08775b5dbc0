"""The facts a tool's output or a Claude Code record carries, as moment text (pure, stdlib).

#27: a third of the questions people ask days later are answered by what a command printed,
what a file said, what the user picked in a question, what a hook or an API error reported:
text that is neither a prompt nor a conclusion. `telling` keeps an output's first lines and,
from the rest, the lines that carry figures, versions, URLs, paths or `key: value` pairs,
within a cap; `record_moment` turns the newer record types (`attachment`, `system`) into
(kind, title, body) when they hold something a person may ask about.

A tool's output comes in redacted where it will be cut (`moments._output`); a record's
strings go through `prep`, which does the same, before they are cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ccstate.recall.text import clip

Prep = Callable[[str], str]  # a text redacted where a cut may look (`moments._output`)

OUTPUT_CAP = 800  # characters of an output's telling lines kept in a moment
SHORT_CAP = 600  # the telling lines of a command's output, an error or a hook's stderr
HEAD_LINES = 8  # an output's first lines are kept whatever they hold
LINE_CAP = 240
SCAN_LINES = 2000  # lines of a long output looked through
# Read's gutter: "    12→" (1.0.x) or "12\t" (2.x)
_GUTTER = re.compile(r"^\s*\d+(?:\u2192|\t)")
# a figure, a version, a URL, a path, an address, `key: value` / `key=value`
_TELLING = re.compile(r"\d|://|/\w|@\w|\w[:=]\s*\S")
CODE_EXTENSIONS = frozenset(
    re.findall(
        r"\S+",
        "py pyi ts tsx js jsx mjs cjs ex exs erl go rs java kt kts scala swift c h cc cpp hpp cs "
        "rb php pl lua dart vue svelte css scss sass less sh bash zsh fish ps1 sql r m mm zig nim "
        "hs ml clj elm",
    )
)
_WORD = re.compile(r"[^\W_]")  # a line without (a line of rules, brackets) is dropped


def telling(text: str, cap: int = OUTPUT_CAP) -> str:
    """`text`'s first lines, then its lines with figures, URLs, paths or settings, each once,
    Read's line numbers dropped, within `cap` characters; the whole text when it fits."""
    lines: list[str] = []
    seen: set[str] = set()
    gutter = _GUTTER.match(text) is not None  # a Read's output: every line has one
    for raw in text.splitlines()[:SCAN_LINES]:
        line = (_GUTTER.sub("", raw, count=1) if gutter else raw).strip()
        if not line or line in seen or not _WORD.search(line):
            continue
        seen.add(line)
        lines.append(line)
    whole = "\n".join(lines)
    if len(whole) <= cap:
        return whole
    keep = lines[:HEAD_LINES] + [ln for ln in lines[HEAD_LINES:] if _TELLING.search(ln)]
    out: list[str] = []
    size = 0
    for line in keep:
        line = clip(line, LINE_CAP)
        if size + len(line) + 1 > cap:
            break
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)


def is_code(path: Any) -> bool:
    """A source file (by its extension): what a Read of it returned is the file, which is on
    disk and in git, not a finding; reading every one of them cost more than the rest of the
    index (a memory note, a config, a log, a data file stays in)."""
    if not isinstance(path, str):
        return False
    name = path.rsplit("/", 1)[-1]
    return "." in name and name.rsplit(".", 1)[1].lower() in CODE_EXTENSIONS


def subject(name: str, tool_input: dict[str, Any]) -> str:
    """What a call was about, for a moment's title: its path, URL, pattern or description."""
    for key in ("file_path", "notebook_path", "path", "url", "pattern", "query", "description"):
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    questions = tool_input.get("questions")
    if isinstance(questions, list):
        asked = [str(q.get("question", "")) for q in questions if isinstance(q, dict)]
        return " / ".join(a for a in asked if a)
    return ""


def _same(text: str) -> str:
    return text


def record_moment(record: dict[str, Any], prep: Prep = _same) -> tuple[str, str, str] | None:
    """(kind, title, body) of an `attachment` or `system` record worth finding later, else
    None: a prompt typed while Claude worked, a hook's context or failure, the user's edit of
    a file, a CLAUDE.md loaded on the way, the task list, an API error, a local command and
    its output, the away recap, how long a turn took."""
    if record.get("type") == "attachment":
        attachment = record.get("attachment")
        return _attachment(attachment, prep) if isinstance(attachment, dict) else None
    if record.get("type") == "system":
        return _system(record, prep)
    return None


def _attachment(a: dict[str, Any], prep: Prep) -> tuple[str, str, str] | None:
    kind = a.get("type")
    if kind == "queued_command":
        prompt = prep(_text(a.get("prompt")))
        if prompt.lstrip().startswith("<task-notification>"):
            return ("output", "task notification", telling(prompt))
        return ("prompt", "", prompt) if prompt.strip() else None
    if kind in ("hook_additional_context", "hook_success"):
        body = telling(prep(_text(a.get("content"))))
        title = f"hook {a.get('hookName') or a.get('hookEvent') or ''}".strip()
        return ("output", title, body) if body else None
    if kind in ("hook_non_blocking_error", "hook_blocking_error", "hook_error_during_execution"):
        body = telling(prep(_text(a.get("stderr")) or _text(a.get("content"))), SHORT_CAP)
        return ("error", f"hook {a.get('hookName') or ''}".strip(), body) if body else None
    if kind == "edited_text_file":
        body = telling(prep(_text(a.get("snippet"))), SHORT_CAP)
        return ("output", f"edited by the user: {a.get('filename') or ''}".strip(), body)
    if kind == "nested_memory":
        content = a.get("content")
        inner = content.get("content") if isinstance(content, dict) else content
        return ("output", f"memory {a.get('path') or ''}".strip(), telling(prep(_text(inner))))
    if kind == "task_reminder":
        content = a.get("content")
        tasks = content if isinstance(content, list) else []
        items = [
            f"[{t.get('status', '')}] {t.get('subject', '')}: {t.get('description', '')}"
            for t in tasks
            if isinstance(t, dict)
        ]
        return ("output", "tasks", telling(prep("\n".join(items)))) if items else None
    return None


def _system(record: dict[str, Any], prep: Prep) -> tuple[str, str, str] | None:
    subtype = record.get("subtype")
    content = prep(_text(record.get("content")))
    if subtype == "away_summary" and content.strip():
        return ("answer", "away summary", clip(content.strip(), 2000))
    if subtype == "local_command" and content.strip():
        body = local_output(content)
        return ("command", "local command", body) if body else None
    if subtype == "api_error":
        error = record.get("error")
        cause = record.get("cause")
        found = [_text(x) for x in (content, error, cause) if x]
        body = telling(prep("\n".join(f for f in found if f)), SHORT_CAP) or "API error"
        return ("error", "API error", body)
    if subtype == "turn_duration":
        ms = record.get("durationMs")
        if isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms > 0:
            return ("output", "turn duration", f"the turn took {_duration(float(ms))}")
    return None


LOCAL_OUTPUT = "<local-command-stdout>"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def local_output(text: str) -> str:
    """A local slash command's record (`/model`, `/add-dir`) as text: its name, arguments and
    what it printed, without tags or terminal colours."""
    return telling(_ANSI.sub("", _untag(text)), SHORT_CAP)


def _duration(ms: float) -> str:
    seconds = round(ms / 1000)
    minutes, sec = divmod(seconds, 60)
    return f"{minutes} min {sec} s ({seconds} seconds)" if minutes else f"{sec} seconds"


_TAG = re.compile(r"</?[a-z-]+>")


def _untag(text: str) -> str:
    return "\n".join(ln.strip() for ln in _TAG.sub("\n", text).splitlines() if ln.strip())


def _text(value: Any) -> str:
    """The strings in `value` (a string, a list or a dict of them), one per line."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(s for item in value if (s := _text(item)))
    if isinstance(value, dict):
        return "\n".join(f"{k}: {s}" for k, item in value.items() if (s := _text(item)))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return ""
