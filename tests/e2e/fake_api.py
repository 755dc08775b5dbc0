"""A scripted fake of the Anthropic Messages API, for driving the real `claude` CLI offline.

Standard library only. The protocol follows ../shared/reference/claude-code.md §7: Claude Code
posts to ``/v1/messages?beta=true`` with ``"stream": true`` and reads server-sent events.

Requests that carry ``tools`` are the agent loop (main thread *and* subagents). Each one consumes
the next matching :class:`Step` of the script; when the script is exhausted the reply is the text
``"done"``. Requests without tools (titles, ...) and compaction requests get canned replies and
consume nothing; ``compaction=`` (a reply, or a function of the request body) sets the
summariser's reply instead of ``COMPACTION_REPLY``.

Example::

    with FakeAnthropic([
        tool_use("Agent", {"prompt": "read a.txt", ...}, when=is_main_thread),
        tool_use("Read", {"file_path": "/p/a.txt"}, when=is_subagent),
        text("sub done", when=is_subagent),
        text("main done", when=is_main_thread),
    ]) as api:
        ...  # run claude with ANTHROPIC_BASE_URL=api.url
        sub_second = [r for r in api.agent_requests() if is_subagent(r)][1]
        assert list(tool_results(sub_second).values())[0].startswith("1\\thello")
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, TypeAlias
from urllib.parse import urlsplit

COMPACTION_MARKER = "Your task is to create a detailed summary of the conversation so far"
COMPACTION_REPLY = "<summary>compacted summary</summary>"
SIDE_REPLY = "E2E side reply"
DEFAULT_REPLY = "done"

Body: TypeAlias = dict[str, Any]
Usage: TypeAlias = dict[str, Any]
RequestKind = Literal["agent", "compaction", "side", "count_tokens", "other"]


# --------------------------------------------------------------------------- replies and script


@dataclass(frozen=True)
class ToolCall:
    """One ``tool_use`` block; ``id`` is generated (``toolu_e2e_001``...) when None."""

    name: str
    input: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class Thinking:
    """One ``thinking`` block (streamed as thinking and signature deltas)."""

    text: str
    signature: str = "e2e-signature"


@dataclass(frozen=True)
class Reply:
    """One assistant message: text (str), thinking and tool calls, in order.

    ``stop_reason`` defaults to ``tool_use`` when there is a tool call, else ``end_turn``.
    ``usage`` overrides the computed usage (e.g. to push Claude Code towards auto-compaction).
    """

    blocks: tuple[str | ToolCall | Thinking, ...]
    stop_reason: str | None = None
    usage: Usage | None = None

    @property
    def effective_stop_reason(self) -> str:
        if self.stop_reason:
            return self.stop_reason
        has_tool = any(isinstance(b, ToolCall) for b in self.blocks)
        return "tool_use" if has_tool else "end_turn"


ReplyLike: TypeAlias = "str | ToolCall | Reply | Sequence[ToolCall]"
Responder: TypeAlias = Callable[[Body], ReplyLike]
Matcher: TypeAlias = Callable[[Body], bool]


@dataclass(frozen=True)
class Step:
    """A scripted reply for one agent-loop request.

    ``reply`` is fixed, or a callable deciding the reply from the request body. A step with
    ``when`` is only consumed by a request for which ``when(body)`` is true; steps are tried in
    script order, so ``when`` lets main-thread and subagent steps interleave safely.
    """

    reply: Reply | Responder
    when: Matcher | None = None

    def matches(self, body: Body) -> bool:
        return self.when is None or bool(self.when(body))


StepLike: TypeAlias = "Step | ReplyLike | Responder"


def text(content: str, *, when: Matcher | None = None, usage: Usage | None = None) -> Step:
    """A step answering with plain text (stop_reason ``end_turn``)."""
    return Step(Reply((content,), usage=usage), when)


def tool_use(
    name: str,
    input: dict[str, Any],
    *,
    id: str | None = None,
    when: Matcher | None = None,
    usage: Usage | None = None,
) -> Step:
    """A step answering with one tool call (stop_reason ``tool_use``)."""
    return Step(Reply((ToolCall(name, input, id),), usage=usage), when)


def tool_uses(*calls: ToolCall, when: Matcher | None = None, usage: Usage | None = None) -> Step:
    """A step answering with several parallel tool calls."""
    return Step(Reply(tuple(calls), usage=usage), when)


def respond(fn: Responder, *, when: Matcher | None = None) -> Step:
    """A step whose reply is computed from the request body when it is consumed."""
    return Step(fn, when)


def to_reply(value: ReplyLike) -> Reply:
    """Normalise str / ToolCall / list of ToolCall / Reply into a Reply."""
    if isinstance(value, Reply):
        return value
    if isinstance(value, str | ToolCall):
        return Reply((value,))
    return Reply(tuple(value))


def to_step(value: StepLike) -> Step:
    """Normalise a script entry into a Step (callables become responders)."""
    if isinstance(value, Step):
        return value
    if callable(value) and not isinstance(value, ToolCall | Reply):
        return Step(value)
    return Step(to_reply(value))


# --------------------------------------------------------------------------- request inspection


@dataclass
class RecordedRequest:
    """One request as received: method, path (no query), query, headers and parsed JSON body."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: Body | None
    kind: RequestKind
    step: int | None = None  # index of the script step that answered it, if any
    reply: Reply | None = None
    at: float = 0.0  # when it arrived (time.time())
    usage: Usage | None = None  # what the reply reported (a /v1/messages answer)


def _as_body(request: Body | RecordedRequest) -> Body:
    if isinstance(request, RecordedRequest):
        return request.body or {}
    return request


def block_text(content: Any) -> str:
    """Text of a message/tool_result content: a str, or a list of blocks (text blocks joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        ]
        return "\n".join(parts)
    return ""


def messages(request: Body | RecordedRequest) -> list[dict[str, Any]]:
    return list(_as_body(request).get("messages") or [])


def first_user_text(request: Body | RecordedRequest) -> str:
    """All text of the first user message (the prompt plus any reminders sent with it)."""
    for msg in messages(request):
        if msg.get("role") == "user":
            return block_text(msg.get("content"))
    return ""


def last_user_text(request: Body | RecordedRequest) -> str:
    for msg in reversed(messages(request)):
        if msg.get("role") == "user":
            return block_text(msg.get("content"))
    return ""


def _trailing_user_messages(request: Body | RecordedRequest) -> list[dict[str, Any]]:
    """User messages after the last assistant message."""
    out: list[dict[str, Any]] = []
    for msg in reversed(messages(request)):
        if msg.get("role") == "assistant":
            break
        if msg.get("role") == "user":
            out.append(msg)
    return out[::-1]


def _tool_results_in(msgs: Iterable[dict[str, Any]]) -> dict[str, str]:
    results: dict[str, str] = {}
    for msg in msgs:
        content = msg.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results[block.get("tool_use_id", "")] = block_text(block.get("content"))
    return results


def tool_results(request: Body | RecordedRequest) -> dict[str, str]:
    """{tool_use_id: text} of tool_results in the user messages after the last assistant turn."""
    return _tool_results_in(_trailing_user_messages(request))


def all_tool_results(request: Body | RecordedRequest) -> dict[str, str]:
    """{tool_use_id: text} of every tool_result anywhere in the request history."""
    return _tool_results_in(m for m in messages(request) if m.get("role") == "user")


def tool_uses_in(request: Body | RecordedRequest) -> list[dict[str, Any]]:
    """Every assistant ``tool_use`` block in the history ({id, name, input})."""
    return [
        block
        for msg in messages(request)
        if msg.get("role") == "assistant" and isinstance(msg.get("content"), list)
        for block in msg["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]


_REMINDER = re.compile(r"<system-reminder>(.*?)</system-reminder>", re.DOTALL)


def _user_strings(msg: dict[str, Any]) -> Iterator[str]:
    content = msg.get("content")
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                yield block.get("text", "")


def system_texts(request: Body | RecordedRequest) -> list[str]:
    """Every piece of system-level text the model received.

    That is the top-level ``system`` param, ``role:"system"`` messages inside ``messages[]`` and
    ``<system-reminder>`` sections of user messages. Where hook context lands depends on the
    model (reference §0.1), so assertions on hook context should search all three.
    """
    body = _as_body(request)
    texts: list[str] = []
    system = body.get("system")
    if system:
        texts.append(block_text(system))
    for msg in messages(body):
        if msg.get("role") == "system":
            texts.append(block_text(msg.get("content")))
        elif msg.get("role") == "user":
            for s in _user_strings(msg):
                texts.extend(m.strip() for m in _REMINDER.findall(s))
    return texts


def find_text(request: Body | RecordedRequest, needle: str) -> list[str]:
    """JSON paths (e.g. ``messages[3].content[0].text``) of every string containing ``needle``."""
    hits: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, str):
            if needle in node:
                hits.append(path or "$")
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{path}.{k}" if path else k)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]")

    walk(_as_body(request), "")
    return hits


def is_compaction(request: Body | RecordedRequest) -> bool:
    """True for the summarisation request Claude Code sends when compacting (reference §3)."""
    return COMPACTION_MARKER in last_user_text(request)


def prompt_contains(needle: str) -> Matcher:
    """Matcher for ``Step.when``: the first user message contains ``needle``.

    The main thread's first user message holds the ``-p`` prompt; a subagent's holds the
    ``prompt`` given to the Agent tool, so a marker in each routes steps between them.
    """
    return lambda body: needle in first_user_text(body)


def is_subagent(request: Body | RecordedRequest) -> bool:
    """True for a subagent's request: its billing system block says ``cc_is_subagent=true``."""
    system = _as_body(request).get("system")
    return "cc_is_subagent=true" in (system if isinstance(system, str) else block_text(system))


def is_main_thread(request: Body | RecordedRequest) -> bool:
    """Matcher for ``Step.when``: a request from the main thread (not a subagent)."""
    return not is_subagent(request)


def estimate_tokens(obj: Any) -> int:
    """Rough token count: JSON length / 4."""
    raw = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
    return max(1, len(raw) // 4)


def estimate_usage(body: Body, reply: Reply) -> Usage:
    """Default usage: input from request size, output from reply size, no caching.

    Hook point for cache simulation: pass ``usage=`` to FakeAnthropic with a function that
    splits input tokens into ``cache_read_input_tokens`` / ``cache_creation_input_tokens``.
    """
    out = [
        b
        if isinstance(b, str)
        else b.text
        if isinstance(b, Thinking)
        else {"name": b.name, "input": b.input}
        for b in reply.blocks
    ]
    return {
        "input_tokens": estimate_tokens(body),
        "output_tokens": estimate_tokens(out),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


# --------------------------------------------------------------------------- the server


@dataclass
class _Script:
    steps: list[Step] = field(default_factory=list)
    used: list[bool] = field(default_factory=list)

    def take(self, body: Body) -> tuple[int, Step] | None:
        for i, step in enumerate(self.steps):
            if not self.used[i] and step.matches(body):
                self.used[i] = True
                return i, step
        return None


class FakeAnthropic:
    """The fake API server. Use as a context manager, or call start()/stop()."""

    def __init__(
        self,
        script: Iterable[StepLike] = (),
        *,
        usage: Callable[[Body, Reply], Usage] = estimate_usage,
        model: str | None = None,
        compaction: ReplyLike | Responder | None = None,
    ) -> None:
        self.usage = usage
        self.model = model
        self.compaction = compaction  # the summariser's reply; None: COMPACTION_REPLY
        self.records: list[RecordedRequest] = []
        self.errors: list[str] = []  # exceptions raised by responder steps
        self._lock = threading.Lock()
        self._script = _Script()
        self._tool_ids = itertools.count(1)
        self._msg_ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.set_script(script)

    # -- lifecycle

    def start(self) -> FakeAnthropic:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.fake = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.05,), name="fake-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """Base URL for ANTHROPIC_BASE_URL, e.g. ``http://127.0.0.1:45123``."""
        if self._server is None:
            raise RuntimeError("FakeAnthropic is not started")
        return f"http://127.0.0.1:{self._server.server_port}"

    # -- script

    def set_script(self, steps: Iterable[StepLike]) -> None:
        """Replace the script (unconsumed and consumed steps alike)."""
        with self._lock:
            self._script = _Script([to_step(s) for s in steps])
            self._script.used = [False] * len(self._script.steps)

    def extend(self, steps: Iterable[StepLike]) -> None:
        """Append steps to the current script."""
        with self._lock:
            new = [to_step(s) for s in steps]
            self._script.steps.extend(new)
            self._script.used.extend([False] * len(new))

    def remaining_steps(self) -> int:
        with self._lock:
            return self._script.used.count(False)

    # -- recorded requests

    def all_requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self.records)

    def requests(self, kind: RequestKind) -> list[Body]:
        return [r.body or {} for r in self.all_requests() if r.kind == kind]

    def agent_requests(self) -> list[Body]:
        """Bodies of agent-loop requests (carry ``tools``; compaction requests excluded)."""
        return self.requests("agent")

    def compaction_requests(self) -> list[Body]:
        return self.requests("compaction")

    def summary(self) -> str:
        """One line per request, for failure messages."""
        lines = []
        for i, r in enumerate(self.all_requests()):
            body = r.body or {}
            step = f" step={r.step}" if r.step is not None else ""
            reply = f" reply={_describe(r.reply)}" if r.reply else ""
            lines.append(
                f"#{i} {r.method} {r.path} kind={r.kind} msgs={len(body.get('messages') or [])}"
                f" first_user={first_user_text(body)[-60:]!r}{step}{reply}"
            )
        return "\n".join(lines)

    # -- request handling (called from handler threads)

    def classify(self, method: str, path: str, body: Body | None) -> RequestKind:
        if method != "POST" or body is None:
            return "other"
        if path == "/v1/messages/count_tokens":
            return "count_tokens"
        if path != "/v1/messages":
            return "other"
        if is_compaction(body):
            return "compaction"
        return "agent" if body.get("tools") else "side"

    def handle(self, rec: RecordedRequest) -> Reply | None:
        """Record ``rec``; for /v1/messages pick its reply (agent requests consume a step)."""
        with self._lock:
            self.records.append(rec)
            if rec.kind == "compaction" and self.compaction is not None:
                answer = self.compaction
                reply = answer(rec.body or {}) if callable(answer) else answer
                rec.reply = self._with_ids(to_reply(reply))
                return rec.reply
            if rec.kind != "agent":
                rec.reply = _CANNED.get(rec.kind)
                return rec.reply
            taken = self._script.take(rec.body or {})
        if taken is None:
            reply = Reply((DEFAULT_REPLY,))
        else:
            rec.step, step = taken
            # A responder runs outside the lock: it may inspect the fake's records.
            reply = (
                step.reply
                if isinstance(step.reply, Reply)
                else to_reply(step.reply(rec.body or {}))
            )
        rec.reply = self._with_ids(reply)
        return rec.reply

    def _with_ids(self, reply: Reply) -> Reply:
        blocks: list[str | ToolCall | Thinking] = []
        for b in reply.blocks:
            if isinstance(b, ToolCall) and b.id is None:
                b = ToolCall(b.name, b.input, f"toolu_e2e_{next(self._tool_ids):03d}")
            blocks.append(b)
        return Reply(tuple(blocks), reply.stop_reason, reply.usage)

    def next_message_id(self) -> str:
        return f"msg_e2e_{next(self._msg_ids):03d}"

    def usage_for(self, body: Body, reply: Reply) -> Usage:
        return dict(reply.usage) if reply.usage is not None else self.usage(body, reply)


_CANNED: dict[str, Reply] = {
    "compaction": Reply((COMPACTION_REPLY,)),
    "side": Reply((SIDE_REPLY,)),
}


def _describe(reply: Reply) -> str:
    parts = [
        repr(b[:30])
        if isinstance(b, str)
        else "thinking"
        if isinstance(b, Thinking)
        else f"{b.name}({b.id})"
        for b in reply.blocks
    ]
    return "+".join(parts)


# --------------------------------------------------------------------------- wire format


def content_blocks(reply: Reply) -> list[dict[str, Any]]:
    """Reply blocks as Messages API content blocks."""
    out: list[dict[str, Any]] = []
    for b in reply.blocks:
        if isinstance(b, str):
            out.append({"type": "text", "text": b})
        elif isinstance(b, Thinking):
            out.append({"type": "thinking", "thinking": b.text, "signature": b.signature})
        else:
            out.append({"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
    return out


def message_json(msg_id: str, model: str, reply: Reply, usage: Usage) -> dict[str, Any]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content_blocks(reply),
        "stop_reason": reply.effective_stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def sse_events(
    msg_id: str, model: str, reply: Reply, usage: Usage
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(event name, data) pairs of a streamed reply, in the order of reference §7."""
    start_usage = {**usage, "output_tokens": 1}
    message = {**message_json(msg_id, model, Reply(()), start_usage), "stop_reason": None}
    yield "message_start", {"type": "message_start", "message": message}
    for index, block in enumerate(content_blocks(reply)):
        start: dict[str, Any]
        deltas: list[dict[str, Any]]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        elif block["type"] == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block["signature"]},
            ]
        else:
            start = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        for delta in deltas:
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply.effective_stop_reason, "stop_sequence": None},
            "usage": usage,
        },
    )
    yield "message_stop", {"type": "message_stop"}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeAnthropic/1"

    @property
    def fake(self) -> FakeAnthropic:
        return self.server.fake  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_HEAD(self) -> None:
        self.fake.handle(self._record(None))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        rec = self._record(None)
        self.fake.handle(rec)
        if rec.path in ("", "/"):
            self._send_json(200, {})
        else:
            self._send_error(404, "not_found_error", f"fake API: no route {rec.path}")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        rec = self._record(body if isinstance(body, dict) else {"_json": body})
        try:
            reply = self.fake.handle(rec)
        except Exception as exc:  # fail the test instead of letting claude retry forever
            self.fake.errors.append(f"{type(exc).__name__}: {exc}")
            self._send_error(400, "invalid_request_error", f"fake API responder failed: {exc!r}")
            return
        if rec.kind == "count_tokens":
            self._send_json(200, {"input_tokens": estimate_tokens(body)})
        elif reply is None:
            self._send_error(404, "not_found_error", f"fake API: no route {rec.path}")
        else:
            self._send_message(rec.body or {}, reply, rec)

    def _record(self, body: Body | None) -> RecordedRequest:
        parts = urlsplit(self.path)
        kind = self.fake.classify(self.command, parts.path, body)
        return RecordedRequest(
            self.command, parts.path, parts.query, dict(self.headers), body, kind, at=time.time()
        )

    def _send_message(self, body: Body, reply: Reply, rec: RecordedRequest | None = None) -> None:
        fake = self.fake
        model = fake.model or str(body.get("model") or "claude-e2e")
        msg_id = fake.next_message_id()
        usage = fake.usage_for(body, reply)
        if rec is not None:
            rec.usage = usage
        if not body.get("stream"):
            self._send_json(200, message_json(msg_id, model, reply, usage))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("request-id", f"req_{msg_id}")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for event, data in sse_events(msg_id, model, reply, usage):
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, kind: str, message: str) -> None:
        self._send_json(status, {"type": "error", "error": {"type": kind, "message": message}})
