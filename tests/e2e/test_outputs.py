"""Tool-output digests and shell reads in the real Claude Code CLI (issue #15, docs/OUTPUTS.md).

What the model receives is read from the request bodies; the debug log shows that Claude Code
accepted every replacement (a wrong shape is logged as "does not match <Tool>'s output shape"
and the original kept).
"""

from __future__ import annotations

import json
import re
import shutil
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import fake_api as fake_api_module
import pytest
from fake_api import (
    Body,
    Reply,
    ToolCall,
    all_tool_results,
    respond,
    text,
    tool_use,
    tool_uses_in,
)

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
HANDLE = re.compile(r"Complete output: (\S+\.txt) - Read it for anything left out\.\]")
FAILED = ("cart > case 107", "pricing > case 303", "users > case 519")
TOOLS = "Read Edit Bash Grep Glob WebFetch mcp__e2e__issues mcp__e2e__log mcp__e2e__small"

# 60 names that no shape shares: the Grep of them is data, not a uniform shape (see below)
NAMES = [
    a + b
    for a in ("amber", "birch", "cedar", "dune", "ember", "fjord")
    for b in ("lark", "moss", "nook", "pike", "quill", "reef", "sage", "tarn", "vale", "wren")
]

# A test run as vitest prints it: one line per test, three failures, their details, the summary.
GENERATOR = """
import sys
wide = "--wide" in sys.argv
n = 1160 if wide else 585
pad = " (checks rounding, currency and the empty cart)" if wide else ""
print("> shop@1.4.0 test")
print("> vitest run")
print()
print(" RUN  v3.1.4 /work/shop")
print()
failed = {107: "cart", 303: "pricing", 519: "users"}
for i in range(n):
    name = failed.get(i, ("cart", "pricing", "users")[i % 3])
    mark = "\\u00d7" if i in failed else "\\u2713"
    print(f" {mark} src/{name}.test.ts > {name} > case {i}{pad} {i % 9}ms")
print()
for i, name in failed.items():
    print(f" FAIL  src/{name}.test.ts > {name} > case {i}")
    print(f"AssertionError: expected {i} to be {i + 1} // Object.is equality")
    print(f" \\u276f src/{name}.test.ts:{i}:18")
    print()
print(f"      Tests  3 failed | {n - 3} passed ({n})")
print("   Duration  1.84s")
sys.exit(1)
"""


def results_by_call(fake: fake_api_module.FakeAnthropic) -> list[tuple[dict[str, Any], str]]:
    """(tool_use block, the result text the model got) in the order of the calls."""
    last = fake.agent_requests()[-1]
    results = all_tool_results(last)
    return [(use, results.get(use["id"], "")) for use in tool_uses_in(last)]


def rejected(debug_log: Path) -> list[str]:
    return [line for line in debug_log.read_text().splitlines() if "does not match" in line]


def strip_gutter(read_result: str) -> str:
    return "\n".join(line.split("\t", 1)[1] for line in read_result.split("\n"))


def read_the_handle(body: Body) -> Reply:
    """The model reads the file the last digest names."""
    last = list(fake_api_module.tool_results(body).values())[-1]
    match = HANDLE.search(last)
    path = match.group(1) if match else "/nonexistent"
    return Reply((ToolCall("Read", {"file_path": path}),))


@pytest.fixture
def generator(project: Path) -> Path:
    script = project / "run_tests.py"
    script.write_text(GENERATOR)
    return script


def expected_output(script: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, check=False
    )
    return proc.stdout.rstrip("\n") + "\nexit 1"


def test_bulky_bash_output_reaches_the_model_as_a_digest(
    claude, fake_api, project: Path, generator: Path
) -> None:
    widgets = project / "src" / "app" / "components" / "widgets"
    widgets.mkdir(parents=True)
    for i, name in enumerate(NAMES):  # Grep and Glob need something to find, each its own
        (widgets / f"widget_{i:02d}_with_a_descriptive_name.ts").write_text(
            f"export const {name} = () => render('{name} of widget {i}');\n" * 3
        )
    run = f'python3 {generator.name}; echo "exit $?"'
    fake_api.set_script(
        [
            tool_use("Bash", {"command": "echo hello"}),
            tool_use("Bash", {"command": run}),
            respond(read_the_handle),
            tool_use("Bash", {"command": f'python3 {generator.name} --wide; echo "exit $?"'}),
            tool_use("Bash", {"command": f"python3 {generator.name} --wide"}),  # exits 1
            tool_use("Grep", {"pattern": "render", "output_mode": "content", "-n": True}),
            tool_use("Glob", {"pattern": "src/app/components/widgets/*.ts"}),
            text("done"),
        ]
    )
    done = claude("run the tests", plugin_dir=REPO, extra_args=["--allowedTools", TOOLS])
    assert done.result is not None and done.result["result"] == "done"
    assert rejected(done.debug_log) == []
    calls = results_by_call(fake_api)
    small, digest, read, wide, failed, grep, glob = (result for _use, result in calls)

    assert small == "hello"  # small outputs arrive untouched

    original = expected_output(generator)
    assert original.count("\n") + 1 >= 600 and len(original) < 30_000
    assert "[ccstate: digest of " in digest and len(digest) < len(original) / 4
    for case in FAILED:
        name = case.split(" >")[0]
        assert f" FAIL  src/{name}.test.ts > {case}" in digest.split("\n")
        assert f" \u00d7 src/{name}.test.ts > {case} {int(case.split()[-1]) % 9}ms" in digest
    assert "      Tests  3 failed | 582 passed (585)" in digest.split("\n")
    assert "exit 1" in digest.split("\n")[-3:]  # the last lines stay

    stored = Path(HANDLE.search(digest).group(1)).read_text()  # type: ignore[union-attr]
    assert stored.rstrip("\n") == original  # the complete output (as the hook got it)
    assert strip_gutter(read) == stored  # a Read of it gives the model all of it, byte for byte

    wide_original = expected_output(generator, "--wide")
    assert len(wide_original) > 30_000  # Claude Code persists it and shows a 2 KB preview...
    assert "<persisted-output>" not in wide and "[ccstate: digest of " in wide  # ...not here
    assert "      Tests  3 failed | 1157 passed (1160)" in wide  # past the 30,000-char cut
    stored = Path(HANDLE.search(wide).group(1)).read_text()  # type: ignore[union-attr]
    assert stored.rstrip("\n") == wide_original

    # A command that exits non-zero fires PostToolUseFailure, which can only add context:
    # the model gets Claude Code's own cut, with no digest (docs/OUTPUTS.md).
    assert failed.startswith("Exit code 1\n") and "[ccstate" not in failed

    # Grep in 2.1.328 names files relative to the project: one heading each, then its rows
    assert "\nsrc/app/components/widgets/widget_00_with_a_descriptive_name.ts\n1:" in "\n" + grep
    assert "[ccstate: digest of " in grep
    assert glob.startswith("[ccstate: the paths below are in ")


def test_a_uniform_grep_comes_back_short_and_names_the_original(
    claude, fake_api, project: Path
) -> None:
    """#24.3: 500 matches alike but for a path, a number or a word, one of another kind: the
    digest says the runs once, keeps the odd one, and names the complete output."""
    lib = project / "lib"
    lib.mkdir()
    words = ("parse", "load", "cache", "retry", "split", "render", "merge", "flush")
    for f in range(100):
        rows = [f"# TODO: {words[(f + i) % 8]} {i}.{f % 10}\nx{i} = {f}\n" for i in range(5)]
        if f == 50:
            rows[2] = 'raise NotImplementedError("TODO: the v2 wire format")\n'
        (lib / f"m{f:02d}.py").write_text("".join(rows))
    icons = project / "assets" / "generated" / "icons"
    icons.mkdir(parents=True)
    for i in range(90):  # (Glob returns 100 paths at most)
        (icons / f"icon_{i:03d}.svg").write_text("<svg/>\n")
    fake_api.set_script(
        [
            # head_limit 0: all 500 rows (2.1.x stops at 250 unless told)
            tool_use(
                "Grep", {"pattern": "TODO", "output_mode": "content", "-n": True, "head_limit": 0}
            ),
            tool_use("Glob", {"pattern": "assets/**/*.svg"}),
            # the default head_limit: 250 of the 500 rows, and Claude Code says so
            tool_use("Grep", {"pattern": "TODO", "output_mode": "content", "-n": True}),
            text("done"),
        ]
    )
    done = claude("find the TODOs", plugin_dir=REPO, extra_args=["--allowedTools", TOOLS])
    assert done.result is not None and done.result["result"] == "done"
    assert rejected(done.debug_log) == []
    grep, glob, capped = (result for _use, result in results_by_call(fake_api))

    stored = Path(HANDLE.search(grep).group(1)).read_text()  # type: ignore[union-attr]
    rows = stored.rstrip("\n").split("\n")
    assert len(rows) == 500 and sum("lib/m50.py:" in row for row in rows) == 5
    assert len(grep) < len(stored) / 10  # the runs said once
    odd = [row for row in rows if "NotImplementedError" in row]
    assert len(odd) == 1 and odd[0] in grep.split("\n")  # the one of another kind, whole
    assert "more matches like the one above" in grep and "lib/m{" in grep
    assert "(matches alike but for a path, a number or a word said once)" in grep
    # Glob: numbered names in a row as a range (Glob lists by modification time: the files
    # were written in order, so some runs hold), every path still there
    assert "[ccstate: digest of 90 lines" in glob and "icon_{" in glob
    assert len(glob) < 1000
    # the cap Claude Code applied (appliedLimit) reaches the model with the digest
    assert "[ccstate: digest of 250 lines" in capped
    assert capped.rstrip().endswith("[Showing results with pagination = limit: 250]")


NOTES = "".join(
    f"def note_{i:02d}():  # a helper with a comment long enough to count\n" for i in range(40)
)


def test_cat_twice_gets_a_notice_and_after_an_edit_a_notice_naming_it(
    claude, fake_api, project: Path
) -> None:
    notes = project / "notes.py"
    notes.write_text(NOTES)
    old = "def note_07():"
    fake_api.set_script(
        [
            tool_use("Bash", {"command": "cat notes.py"}),
            tool_use("Bash", {"command": "cat notes.py"}),
            tool_use(
                "Edit", {"file_path": str(notes), "old_string": old, "new_string": "def seven():"}
            ),
            tool_use("Bash", {"command": "cat notes.py"}),
            tool_use("Read", {"file_path": str(notes)}),
            tool_use("Bash", {"command": "sed -n '3,30p' notes.py"}),
            text("done"),
        ]
    )
    done = claude("look at the notes", plugin_dir=REPO, extra_args=["--allowedTools", TOOLS])
    assert done.result is not None and done.result["result"] == "done"
    assert rejected(done.debug_log) == []
    first, second, _edit, after_edit, read, window = (r for _u, r in results_by_call(fake_api))
    assert first == NOTES.rstrip()
    assert second.startswith(f"[ccstate: not file content] {notes} lines 1-41 of 41: unchanged")
    assert "since your shell read #1 " in second and second.endswith("run the same command again.")
    # the context holds the text its Edit left (#24): what cat prints of it is that text
    assert "def seven():" in notes.read_text()
    assert after_edit.startswith(f"[ccstate: not file content] {notes} lines 1-41 of 41: ")
    assert "unchanged since your Edit #1 " in after_edit
    # the same file and range right after a notice: the escape hatch serves it in full
    assert read.startswith("1\tdef note_00():") and "def seven():" in read
    assert window.startswith("[ccstate: not file content]") and "lines 3-30 of 41" in window
    assert "since your Read #1 " in window


# --------------------------------------------------------------------------- MCP and WebFetch


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html><body>" + b"<p>line</p>" * 200 + b"</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def https_page(tmp_path: Path) -> Any:
    """A page on https://127.0.0.1 (WebFetch upgrades http), with a throwaway certificate."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: no certificate for the local HTTPS page")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-subj",
            "/CN=127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_port}/page"
    server.shutdown()
    server.server_close()


def test_mcp_and_webfetch_results_get_digests_in_their_shapes(
    claude, fake_api, project: Path, claude_home: Path, https_page: str, monkeypatch
) -> None:
    config = project.parent / "mcp.json"
    server = {"command": sys.executable, "args": [str(HERE / "mcp_server.py")]}
    config.write_text(json.dumps({"mcpServers": {"e2e": server}}))
    (claude_home / ".claude").mkdir(exist_ok=True)
    (claude_home / ".claude" / "settings.json").write_text('{"skipWebFetchPreflight": true}')
    # WebFetch's summary comes from a side request: make it a noisy log worth a digest
    noisy = "\n".join([*(f"PASS page/check_{i:03d}" for i in range(150)), "FAIL page/check_999"])
    monkeypatch.setitem(fake_api_module._CANNED, "side", Reply((noisy,)))
    fake_api.set_script(
        [
            tool_use("mcp__e2e__issues", {}),
            tool_use("mcp__e2e__log", {"n": 200}),
            tool_use("mcp__e2e__small", {}),
            tool_use("WebFetch", {"url": https_page, "prompt": "summarize"}),
            text("done"),
        ]
    )
    done = claude(
        "look things up",
        plugin_dir=REPO,
        extra_args=["--allowedTools", TOOLS, "--mcp-config", str(config)],
        env_extra={"NODE_TLS_REJECT_UNAUTHORIZED": "0"},
    )
    assert done.result is not None and done.result["result"] == "done"
    assert rejected(done.debug_log) == []
    issues, log, small, fetched = (r for _u, r in results_by_call(fake_api))
    data = json.loads(issues.rsplit("\n", 1)[0])
    assert data[0] == {
        "id": 1001,
        "number": 1,
        "title": "Issue number 1",
        "html_url": "https://github.com/o/r/issues/1",
        "user": {
            "login": "octo",
            "id": 7,
            "html_url": "https://github.com/octo",
            "type": "User",
            "site_admin": False,
        },
        "body": "Body of issue 1.",
    }
    assert data[1]["user"] == "[ccstate: same as [0].user]"
    assert "[ccstate: digest of " in log and "FAIL suite/case_777: expected 1, got 2" in log
    assert "[ccstate: " in log.split("\n")[5] and len(log) < 2_000
    assert small == "ok"
    assert "FAIL page/check_999" in fetched and "[ccstate: digest of " in fetched
