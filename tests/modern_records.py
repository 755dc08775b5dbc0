"""A small synthetic transcript with every record type and field of Claude Code 2.0-2.1 that
../shared/transcripts/modern shows (issue #24.2), so tests pin each consumer's reading without
the corpus. Written here by hand, after the shapes seen there (no corpus text is copied).

One session: a prompt, a Read and an Edit (usage with the 5-minute / 1-hour split, server
tools, service tier, speed, inference geo, iterations; tool_use `caller`), a prompt typed while
Claude worked (queue-operation enqueue/remove, then its queued_command attachment), an API error
retried (system api_error, a `<synthetic>` rate-limit record), the Stop hook summary, the turn's
duration, the session's titles, a compaction with a file re-attached, Claude Code's recap.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "0f0e0d0c-modern-fixture"
CWD = "/work/app"
FILE = f"{CWD}/src/fetch.py"
TEXT = "def fetch(url):\n    return get(url)\n"
EDITED = "def fetch(url, retries=3):\n    return get(url)\n"
QUEUED = "also log each retry"


def _base(kind: str, uuid: str, parent: str | None, stamp: str, **extra: Any) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": kind,
        "uuid": uuid,
        "timestamp": f"2026-05-01T10:{stamp}Z",
        "userType": "external",
        "entrypoint": "cli",
        "cwd": CWD,
        "sessionId": SESSION,
        "version": "2.1.146",
        "gitBranch": "main",
        **extra,
    }


def _usage(inp: int, write_1h: int, write_5m: int, read: int, out: int) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": write_1h + write_5m,
        "cache_read_input_tokens": read,
        "output_tokens": out,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {
            "ephemeral_1h_input_tokens": write_1h,
            "ephemeral_5m_input_tokens": write_5m,
        },
        "inference_geo": "",
        "iterations": [{"input_tokens": inp, "output_tokens": out, "type": "message"}],
        "speed": "standard",
    }


def _assistant(uuid: str, parent: str, stamp: str, mid: str, content: list[Any], usage: Any) -> Any:
    message = {
        "model": "claude-sonnet-4-6",
        "id": mid,
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "stop_details": None,
        "usage": usage,
        "context_management": None,
    }
    return _base("assistant", uuid, parent, stamp, message=message, requestId=f"req_{mid}")


def _tool_use(tid: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": tid,
        "name": name,
        "input": tool_input,
        "caller": {"type": "direct"},
    }


def _result(uuid: str, parent: str, stamp: str, tid: str, text: str, extra: Any) -> Any:
    content = [{"tool_use_id": tid, "type": "tool_result", "content": text, "is_error": False}]
    return _base(
        "user",
        uuid,
        parent,
        stamp,
        message={"role": "user", "content": content},
        toolUseResult=extra,
        sourceToolAssistantUUID=parent,
        promptId="p1",
    )


def _attachment(uuid: str, parent: str | None, stamp: str, attachment: dict[str, Any]) -> Any:
    return _base("attachment", uuid, parent, stamp, attachment=attachment)


def _system(uuid: str, parent: str, stamp: str, subtype: str, **extra: Any) -> Any:
    return _base("system", uuid, parent, stamp, subtype=subtype, **extra)


def records() -> list[dict[str, Any]]:
    read_result = {
        "type": "text",
        "file": {"filePath": FILE, "content": TEXT, "numLines": 3, "startLine": 1, "totalLines": 3},
    }
    numbered = "\n".join(f"{i}\t{line}" for i, line in enumerate(TEXT.split("\n"), 1))
    return [
        {"type": "permission-mode", "permissionMode": "default", "sessionId": SESSION},
        _attachment(
            "a0",
            None,
            "00:00.000",
            {
                "type": "hook_success",
                "hookName": "SessionStart:startup",
                "hookEvent": "SessionStart",
                "toolUseID": "h0",
                "content": "",
                "stdout": "",
                "stderr": "",
                "exitCode": 0,
                "command": "ccstate-hook SessionStart",
                "durationMs": 40,
            },
        ),
        _base(
            "user",
            "u1",
            "a0",
            "00:01.000",
            promptId="p1",
            message={"role": "user", "content": "Add a retry to the fetcher"},
        ),
        _assistant(
            "m1",
            "u1",
            "00:02.000",
            "msg_01",
            [_tool_use("t1", "Read", {"file_path": FILE})],
            _usage(10, 1000, 0, 0, 50),
        ),
        _result("r1", "m1", "00:03.000", "t1", numbered, read_result),
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-05-01T10:00:03.500Z",
            "sessionId": SESSION,
            "content": QUEUED,
        },
        _assistant(
            "m2",
            "r1",
            "00:04.000",
            "msg_02",
            [
                _tool_use(
                    "t2",
                    "Edit",
                    {"file_path": FILE, "old_string": "url)", "new_string": "url, retries=3)"},
                )
            ],
            _usage(3, 0, 120, 1000, 80),
        ),
        _result(
            "r2",
            "m2",
            "00:05.000",
            "t2",
            f"The file {FILE} has been updated.",
            {
                "filePath": FILE,
                "oldString": "url)",
                "newString": "url, retries=3)",
                "originalFile": TEXT,
                "structuredPatch": [],
                "userModified": False,
                "replaceAll": False,
            },
        ),
        {
            "type": "queue-operation",
            "operation": "remove",
            "timestamp": "2026-05-01T10:00:05.100Z",
            "sessionId": SESSION,
        },
        _attachment(
            "a1",
            "r2",
            "00:05.200",
            {"type": "queued_command", "prompt": QUEUED, "commandMode": "prompt"},
        ),
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-05-01T10:00:05.300Z",
            "sessionId": SESSION,
            "content": '{"task_id":"b1","description":"npm test","task_type":"local_bash"}',
        },
        {
            "type": "queue-operation",
            "operation": "remove",
            "timestamp": "2026-05-01T10:00:05.400Z",
            "sessionId": SESSION,
        },
        _system(
            "s1",
            "a1",
            "00:06.000",
            "api_error",
            level="error",
            cause={"code": "ConnectionRefused"},
            error={"type": None},
            retryInMs=500.0,
            retryAttempt=1,
            maxRetries=10,
        ),
        _base(
            "assistant",
            "m3x",
            "s1",
            "00:06.500",
            isApiErrorMessage=True,
            error="rate_limit",
            message={
                "id": "9b1d-synthetic",
                "model": "<synthetic>",
                "role": "assistant",
                "type": "message",
                "stop_reason": "stop_sequence",
                "content": [{"type": "text", "text": "API Error: rate limited"}],
                "usage": _usage(0, 0, 0, 0, 0),
            },
        ),
        _assistant(
            "m3",
            "s1",
            "00:07.000",
            "msg_03",
            [{"type": "text", "text": "Done: fetch retries 3 times."}],
            _usage(2, 0, 60, 1120, 30),
        ),
        _system(
            "s2",
            "m3",
            "00:08.000",
            "stop_hook_summary",
            hookCount=1,
            hookInfos=[{"command": "ccstate-hook Stop", "durationMs": 120}],
            hookErrors=[],
            preventedContinuation=False,
            stopReason="",
            hasOutput=False,
            level="suggestion",
            toolUseID="h1",
        ),
        _system(
            "s3", "s2", "00:08.001", "turn_duration", durationMs=7000, messageCount=9, isMeta=False
        ),
        {"type": "ai-title", "aiTitle": "Retry the fetcher", "sessionId": SESSION},
        {"type": "custom-title", "customTitle": "fetcher-retry", "sessionId": SESSION},
        {"type": "agent-name", "agentName": "fetcher-retry", "sessionId": SESSION},
        {
            "type": "last-prompt",
            "lastPrompt": "Add a retry to the fetcher",
            "leafUuid": "s3",
            "sessionId": SESSION,
        },
        _system(
            "s4",
            "s3",
            "00:09.000",
            "local_command",
            level="info",
            isMeta=False,
            content="<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>",
        ),
        _system(
            "s5",
            "s4",
            "00:10.000",
            "compact_boundary",
            level="info",
            isMeta=False,
            compactMetadata={"trigger": "manual", "preTokens": 1262},
            content="Conversation compacted",
        ),
        _base(
            "user",
            "u2",
            "s5",
            "00:10.100",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
            message={
                "role": "user",
                "content": "This session is being continued... fetch() now retries.",
            },
        ),
        _attachment(
            "a2",
            "u2",
            "00:10.200",
            {
                "type": "file",
                "filename": FILE,
                "displayPath": "src/fetch.py",
                "content": {
                    "type": "text",
                    "file": {
                        "filePath": FILE,
                        "content": EDITED,
                        "numLines": 3,
                        "startLine": 1,
                        "totalLines": 3,
                    },
                },
            },
        ),
        _attachment(
            "a3",
            "a2",
            "00:10.300",
            {
                "type": "nested_memory",
                "path": f"{CWD}/src/CLAUDE.md",
                "content": {
                    "path": f"{CWD}/src/CLAUDE.md",
                    "type": "Project",
                    "content": "# src rules\n- no prints\n",
                },
            },
        ),
        _attachment(
            "a4",
            "a3",
            "00:10.400",
            {
                "type": "edited_text_file",
                "filename": FILE,
                "snippet": "1\tdef fetch(url, retries=3):",
            },
        ),
        _system(
            "s6",
            "a4",
            "00:40.000",
            "away_summary",
            isMeta=False,
            content="Added retries to fetch(); next: log each retry. (disable recaps in /config)",
        ),
    ]


def write(folder: Path) -> Path:
    """The fixture as `<folder>/<session>.jsonl` (compact JSON, as Claude Code writes it)."""
    path = folder / f"{SESSION}.jsonl"
    path.write_text(
        "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records()), encoding="utf-8"
    )
    return path
