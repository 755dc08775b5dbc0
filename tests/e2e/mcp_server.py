"""A tiny MCP server on stdio for the e2e tests (standard library only): newline-delimited
JSON-RPC, the three calls Claude Code makes (initialize, tools/list, tools/call).

Tools: `issues` answers with GitHub-style JSON (link plumbing, nulls, a repeated user object);
`log` with a test log of `n` passing lines and one failure; `small` with a short text.
"""

from __future__ import annotations

import json
import sys

USER = {
    "login": "octo",
    "id": 7,
    "node_id": "MDQ6VXNlcjc=",
    "avatar_url": "https://avatars.githubusercontent.com/u/7?v=4",
    "url": "https://api.github.com/users/octo",
    "html_url": "https://github.com/octo",
    "followers_url": "https://api.github.com/users/octo/followers",
    "repos_url": "https://api.github.com/users/octo/repos",
    "type": "User",
    "site_admin": False,
}


def issues() -> str:
    items = [
        {
            "id": 1000 + n,
            "node_id": f"I_kwDO{n:08d}",
            "number": n,
            "title": f"Issue number {n}",
            "url": f"https://api.github.com/repos/o/r/issues/{n}",
            "html_url": f"https://github.com/o/r/issues/{n}",
            "labels_url": f"https://api.github.com/repos/o/r/issues/{n}/labels{{/name}}",
            "user": USER,
            "assignee": None,
            "body": f"Body of issue {n}.",
            "closed_at": None,
        }
        for n in range(1, 31)
    ]
    return json.dumps(items, indent=2)


def log(n: int) -> str:
    rows = [f"PASS suite/case_{i:03d} ({i % 7}ms)" for i in range(n)]
    return "\n".join([*rows, "FAIL suite/case_777: expected 1, got 2", f"{n} passed, 1 failed"])


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        mid, method = msg.get("id"), msg.get("method")
        if method == "initialize":
            version = msg.get("params", {}).get("protocolVersion", "2025-06-18")
            info = {"name": "e2e", "version": "0.1"}
            result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
        elif method == "tools/list":
            schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
            result = {
                "tools": [
                    {"name": name, "description": f"e2e {name}", "inputSchema": schema}
                    for name in ("issues", "log", "small")
                ]
            }
        elif method == "tools/call":
            params = msg["params"]
            name, args = params["name"], params.get("arguments") or {}
            text = "ok"
            if name == "issues":
                text = issues()
            elif name == "log":
                text = log(int(args.get("n", 200)))
            result = {"content": [{"type": "text", "text": text}]}
        elif mid is None:
            continue  # a notification
        else:
            result = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
