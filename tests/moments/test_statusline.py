"""`ccstate-statusline` run as Claude Code runs it: a process, the status JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ccstate.report import applied
from helpers import hook_env, make_payload, run_hook
from report.test_applied import session_records, write

SESSION = "11111111-2222-3333-4444-555555555555"
SCRIPT = Path(sys.executable).with_name("ccstate-statusline")


def status_payload(project: Path, **extra: object) -> dict:
    payload = {
        "session_id": SESSION,
        "transcript_path": str(project / "missing.jsonl"),
        "cwd": str(project),
        "workspace": {"current_dir": str(project), "project_dir": str(project)},
        "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
        "version": "2.1.332",
        "cost": {"total_cost_usd": 2.31},
        "context_window": {
            "total_input_tokens": 410_000,
            "total_output_tokens": 12,
            "context_window_size": 1_000_000,
            "used_percentage": 41,
        },
        "prompt_cache": {
            "warm": True,
            "caching_observed": True,
            "ttl": "5m",
            "expires_at": int(time.time()) + 200,
            "requests": 4,
            "misses": 0,
            "hit_ratio": 0.93,
            "recache_tokens_if_cold": 217_000,
            "last_miss_cause": None,
        },
    }
    payload.update(extra)
    return payload


def statusline(
    stdin: str | dict,
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    text = stdin if isinstance(stdin, str) else json.dumps(stdin)
    base = hook_env(COLUMNS="120", TERM="xterm-256color")
    for name in ("NO_COLOR", "CLAUDECODE"):
        base.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "ccstate.moments.statusline", *args],
        input=text,
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        cwd=cwd,
        timeout=30,
    )


def tree(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if ".git" not in p.parts
    }


@pytest.mark.parametrize(
    "stdin",
    ["", "   \n", "garbage", "[]", "null", '{"session_id": ', '{"session_id": 1, "cwd": 2}', "{}"],
)
def test_bad_input_gives_a_short_neutral_line(stdin: str, git_project: Path) -> None:
    proc = statusline(stdin, cwd=git_project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ccstate\n", "")


def test_a_partial_payload_shows_what_it_has(git_project: Path) -> None:
    proc = statusline({"cost": {"total_cost_usd": 0.5}, "cwd": str(git_project)}, cwd=git_project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "$0.50\n", "")


def test_warm_line_and_nothing_written(git_project: Path) -> None:
    before = tree(git_project)
    proc = statusline(status_payload(git_project), cwd=git_project)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.count("\n") == 1
    head, _, rest = proc.stdout.strip().partition("cache warm ")
    assert head == "ctx 41% · "
    minutes, seconds = rest.split(" ")[0].split(":")
    assert 180 <= int(minutes) * 60 + int(seconds) <= 200
    assert proc.stdout.strip().endswith(" · $2.31")
    assert tree(git_project) == before  # no state dir, no cache, no heartbeat


def test_cold_line_prices_the_rewrite(git_project: Path) -> None:
    cache = {**status_payload(git_project)["prompt_cache"], "warm": False}
    cache["expires_at"] = int(time.time()) - 47 * 60 + 300
    cache["last_miss_cause"] = {"causes": ["model_changed"]}
    proc = statusline(status_payload(git_project, prompt_cache=cache), cwd=git_project)
    assert proc.stdout.startswith(
        "cache cold (idle 47m) · next turn re-writes ~217k tok ≈ $1.08 · last miss: model switch"
    )


def test_older_cli_without_prompt_cache_infers_from_the_transcript(git_project: Path) -> None:
    transcript = git_project / "t.jsonl"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() - 100))
    usage = {"input_tokens": 5, "cache_read_input_tokens": 9000, "cache_creation_input_tokens": 995}
    record = {"type": "assistant", "timestamp": stamp, "message": {"model": "m", "usage": usage}}
    transcript.write_text(json.dumps(record) + "\n")
    payload = status_payload(git_project, transcript_path=str(transcript))
    del payload["prompt_cache"]
    proc = statusline(payload, cwd=git_project)
    assert "cache ≈warm 3:" in proc.stdout or "cache ≈warm 2:" in proc.stdout


def test_width_comes_from_columns_or_the_widget_host(git_project: Path) -> None:
    payload = status_payload(git_project)
    narrow = statusline(payload, cwd=git_project, env={"COLUMNS": "30"})
    assert len(narrow.stdout.rstrip("\n")) <= 28
    widget = statusline({**payload, "terminal_width": 20}, cwd=git_project)
    assert len(widget.stdout.rstrip("\n")) <= 20
    assert len(statusline(payload, "--width", "15", cwd=git_project).stdout.rstrip("\n")) <= 15


def test_colour_under_claude_code_unless_no_color_or_dumb(git_project: Path) -> None:
    payload = status_payload(git_project)
    assert "\x1b[" not in statusline(payload, cwd=git_project).stdout  # a pipe, not Claude Code
    assert "\x1b[32m" in statusline(payload, cwd=git_project, env={"CLAUDECODE": "1"}).stdout
    no_color = {"CLAUDECODE": "1", "NO_COLOR": "1"}
    assert "\x1b[" not in statusline(payload, cwd=git_project, env=no_color).stdout
    dumb = {"CLAUDECODE": "1", "TERM": "dumb"}
    assert "\x1b[" not in statusline(payload, cwd=git_project, env=dumb).stdout
    assert "\x1b[" in statusline(payload, "--color", "always", cwd=git_project).stdout
    segment = statusline(payload, "--segment", cwd=git_project, env={"CLAUDECODE": "1"})
    assert "\x1b[" not in segment.stdout and "ctx" not in segment.stdout


def test_options_errors_are_one_line_and_exit_0(git_project: Path) -> None:
    for args in (["--width", "x"], ["--color", "pink"], ["--bogus"], ["--format"]):
        proc = statusline(status_payload(git_project), *args, cwd=git_project)
        assert proc.returncode == 0 and proc.stdout.startswith("ccstate-statusline: ")
        assert proc.stdout.count("\n") == 1
    bad = statusline(status_payload(git_project), "--format", "{nope}", cwd=git_project)
    assert bad.stdout.startswith("ccstate: --format: unknown field {nope}")
    assert "{cache}" in statusline("", "--help", cwd=git_project).stdout


def test_config_switches_and_formats_it(git_project: Path) -> None:
    config = git_project / ".ccstate.yaml"
    config.write_text("moments:\n  statusline:\n    format: '{cache_state} {kept_tokens}|{cost}'\n")
    assert statusline(status_payload(git_project), cwd=git_project).stdout == "warm |$2.31\n"
    config.write_text("moments:\n  statusline:\n    format: '{oops}'\n")
    out = statusline(status_payload(git_project), cwd=git_project, env={"COLUMNS": "200"}).stdout
    assert out.startswith("ccstate: .ccstate.yaml moments.statusline.format: unknown field {oops}")
    config.write_text("moments:\n  statusline:\n    enabled: false\n")
    proc = statusline(status_payload(git_project), cwd=git_project)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert not (git_project / ".ccstate").exists()  # a parsed config is not cached


def test_kept_out_is_the_reports_applied_figure_from_the_stop_hooks_counter(
    git_project: Path,
) -> None:
    """The Stop hook counts the transcript (a notice, a digest...); the line shows that figure,
    the one `ccstate report` credits, with `≥` once something ccstate wrote comes after the
    bytes it counted, and nothing without a counter for this session and transcript."""
    records = session_records()
    main = write(git_project / "transcript.jsonl", records)
    payload = status_payload(git_project, transcript_path=str(main))
    assert statusline(payload, "--format", "{kept}|", cwd=git_project).stdout == "|\n"
    run_hook("Stop", make_payload("Stop", git_project, session_id=SESSION), cwd=git_project)
    expected = applied.kept_out_as_applied(records, main.name).tokens
    assert expected > 0
    figure = f"{expected}" if expected < 1000 else f"{expected / 1000:.1f}k"
    out = statusline(payload, "--format", "{kept}", cwd=git_project).stdout
    assert out == f"kept out {figure} tok\n"
    with main.open("a") as fh:  # the turn's end: nothing of ccstate's
        fh.write(json.dumps({"type": "system", "subtype": "turn_duration"}) + "\n")
    assert statusline(payload, "--format", "{kept}", cwd=git_project).stdout == out
    with main.open("a") as fh:  # a new notice the next Stop will count
        fh.write(json.dumps(records[-1]) + "\n")
    behind = statusline(payload, "--format", "{kept}", cwd=git_project).stdout
    assert behind == f"kept out ≥{figure} tok\n"
    for other in ({"session_id": "another"}, {"transcript_path": str(git_project / "x.jsonl")}):
        changed = status_payload(git_project, **{"transcript_path": str(main), **other})
        assert statusline(changed, "--format", "{kept}|", cwd=git_project).stdout == "|\n"


@pytest.mark.skipif(
    not SCRIPT.exists(), reason="ccstate-statusline is not installed (pip install -e .)"
)
def test_the_installed_script_is_the_same_line(git_project: Path) -> None:
    payload = status_payload(git_project)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(COLUMNS="120", TERM="xterm")
    proc = subprocess.run(
        [str(SCRIPT), "--format", "{cache_state} {cost}"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=git_project,
        timeout=30,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "warm $2.31\n", "")
