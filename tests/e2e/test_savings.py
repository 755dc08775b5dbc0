"""Savings counted only as applied (#24.4), in the real Claude Code CLI: one session makes every
kind of replacement ccstate has (an identical notice, an unseen range, a diff, a Read after the
context's own Write, a Read after its own Edit, an output digest, a shell read's notice; and
in a second session digests of encoded runs and of redrawn progress bars); the last request
body carries each one, and `ccstate report` over the transcript credits exactly those: their
count per kind, and the tokens they kept out by the report's own rules computed from the
files here. A replacement Claude Code rejects (a wrong `updatedToolOutput` shape) is counted
as nothing. And Claude Code's own read dedupe (#23): the pinned versions never send it.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cache_audit import report_json
from claude_runner import read_transcript
from fake_api import all_tool_results, text, tool_use, tool_uses_in

from ccstate.moments import line
from ccstate.report import summary

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
TOOLS = "Read Edit Write Bash"
NOTICE = "0\t[ccstate: not file content] "
DIGEST = "[ccstate: digest of "


def body(name: str, n: int = 120) -> str:
    return "".join(
        f"def {name}_{i:03d}(request, *, timeout=30):  # route {i}, docs\n" for i in range(n)
    )


def rendered(content: str) -> str:
    """A whole file as a Read shows it: every line numbered from 1, a tab, the line."""
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(content.split("\n"), 1))


def est(chars: int) -> int:
    return math.ceil(chars / 4)  # report.summary.est_tokens


GENERATOR = """
for i in range(700):
    print(f" \\u2713 src/shop.test.ts > shop > case {i} {i % 9}ms")
print("      Tests  700 passed (700)")
"""


def calls(fake_api: Any) -> list[tuple[dict[str, Any], str]]:
    last = fake_api.agent_requests()[-1]
    results = all_tool_results(last)
    return [(use, results.get(use["id"], "")) for use in tool_uses_in(last)]


def notes_in(fake_api: Any) -> list[str]:
    """The ccstate notes (additionalContext) in the last request, in order."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            found.extend(p for p in node.split("PostToolUse:Read hook additional context: ")[1:])
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(fake_api.agent_requests()[-1].get("messages"))
    return [n.split("\n</system-reminder>")[0] for n in found if n.startswith("[ccstate]")]


def test_every_kind_of_replacement_is_in_the_request_and_credited_exactly(
    claude, fake_api, project: Path, claude_home: Path, tmp_path: Path
) -> None:
    same, window, changed, written, edited, printed = (
        project / f"{name}.py"
        for name in ("same", "window", "changed", "written", "edited", "printed")
    )
    for path in (same, window, changed, edited, printed):
        path.write_text(body(path.stem))
    (project / "gen.py").write_text(GENERATOR)
    old = "def edited_010(request, *, timeout=30):  # route 10, docs\n"
    new = old + "    return cached(request)  # added by the edit\n"
    insert = f"sed -i '60a\\    return cached(request)  # inserted' {changed}"
    fake_api.set_script(
        [
            tool_use("Read", {"file_path": str(same)}),
            tool_use("Read", {"file_path": str(same)}),  # 1: identical notice
            tool_use("Read", {"file_path": str(window), "limit": 30}),
            tool_use("Read", {"file_path": str(window), "limit": 60}),  # 2: unseen range
            tool_use("Read", {"file_path": str(changed)}),
            tool_use("Bash", {"command": insert}),
            tool_use("Read", {"file_path": str(changed)}),  # 3: diff
            tool_use("Write", {"file_path": str(written), "content": body("written")}),
            tool_use("Read", {"file_path": str(written)}),  # 4: after the Write
            tool_use("Read", {"file_path": str(edited)}),
            tool_use("Edit", {"file_path": str(edited), "old_string": old, "new_string": new}),
            tool_use("Read", {"file_path": str(edited)}),  # 5: after the Edit
            tool_use("Bash", {"command": "python3 gen.py"}),  # 6: a digest
            tool_use("Bash", {"command": f"cat {printed.name}"}),
            tool_use("Bash", {"command": f"cat {printed.name}"}),  # 7: a shell read's notice
            text("done"),
        ]
    )
    done = claude("work", plugin_dir=REPO, extra_args=["--allowedTools", TOOLS])
    assert done.result is not None and done.result["result"] == "done"
    assert "does not match" not in done.debug_log.read_text()  # every shape accepted
    results = [result for _use, result in calls(fake_api)]
    (_, notice_same, _, unseen, full_changed, _, diff_notice, _, notice_written, _, _,
     notice_edited, digest, cat, notice_cat) = results  # fmt: skip

    # the request body carries each replacement
    assert notice_same.startswith(NOTICE) and "unchanged since your Read #1 " in notice_same
    assert unseen.startswith("31\t") and unseen.count("\n") == 29
    assert diff_notice.startswith(NOTICE) and ": changed since your Read #5;" in diff_notice
    assert notice_written.startswith(NOTICE) and "since your Write #1 " in notice_written
    assert notice_edited.startswith(NOTICE) and "since your Edit #1 " in notice_edited
    assert DIGEST in digest and len(digest) < 2000
    assert notice_cat.startswith("[ccstate: not file content]") and "shell read #1" in notice_cat
    notes = notes_in(fake_api)
    assert len(notes) == 2 and "shows only lines 31-60 of the 1-60" in notes[0]
    assert "Unified diff" in notes[1] and "+    return cached(request)  # inserted" in notes[1]

    # and the report credits exactly these, by its rules, from the files and what was shown
    original = Path(digest.split("Complete output: ")[1].split(" - Read it")[0]).read_text()
    expected = [
        len(rendered(body("same"))) - len(notice_same),
        # unseen: the omitted lines, estimated at the shown lines' average size
        30 * len(unseen) // (unseen.count("\n") + 1),
        len(full_changed) - len(diff_notice),  # the diff's notice against the full Read
        len(rendered(body("written"))) - len(notice_written),
        len(rendered(edited.read_text())) - len(notice_edited),
        len(original) - len(digest),
        len(cat) - len(notice_cat),
    ]
    assert all(e > 0 for e in expected)
    data = report_json(claude_home, tmp_path)
    figures = data["total"]["ccstate"]
    assert (figures["notices"], figures["digests"], figures["notes"]) == (5, 1, 2)
    assert data["total"]["context"]["reads"]["ccstate"]["count"] == 5  # 4 notices + 1 range
    assert figures["saved_tokens"] == est(sum(expected))
    assert figures["claude_code_stubs"] == 0

    # the status line's figure: the same, from the transcript's records
    (transcript,) = (claude_home / ".claude" / "projects").rglob("*.jsonl")
    kept = summary.kept_out_as_applied(read_transcript(transcript))
    assert (kept.tokens, kept.replacements) == (est(sum(expected)), 7)
    assert kept.token_calls == figures["saved_token_calls"]
    # ... and what the status line shows: the Stop hook (async) counted it for the line
    shown = status_kept(project, str(done.result["session_id"]), transcript)
    assert shown == f"kept out {line.tokens(figures['saved_tokens'])} tok", shown


def status_kept(project: Path, session: str, transcript: Path, wait_s: float = 20) -> str:
    """`ccstate-statusline --format {kept}` as Claude Code runs it for the session, once the
    Stop hook's counter is there (it runs in the background, after the last response)."""
    counter = project / ".ccstate" / "cache" / "kept" / f"{session}.json"
    deadline = time.monotonic() + wait_s
    while not counter.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert counter.exists(), f"no kept-out counter {counter} after {wait_s} s"
    payload = {"session_id": session, "transcript_path": str(transcript), "cwd": str(project)}
    script = Path(sys.executable).with_name("ccstate-statusline")
    proc = subprocess.run(
        [str(script), "--format", "{kept}"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=30,
        cwd=project,
    )
    return proc.stdout.strip()


# An image API's answer as `curl ... | jq .` prints it: the image a data URL of base64.
IMAGE = """
import base64, json, random
rnd = random.Random(5)
png = base64.b64encode(bytes(rnd.randrange(256) for _ in range(int(__import__("sys").argv[1]))))
doc = {"id": "gen-7", "model": "example/image", "choices": [{"index": 0, "message": {
    "role": "assistant", "images": [{"type": "image_url", "image_url": {
        "url": "data:image/png;base64," + png.decode()}}]}}], "usage": {"total_tokens": 2580}}
print(json.dumps(doc, indent=2))
"""
# A flashing tool's progress bar, redrawn with \\r and coloured, as esptool prints it.
FLASH = """
import sys
print("\\x1b[0;33mWarning:\\x1b[0m Deprecated: use write-flash")
for step in ("Connecting...", "Chip type: ESP32-S3", "Uploading stub flasher...", "Stub running."):
    print(step)
total = 1048576
for k in range(65):
    done = min(total, k * 16384)
    bar = ("=" * (done * 30 // total)).ljust(30)
    sys.stdout.write(f"\\r\\x1b[KWriting at 0x{done:08x} [{bar}] {100 * done / total:5.1f}% ")
print()
print("Wrote 1617920 bytes (1048576 compressed) at 0x00010000 in 11.6 seconds.")
print("Hash of data verified.")
"""


def test_encoded_runs_and_redraws_are_digests_in_the_request_and_credited_exactly(
    claude, fake_api, project: Path, claude_home: Path, tmp_path: Path
) -> None:
    """An image as base64 inside JSON (whole, and over Claude Code's 30,000 characters, where
    it persists the output and the hook digests the file), and a progress bar's redraws: each
    reaches the model as its digest, and the report credits exactly what each kept out."""
    (project / "image.py").write_text(IMAGE)
    (project / "flash.py").write_text(FLASH)
    fake_api.set_script(
        [
            tool_use("Bash", {"command": "python3 image.py 15000"}),  # 20,000 base64 characters
            tool_use("Bash", {"command": "python3 image.py 60000"}),  # persisted by Claude Code
            tool_use("Bash", {"command": "python3 flash.py"}),
            text("done"),
        ]
    )
    done = claude("work", plugin_dir=REPO, extra_args=["--allowedTools", "Bash"])
    assert done.result is not None and done.result["result"] == "done"
    assert "does not match" not in done.debug_log.read_text()
    image, persisted, flash = (result for _use, result in calls(fake_api))
    for digest in (image, persisted):
        assert DIGEST in digest and len(digest) < 1200
        data = json.loads(digest.split("\n[ccstate: digest of ")[0])  # still JSON
        url = data["choices"][0]["message"]["images"][0]["image_url"]["url"]
        assert url.startswith("data:image/png;base64,") and "base64 characters left out]" in url
        assert data["usage"] == {"total_tokens": 2580}
        assert "1 base64 or hex run cut)" in digest
    assert (
        DIGEST in flash and "(terminal codes removed, redrawn lines at their last state)" in flash
    )
    shown = flash.split("\n")
    assert any(row.startswith("Writing at 0x00100000 [==============================] 100.0%")
               for row in shown)  # fmt: skip
    assert not any(row.startswith("Writing at 0x00000000") for row in shown)
    assert "\x1b" not in flash and "\r" not in flash
    originals = [
        Path(d.split("Complete output: ")[1].split(" - Read it")[0]).read_bytes().decode()
        for d in (image, persisted, flash)
    ]
    assert "\r\x1b[KWriting at 0x00000000" in originals[2]  # the original, byte for byte
    assert len(originals[1]) > 80_000  # the persisted file, not Claude Code's cut
    expected = [len(o) - len(d) for o, d in zip(originals, (image, persisted, flash), strict=True)]
    figures = report_json(claude_home, tmp_path)["total"]["ccstate"]
    assert figures["digests"] == 3
    assert figures["saved_tokens"] == est(sum(expected))
    (transcript,) = (claude_home / ".claude" / "projects").rglob("*.jsonl")
    kept = summary.kept_out_as_applied(read_transcript(transcript))
    assert (kept.tokens, kept.replacements) == (est(sum(expected)), 3)


BAD_HOOK = """
import json, sys
payload = json.load(sys.stdin)
if payload.get("tool_use_id", "").endswith("2"):
    path = payload["tool_input"]["file_path"]
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PostToolUse",
        # a plain string is not Read's output shape: Claude Code rejects it, keeps the original
        "updatedToolOutput": "0\\t[ccstate: not file content] " + path + " unchanged",
        "additionalContext": "[ccstate] " + path + ": this Read result shows only lines 31-31 "
        "of the 1-121 you asked for. Omitted: lines 1-30 and lines 32-121, unchanged",
    }}))
"""


def test_a_replacement_claude_code_rejected_is_credited_nothing(
    claude, fake_api, project: Path, claude_home: Path, tmp_path: Path
) -> None:
    target = project / "big.py"
    target.write_text(body("big"))
    hook = tmp_path / "bad_hook.py"
    hook.write_text(BAD_HOOK)
    (project / ".claude").mkdir(exist_ok=True)
    command = f"{sys.executable} {hook}"
    settings = {"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [
        {"type": "command", "command": command}]}]}}  # fmt: skip
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    fake_api.set_script(
        [
            tool_use("Read", {"file_path": str(target)}),
            tool_use("Read", {"file_path": str(target)}),
            text("done"),
        ]
    )
    done = claude("read it twice")  # no ccstate: only the broken hook
    assert done.result is not None and done.result["result"] == "done"
    assert "does not match Read's output shape" in done.debug_log.read_text()
    first, second = (result for _use, result in calls(fake_api))
    assert second == first == rendered(body("big"))  # the original reached the model
    assert len(notes_in(fake_api)) == 1  # ... and the note too
    figures = report_json(claude_home, tmp_path)["total"]["ccstate"]
    assert (figures["notices"], figures["saved_tokens"], figures["notes"]) == (0, 0, 1)
    (transcript,) = (claude_home / ".claude" / "projects").rglob("*.jsonl")
    assert summary.kept_out_as_applied(read_transcript(transcript)).tokens == 0


def test_the_pinned_versions_never_answer_a_read_themselves(
    claude, fake_api, project: Path, claude_home: Path, tmp_path: Path
) -> None:
    """#23: 2.1.86-2.1.205 answered repeated Reads with a stub; 2.1.328 and 2.1.332 carry no
    `file_unchanged` type at all and read the file again, in every permission mode the tests
    can run. The PostToolUse payload always has the file's text."""
    target = project / "big.py"
    target.write_text(body("big"))
    dump = tmp_path / "payloads.jsonl"
    hook = tmp_path / "dump.py"
    hook.write_text(
        f"import sys\nopen({str(dump)!r}, 'a').write(sys.stdin.read().strip() + '\\n')\n"
    )
    (project / ".claude").mkdir(exist_ok=True)
    settings = {"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [
        {"type": "command", "command": f"{sys.executable} {hook}"}]}]}}  # fmt: skip
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    fake_api.set_script(
        [tool_use("Read", {"file_path": str(target)}) for _ in range(3)] + [text("ok")]
    )
    for mode in ("default", "acceptEdits"):
        done = claude("read it", extra_args=["--permission-mode", mode])
        assert done.result is not None and done.result["result"] == "ok"
        fake_api.set_script(
            [tool_use("Read", {"file_path": str(target)}) for _ in range(3)] + [text("ok")]
        )
    payloads = [json.loads(line) for line in dump.read_text().splitlines()]
    assert len(payloads) == 6
    assert {p["tool_response"]["type"] for p in payloads} == {"text"}
    assert all(p["tool_response"]["file"]["content"] == body("big") for p in payloads)
    report = report_json(claude_home, tmp_path)["total"]
    assert report["ccstate"]["claude_code_stubs"] == 0
    assert report["context"]["reads"]["claude_code"]["count"] == 0
