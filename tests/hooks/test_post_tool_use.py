from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from ccstate import store
from ccstate.ledger import core as ledger
from helpers import hook_env, make_payload, read_payload, run_hook

BODY = "".join(
    f"def handler_{i}(request):  # enough text to be worth a notice\n" for i in range(30)
)
AGENT = "a235d80d2fdc9c84a"


def heartbeat(project: Path) -> dict:
    return json.loads((project / ".ccstate" / "heartbeat" / "PostToolUse.json").read_text())


def test_read_payload_is_parsed_into_the_heartbeat(git_project: Path) -> None:
    target = git_project / "app.py"
    payload = read_payload(git_project, target, "a\nb\n")
    payload["agent_id"] = AGENT
    assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")
    assert heartbeat(git_project)["detail"] == {
        "python": sys.executable,
        "tool_name": "Read",
        "tool_use_id": "toolu_001",
        "agent_id": AGENT,
        "file_path": str(target),
        "response_type": "text",
        "start_line": 1,
        "num_lines": 3,
        "total_lines": 3,
        "content_chars": 4,
        "ledger": "full",
        "ledger_reason": "first read of this path in this epoch",
    }


def _body_file(project: Path, name: str = "big.py") -> tuple[Path, dict]:
    target = project / name
    target.write_text(BODY)
    return target, read_payload(project, target, BODY)


def test_a_repeated_read_becomes_a_notice_in_reads_own_shape(git_project: Path) -> None:
    target, payload = _body_file(git_project)
    assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")
    payload["tool_use_id"] = "toolu_002"
    code, out, raw, err = run_hook("PostToolUse", payload, cwd=git_project)
    assert (code, err) == (0, "")
    sha = ledger.sha256(BODY)
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": {
                "type": "text",
                "file": {
                    "filePath": str(target),
                    "content": f"[ccstate: not file content] {target} lines 1-31 of 31: unchanged "
                    f"since your Read #1 (sha256 {sha[:8]}), so the text you have from it is "
                    "current. For the full text again, repeat this Read (same path, offset and "
                    "limit).",
                    "numLines": 1,
                    "startLine": 0,
                    "totalLines": 31,
                },
            },
        }
    }
    assert raw.count("\n") == 0  # exactly one JSON object
    beat = heartbeat(git_project)["detail"]
    assert (beat["ledger"], beat["ledger_reason"]) == ("identical", "unchanged")


def test_a_subagent_has_its_own_ledger(git_project: Path) -> None:
    _target, payload = _body_file(git_project)
    run_hook("PostToolUse", payload, cwd=git_project)
    sub = {**payload, "agent_id": AGENT, "agent_type": "general-purpose"}
    assert run_hook("PostToolUse", sub, cwd=git_project)[1] is None  # full: first in its context
    assert run_hook("PostToolUse", sub, cwd=git_project)[1] is not None
    other = {**sub, "agent_id": "b000000000000000b"}
    assert run_hook("PostToolUse", other, cwd=git_project)[1] is None


def test_ccstate_dedupe_0_switches_it_off(git_project: Path) -> None:
    _target, payload = _body_file(git_project)
    env = hook_env(CCSTATE_DEDUPE="0")
    for _ in range(3):
        assert run_hook("PostToolUse", payload, cwd=git_project, env=env)[:3] == (0, None, "")
    # decided from the payload and the environment: nothing loaded, nothing written (#14)
    assert not (git_project / ".ccstate").exists()


def test_config_switches_it_off(git_project: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("dedupe:\n  identical: false\n")
    _target, payload = _body_file(git_project)
    for _ in range(2):
        assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")


def test_tiny_files_and_images_pass_untouched(git_project: Path) -> None:
    target = git_project / "app.py"
    payload = read_payload(git_project, target, target.read_text())
    image = make_payload(
        "PostToolUse",
        git_project,
        tool_name="Read",
        tool_input={"file_path": str(git_project / "x.png")},
        tool_use_id="toolu_009",
        tool_response={"type": "image", "file": {"base64": "AAAA", "type": "image/png"}},
    )
    for _ in range(2):
        assert run_hook("PostToolUse", payload, cwd=git_project)[2] == ""
        assert run_hook("PostToolUse", image, cwd=git_project)[2] == ""
    beat = heartbeat(git_project)["detail"]
    assert (beat["ledger"], beat["ledger_reason"]) == ("full", "not a text read (image)")


def test_a_corrupt_ledger_means_full_content_and_a_log_line(git_project: Path) -> None:
    _target, payload = _body_file(git_project)
    run_hook("PostToolUse", payload, cwd=git_project)
    ledger_file = git_project / ".ccstate" / "ledger" / payload["session_id"] / "main.json"
    ledger_file.write_text("{ torn")
    assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")
    log = (git_project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert "read ledger: " in log and "corrupt" in log and "set aside" in log
    assert run_hook("PostToolUse", payload, cwd=git_project)[1] is not None  # fresh again


def test_a_ledger_locked_too_long_means_full_content_and_a_log_line(git_project: Path) -> None:
    _target, payload = _body_file(git_project)
    run_hook("PostToolUse", payload, cwd=git_project)
    ledger_file = git_project / ".ccstate" / "ledger" / payload["session_id"] / "main.json"
    started = time.monotonic()
    with store.file_lock(ledger_file):
        assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")
    assert time.monotonic() - started < 9  # well inside Claude Code's 10 s hook timeout
    log = (git_project / ".ccstate" / "logs" / "hooks.log").read_text()
    assert "still locked after 2s; the Read was served in full" in log


def _bash(project: Path, command: str, stdout: str, tool_use_id: str = "toolu_010") -> dict:
    return make_payload(
        "PostToolUse",
        project,
        tool_name="Bash",
        tool_input={"command": command},
        tool_use_id=tool_use_id,
        tool_response={"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False},
    )


def test_a_cat_of_text_a_read_delivered_gets_the_notice_in_bashs_shape(git_project: Path) -> None:
    target, payload = _body_file(git_project)
    run_hook("PostToolUse", payload, cwd=git_project)
    cat = _bash(git_project, "cat big.py", BODY.rstrip())  # Claude Code trims the output
    code, out, _raw, err = run_hook("PostToolUse", cat, cwd=git_project)
    assert (code, err) == (0, "")
    sha = ledger.sha256(BODY)
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": {
                "stdout": f"[ccstate: not file content] {target} lines 1-31 of 31: unchanged "
                f"since your Read #1 (sha256 {sha[:8]}), so the text you have from it is "
                "current. For the full output again, run the same command again.",
                "stderr": "",
                "interrupted": False,
            },
        }
    }
    detail = heartbeat(git_project)["detail"]
    assert (detail["shell_read"], detail["ledger"]) == (str(target), "identical")
    again = run_hook("PostToolUse", cat, cwd=git_project)  # right after the notice: in full
    assert again[:3] == (0, None, "")
    assert heartbeat(git_project)["detail"]["ledger_reason"].startswith("escape hatch")


def test_a_cat_after_an_edit_is_served_as_is(git_project: Path) -> None:
    target, _payload = _body_file(git_project)
    cat = _bash(git_project, "cat big.py", BODY.rstrip())
    run_hook("PostToolUse", cat, cwd=git_project)
    target.write_text(BODY.replace("handler_7(", "handler_seven("))
    cat = _bash(git_project, "cat big.py", target.read_text().rstrip(), "toolu_011")
    assert run_hook("PostToolUse", cat, cwd=git_project)[:3] == (0, None, "")
    assert heartbeat(git_project)["detail"]["ledger"] == "full"


def test_shell_read_output_that_is_not_the_files_text_is_left_alone(git_project: Path) -> None:
    _target, payload = _body_file(git_project)
    run_hook("PostToolUse", payload, cwd=git_project)
    cat = _bash(git_project, "cat big.py", "something else entirely")
    assert run_hook("PostToolUse", cat, cwd=git_project)[:3] == (0, None, "")
    assert heartbeat(git_project)["detail"]["shell_read"] == "output is not the file's text"
    ledger_file = git_project / ".ccstate" / "ledger" / payload["session_id"] / "main.json"
    assert json.loads(ledger_file.read_text())["reads"] == 1


def test_an_unseen_answer_then_an_edit_then_the_same_read_gets_the_change(
    git_project: Path,
) -> None:
    """Issue #15 item 4 through the hook: the change cancels the pending escape hatch."""
    target, payload = _body_file(git_project)
    run_hook("PostToolUse", payload, cwd=git_project)
    for n, (old, new) in enumerate((("handler_3(", "handler_three("), ("handler_20(", "h20("))):
        text = target.read_text().replace(old, new)
        target.write_text(text)
        payload = read_payload(git_project, target, text)
        payload["tool_use_id"] = f"toolu_02{n}"
        code, out, _raw, _err = run_hook("PostToolUse", payload, cwd=git_project)
        assert code == 0 and out is not None, n
        assert "escape hatch" not in heartbeat(git_project)["detail"]["ledger_reason"]


def test_compaction_starts_a_new_epoch(git_project: Path) -> None:
    _target, payload = _body_file(git_project)
    run_hook("PostToolUse", payload, cwd=git_project)
    pre = make_payload("PreCompact", git_project, trigger="manual", custom_instructions="")
    assert run_hook("PreCompact", pre, cwd=git_project)[0] == 0
    assert run_hook("PostToolUse", payload, cwd=git_project)[1] is None  # full again
    assert run_hook("PostToolUse", payload, cwd=git_project)[1] is not None
    start = make_payload("SessionStart", git_project, source="compact")
    assert run_hook("SessionStart", start, cwd=git_project)[0] == 0
    assert run_hook("PostToolUse", payload, cwd=git_project)[1] is None


def test_resume_starts_a_new_epoch_for_every_context(git_project: Path) -> None:
    _target, payload = _body_file(git_project)
    sub = {**payload, "agent_id": AGENT}
    for p in (payload, sub):
        run_hook("PostToolUse", p, cwd=git_project)
    start = make_payload("SessionStart", git_project, source="resume")
    assert run_hook("SessionStart", start, cwd=git_project)[0] == 0
    for p in (payload, sub):
        assert run_hook("PostToolUse", p, cwd=git_project)[1] is None


def _imported(stderr: str) -> set[str]:
    return {
        line.split("|")[-1].strip().split(".")[0] for line in stderr.splitlines() if "|" in line
    }


def test_notice_and_diff_paths_import_no_slow_modules(git_project: Path) -> None:
    """The ledger's costlier paths (a notice, a diff) stay within the hot-hook import rules."""
    import subprocess

    slow = {"pathlib", "dataclasses", "typing", "tempfile", "inspect"}
    banned = {"click", "rich", "git", "tiktoken", "yaml", "filelock"}
    env = hook_env()
    base = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True, env=env
    )
    baseline = _imported(base.stderr)
    target, payload = _body_file(git_project)
    argv = [sys.executable, "-X", "importtime", "-m", "ccstate.hooks", "PostToolUse"]
    run_hook("PostToolUse", payload, cwd=git_project)
    changed = BODY.replace(
        "def handler_3(", "def handler_3_new(request):\n    pass\ndef handler_3("
    )
    target.write_text(changed)
    other = read_payload(git_project, git_project / "app.py", "print('hello')\n")
    for body in (BODY, changed):  # a notice, then (after another Read: no escape hatch) a diff
        step = read_payload(git_project, target, body)
        proc = subprocess.run(argv, input=json.dumps(step), capture_output=True, text=True, env=env)
        out = json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]["file"]["content"]
        assert out.startswith("[ccstate: not file content]")
        imported = _imported(proc.stderr) - baseline
        assert "ccstate" in imported and not imported & (slow | banned), imported & (slow | banned)
        run_hook("PostToolUse", other, cwd=git_project)
    assert "changed since your Read #1" in out


# --------------------------------------------------------------------------- faults (#12)


def _transcript(project: Path, payload: dict, *records: dict) -> Path:
    """Append records to the payload's transcript (Claude Code writes compact JSON lines)."""
    path = Path(payload["transcript_path"])
    with path.open("a") as fh:
        for record in records:
            fh.write(json.dumps(record, separators=(",", ":")) + "\n")
    return path


BOUNDARY = {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"}
MICRO = {"type": "system", "subtype": "microcompact_boundary", "content": "cleared"}
USER = {"type": "user", "message": {"role": "user", "content": "go on"}}


def _notice_then(project: Path, payload: dict, env: dict | None = None) -> None:
    """A first Read (full), a repeat (a notice: the ledger cites Read #1), then a Read of
    another file, so the next Read of the first is no escape hatch: a notice, unless the
    epoch ended."""
    _transcript(project, payload, USER)
    assert run_hook("PostToolUse", payload, cwd=project, env=env)[1] is None
    assert run_hook("PostToolUse", payload, cwd=project, env=env)[1] is not None
    other = project / "other.txt"
    other.write_text("x\n")
    step = read_payload(project, other, "x\n")
    step["transcript_path"] = payload["transcript_path"]
    assert run_hook("PostToolUse", step, cwd=project, env=env)[1] is None


def test_a_compaction_the_state_dir_missed_still_starts_a_new_epoch(git_project: Path) -> None:
    """Item 2: PreCompact could neither rewrite nor delete the ledger (the state dir was not
    usable); the transcript's compact_boundary is the witness, so the next Read is full."""
    _target, payload = _body_file(git_project)
    _notice_then(git_project, payload)
    state = git_project / ".ccstate"
    state.rename(git_project / ".ccstate-away")
    state.write_text("not a directory: every write into the state dir fails\n")
    pre = make_payload("PreCompact", git_project, trigger="auto")
    assert run_hook("PreCompact", pre, cwd=git_project)[:4] == (0, None, "", "")
    _transcript(git_project, payload, BOUNDARY, USER)
    start = make_payload("SessionStart", git_project, source="compact")
    assert run_hook("SessionStart", start, cwd=git_project)[0] == 0
    state.unlink()
    (git_project / ".ccstate-away").rename(state)
    assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")
    beat = heartbeat(git_project)["detail"]
    assert beat["ledger_epoch"] == "transcript shows compact_boundary"
    assert run_hook("PostToolUse", payload, cwd=git_project)[1] is not None  # cites the new Read


def test_compaction_seen_from_another_directory_still_reaches_the_ledger(
    git_project: Path,
) -> None:
    """Item 3: no CLAUDE_PROJECT_DIR, Reads from a nested repository (its own state dir),
    PreCompact from the outer one: the transcript still ends the nested ledger's epoch."""
    nested = git_project / "vendor" / "lib"
    nested.mkdir(parents=True)
    (nested / ".git").mkdir()
    target = nested / "big.py"
    target.write_text(BODY)
    payload = read_payload(nested, target, BODY)
    payload["transcript_path"] = str(git_project / "transcript.jsonl")
    _notice_then(nested, payload)
    assert (nested / ".ccstate" / "ledger").is_dir()
    pre = make_payload("PreCompact", git_project, trigger="auto")
    assert run_hook("PreCompact", pre, cwd=git_project)[0] == 0
    _transcript(git_project, payload, BOUNDARY, USER)
    assert run_hook("PostToolUse", payload, cwd=nested)[:3] == (0, None, "")


def test_microcompaction_without_a_hook_starts_a_new_epoch(git_project: Path) -> None:
    """Item 5: Claude Code's microcompact clears old results and fires no hook."""
    _target, payload = _body_file(git_project)
    _notice_then(git_project, payload)
    _transcript(git_project, payload, MICRO)
    assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")
    assert heartbeat(git_project)["detail"]["ledger_epoch"] == (
        "transcript shows microcompact_boundary"
    )


def test_an_idle_pause_long_enough_to_clear_results_starts_a_new_epoch(git_project: Path) -> None:
    """Item 5: server-side clearing after >= 3,900 s idle writes nothing we can see."""
    _target, payload = _body_file(git_project)
    _notice_then(git_project, payload)
    ledger_file = git_project / ".ccstate" / "ledger" / payload["session_id"] / "main.json"
    data = json.loads(ledger_file.read_text())
    data.setdefault("meta", {})["last_seen"] = time.time() - 3700
    ledger_file.write_text(json.dumps(data))
    assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")
    assert heartbeat(git_project)["detail"]["ledger_epoch"].startswith("idle for 370")


def test_a_new_claude_code_process_starts_a_new_epoch(git_project: Path) -> None:
    """A resume whose SessionStart hook never ran: CLAUDE_PID changed."""
    _target, payload = _body_file(git_project)
    _notice_then(git_project, payload, hook_env(CLAUDE_PID="1000"))
    assert run_hook("PostToolUse", payload, cwd=git_project, env=hook_env(CLAUDE_PID="2000"))[
        :3
    ] == (0, None, "")


def test_an_unreadable_generation_means_full_content(git_project: Path) -> None:
    """Epoch unknown (the generation file cannot be read): serve in full."""
    _target, payload = _body_file(git_project)
    _notice_then(git_project, payload)
    folder = git_project / ".ccstate" / "ledger" / payload["session_id"]
    (folder / "generation").mkdir()
    for _ in range(2):
        assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")


@pytest.mark.parametrize("agent_id", ["", 123, None, ["a"]])
def test_an_unusable_agent_id_is_an_unknown_context(git_project: Path, agent_id: object) -> None:
    """Item 8: a subagent whose agent_id is empty or not a string is not the main thread."""
    _target, payload = _body_file(git_project)
    _notice_then(git_project, payload)
    odd = {**payload, "agent_id": agent_id}
    for _ in range(2):
        assert run_hook("PostToolUse", odd, cwd=git_project)[:3] == (0, None, "")
    assert heartbeat(git_project)["detail"]["ledger_reason"] == "unknown context"


def _run_bounded(payload: dict, project: Path, limit: float = 20.0) -> tuple[int, str, str]:
    """The hook must finish well inside Claude Code's 10 s timeout; `limit` only stops a hang
    (a bound, not a timing assertion)."""
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-m", "ccstate.hooks", "PostToolUse"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=hook_env(),
        cwd=project,
        timeout=limit,
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/urandom"])
def test_reads_of_files_that_are_not_regular_never_hang(git_project: Path, kind: str) -> None:
    """Item 12: hashing must not read a device without end, nor block on a FIFO (holding the
    ledger's lock)."""
    import os

    if kind == "fifo":
        path = git_project / "pipe"
        os.mkfifo(path)
    else:
        path = Path(kind)
    payload = read_payload(git_project, path, BODY)
    for _ in range(2):
        assert _run_bounded(payload, git_project)[0] == 0
    beat = heartbeat(git_project)["detail"]
    assert beat["ledger"] in ("full", "identical")


def test_a_diff_of_a_huge_repetitive_file_stays_bounded(git_project: Path) -> None:
    """Item 13: the diff is bounded in edits and work; past the bound, full content."""
    target = git_project / "rep.py"
    old = "".join(("}\n", "\n", "    pass\n")[i % 3] for i in range(20_000))
    new = "".join(("\n", "}\n", "    pass\n")[i % 3] for i in range(20_000))
    target.write_text(old)
    first = read_payload(git_project, target, old)
    assert _run_bounded(first, git_project)[:2] == (0, "")
    target.write_text(new)
    code, out, err = _run_bounded(read_payload(git_project, target, new), git_project)
    assert (code, out, err) == (0, "", "")
    assert heartbeat(git_project)["detail"]["ledger"] == "full"


def test_state_that_holds_file_text_is_private_and_old_state_is_fixed(git_project: Path) -> None:
    """Item 11: a 0600 .env Read becomes a 0600 blob in a 0700 .ccstate; a world-readable
    state dir and log from before are fixed by the next hook."""
    import os

    state = git_project / ".ccstate"
    (state / "logs").mkdir(parents=True)
    os.chmod(state, 0o755)
    (state / "logs" / "hooks.log").write_text("old line\n")
    os.chmod(state / "logs" / "hooks.log", 0o644)
    env_file = git_project / ".env"
    env_file.write_text("".join(f"SECRET_{i}=value-{i}-0123456789abcdef\n" for i in range(20)))
    env_file.chmod(0o600)
    payload = read_payload(git_project, env_file, env_file.read_text())
    assert run_hook("PostToolUse", payload, cwd=git_project)[0] == 0
    run_hook("PostToolUse", "{ not json", cwd=git_project)  # a failure the guard logs
    assert state.stat().st_mode & 0o777 == 0o700
    assert (state / "logs" / "hooks.log").stat().st_mode & 0o777 == 0o600
    blob = state / "ledger" / "blobs" / ledger.sha256(env_file.read_text())
    assert blob.stat().st_mode & 0o777 == 0o600
    for path in (state / "ledger").rglob("*"):
        assert path.stat().st_mode & 0o777 in (0o600, 0o700), path


def _big_text(tag: str, kib: int) -> str:
    line = f"value_{tag} = compute('{tag}')  # a line of a file large enough to count\n"
    return line * (kib * 1024 // len(line))


def _blob_store_bytes(project: Path) -> int:
    """The blob store's bytes on disk: blocks, not apparent size."""
    folder = project / ".ccstate" / "ledger" / "blobs"
    return sum(p.stat().st_blocks * 512 for p in folder.iterdir() if p.is_file())


def test_a_read_whose_text_was_evicted_is_served_in_full_never_a_notice(
    git_project: Path,
) -> None:
    (git_project / ".ccstate.yaml").write_text("dedupe:\n  store_max_mb: 1\n")
    texts = {}
    for name in ("same.py", "edited.py"):  # delivered in full and kept
        texts[name] = _big_text(name, 150)
        (git_project / name).write_text(texts[name])
        payload = read_payload(git_project, git_project / name, texts[name])
        assert run_hook("PostToolUse", payload, cwd=git_project)[1] is None
    for n in range(4):  # 4 x 300 KiB more: the store evicts the least recently delivered
        other = git_project / f"other_{n}.py"
        body = _big_text(f"other{n}", 300)
        other.write_text(body)
        payload = read_payload(git_project, other, body)
        assert run_hook("PostToolUse", payload, cwd=git_project)[2:] == ("", "")
    for text in texts.values():
        assert not (git_project / ".ccstate" / "ledger" / "blobs" / ledger.sha256(text)).exists()
    # Unchanged (else a notice) and edited in one line (else a diff): both in full now.
    texts["edited.py"] = texts["edited.py"].replace("compute", "recompute", 1)
    for n, (name, text) in enumerate(texts.items()):
        (git_project / name).write_text(text)
        again = {**read_payload(git_project, git_project / name, text), "tool_use_id": f"t{n}"}
        assert run_hook("PostToolUse", again, cwd=git_project)[:4] == (0, None, "", "")
        beat = heartbeat(git_project)["detail"]
        assert (beat["ledger"], beat["ledger_reason"]) == ("full", "ledger text missing or damaged")
    again = {**read_payload(git_project, git_project / "same.py", texts["same.py"])}
    assert run_hook("PostToolUse", again, cwd=git_project)[1] is not None  # kept again: a notice
    assert not (git_project / ".ccstate" / "logs" / "hooks.log").exists()  # eviction is no error


def test_the_blob_store_holds_its_cap_on_disk_throughout_a_session(git_project: Path) -> None:
    (git_project / ".ccstate.yaml").write_text("dedupe:\n  store_max_mb: 1\n")
    cap, peak = 1 << 20, 0
    for n in range(24):  # 24 distinct 90 KiB deliveries: twice the cap
        target = git_project / f"mod_{n}.py"
        body = _big_text(f"mod{n}", 90)
        target.write_text(body)
        payload = {**read_payload(git_project, target, body), "tool_use_id": f"toolu_c{n}"}
        assert run_hook("PostToolUse", payload, cwd=git_project)[0] == 0
        peak = max(peak, _blob_store_bytes(git_project))
    assert cap * 0.5 < peak <= cap
    recorded = (git_project / ".ccstate" / "ledger" / "blobs.size").read_text().split()
    assert int(recorded[2]) == _blob_store_bytes(git_project)  # the size ledger is exact


# Claude Code's own read dedupe (#23): 2.1.91 answered a repeated Read itself; the PostToolUse
# payload then carries no file text, only {"type": "file_unchanged", "file": {"filePath"}}.


def test_claude_codes_file_unchanged_answer_is_never_a_delivery(git_project: Path) -> None:
    target, payload = _body_file(git_project)
    assert run_hook("PostToolUse", payload, cwd=git_project)[:3] == (0, None, "")  # Read #1
    stub = dict(payload, tool_use_id="toolu_stub")
    stub["tool_response"] = {"type": "file_unchanged", "file": {"filePath": str(target)}}
    assert run_hook("PostToolUse", stub, cwd=git_project) == (0, None, "", "")
    beat = heartbeat(git_project)["detail"]
    assert (beat["response_type"], beat["ledger"]) == ("file_unchanged", "full")
    assert beat["ledger_reason"] == "not a text read (file_unchanged)"
    state = json.loads(
        (git_project / ".ccstate/ledger/11111111-2222-3333-4444-555555555555/main.json").read_text()
    )
    assert [s[3] for s in state["paths"][str(target)]] == [1]  # only Read #1 delivered text
    assert state["stats"]["saved_chars"] == 0 and state["history"][-1]["n"] == 2
    # the text the context holds is still Read #1's: a later Read is answered from it
    payload["tool_use_id"] = "toolu_003"
    out = run_hook("PostToolUse", payload, cwd=git_project)[1]
    assert out is not None
    notice = out["hookSpecificOutput"]["updatedToolOutput"]["file"]["content"]
    assert "unchanged since your Read #1 " in notice


def test_a_stub_after_a_notice_is_not_answered_or_counted(git_project: Path) -> None:
    target, payload = _body_file(git_project)
    run_hook("PostToolUse", payload, cwd=git_project)
    payload["tool_use_id"] = "toolu_002"
    assert run_hook("PostToolUse", payload, cwd=git_project)[1] is not None  # the notice
    stub = dict(payload, tool_use_id="toolu_stub")
    stub["tool_response"] = {"type": "file_unchanged", "file": {"filePath": str(target)}}
    assert run_hook("PostToolUse", stub, cwd=git_project)[:3] == (0, None, "")
    state = json.loads(
        (git_project / ".ccstate/ledger/11111111-2222-3333-4444-555555555555/main.json").read_text()
    )
    assert state["pending"] is None  # the escape hatch is for the model's own repeat
    assert state["stats"]["identical"] == 1 and state["stats"]["full"] == 2
