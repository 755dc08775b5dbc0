"""Shared test helpers: run a hook as Claude Code does (subprocess, JSON on stdin)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# The shared material beside the repo (../shared; CCSTATE_SHARED names it elsewhere, e.g. for a
# git worktree); tests that need a corpus skip, saying so, when it is absent.
SHARED = Path(os.environ.get("CCSTATE_SHARED") or REPO.parent / "shared")
# 33 real transcripts, mostly Claude Code 1.0.x
PUBLIC = SHARED / "transcripts" / "public"
# 10 real transcripts, Claude Code 2.0.26-2.1.146: attachment, queue-operation, ai-title...
MODERN = SHARED / "transcripts" / "modern"


def corpus_absent(corpus: Path) -> str:
    """The skip reason for a test that needs `corpus`."""
    return f"{corpus} is absent (the shared corpus; CCSTATE_SHARED points elsewhere)"


# Where bytecode goes (scripts/test.sh keeps it out of the tree a plugin install copies):
# pass it on to subprocesses that get a minimal environment.
BYTECODE_ENV = {
    k: os.environ[k] for k in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE") if k in os.environ
}


def hook_env(**extra: str) -> dict[str, str]:
    """The current (isolated) environment, with ccstate importable from src/."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def run_hook(
    event: str,
    payload: dict[str, Any] | str,
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    argv: list[str] | None = None,
) -> tuple[int, Any, str, str]:
    """(returncode, parsed stdout or None, raw stdout, stderr)."""
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    cmd = argv or [sys.executable, "-m", "ccstate.hooks", event]
    proc = subprocess.run(
        cmd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env or hook_env(),
        cwd=cwd,
        timeout=30,
    )
    out = proc.stdout
    parsed = json.loads(out) if out.strip().startswith("{") else None
    return proc.returncode, parsed, out, proc.stderr


def make_payload(event: str, project: Path, **fields: Any) -> dict[str, Any]:
    """A payload with the common fields Claude Code 2.1.328 sends."""
    payload: dict[str, Any] = {
        "session_id": "11111111-2222-3333-4444-555555555555",
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
    }
    payload.update(fields)
    return payload


def read_payload(project: Path, file_path: Path, content: str) -> dict[str, Any]:
    """A PostToolUse payload for a whole-file Read of `file_path`."""
    lines = content.split("\n")
    return make_payload(
        "PostToolUse",
        project,
        tool_name="Read",
        tool_input={"file_path": str(file_path)},
        tool_use_id="toolu_001",
        tool_response={
            "type": "text",
            "file": {
                "filePath": str(file_path),
                "content": content,
                "numLines": len(lines),
                "startLine": 1,
                "totalLines": len(lines),
            },
        },
        duration_ms=3,
    )


def plugin_with_venv_python(root: Path, python_text: str) -> tuple[Path, dict[str, str]]:
    """A copy of the plugin under `root/plugin` (its src/ linked) whose private venv under
    `root/data` is marked ready and whose interpreter is the script `python_text`; and the
    environment Claude Code gives its hooks (no PYTHONPATH: the launcher finds src/ itself)."""
    import shutil

    from ccstate import paths, store
    from ccstate.install import bootstrap

    plugin, data = root / "plugin", root / "data"
    shutil.copytree(REPO / "hooks", plugin / "hooks")
    (plugin / "src").symlink_to(SRC)
    shutil.copy(REPO / "pyproject.toml", plugin / "pyproject.toml")
    python = paths.venv_python(paths.venv_dir(data))
    python.parent.mkdir(parents=True)
    python.write_text(python_text)
    python.chmod(0o755)
    marker = {"fingerprint": bootstrap.fingerprint(plugin), "python": str(python)}
    store.atomic_write_json(data / "venv.ready.json", marker)
    env = hook_env(CLAUDE_PLUGIN_ROOT=str(plugin), CLAUDE_PLUGIN_DATA=str(data))
    env.pop("PYTHONPATH")
    return plugin, env


# --------------------------------------------------------------------------- transcripts
# Records shaped as Claude Code 2.1 writes them (one content block per record).


def prompt_record(text: str, session: str = "s1", ts: str = "2026-03-01T10:00:00Z") -> dict:
    return {
        "type": "user",
        "sessionId": session,
        "gitBranch": "main",
        "timestamp": ts,
        "message": {"role": "user", "content": text},
    }


def text_record(text: str, session: str = "s1", ts: str = "2026-03-01T10:00:01Z") -> dict:
    return {
        "type": "assistant",
        "sessionId": session,
        "timestamp": ts,
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }


def tool_use_record(
    tool_id: str, name: str, tool_input: dict, session: str = "s1", ts: str = ""
) -> dict:
    block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
    return {
        "type": "assistant",
        "sessionId": session,
        "timestamp": ts or "2026-03-01T10:00:02Z",
        "message": {"role": "assistant", "content": [block]},
    }


def tool_result_record(
    tool_id: str, text: str, error: bool = False, session: str = "s1", ts: str = ""
) -> dict:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": error}
    return {
        "type": "user",
        "sessionId": session,
        "timestamp": ts or "2026-03-01T10:00:03Z",
        "message": {"role": "user", "content": [block]},
        "toolUseResult": {"stdout": text},
    }


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return path


# --------------------------------------------------------------------------- recall

MODEL_VOCAB = [
    "[UNK]",
    "retry",
    "backoff",
    "webhook",
    "client",
    "date",
    "parser",
    "##s",
    "exponential",
]
MODEL_VECTORS = [
    [0, 0, 0, 0],
    [1.0, 0, 0, 0],  # retry
    [0.95, 0.05, 0, 0],  # backoff: close to retry
    [0, 1.0, 0, 0],
    [0, 0.9, 0.1, 0],
    [0, 0, 1.0, 0],
    [0, 0, 0.9, 0.1],
    [0, 0, 0, 0.1],
    [0.9, 0, 0, 0.1],  # exponential
]


def make_static_model(folder: Path) -> Path:
    """A tiny static-embedding model in model2vec's layout (model.safetensors with an
    `embeddings` matrix, a WordPiece tokenizer.json, config.json): "backoff" sits next to
    "retry". Needs numpy."""
    import numpy as np

    folder.mkdir()
    data = np.array(MODEL_VECTORS, dtype=np.float32).tobytes()
    header = {
        "embeddings": {
            "dtype": "F32",
            "shape": [len(MODEL_VECTORS), 4],
            "data_offsets": [0, len(data)],
        }
    }
    raw = json.dumps(header).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw + data)
    tokenizer = {
        "model": {
            "type": "WordPiece",
            "vocab": {w: i for i, w in enumerate(MODEL_VOCAB)},
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
        },
        "normalizer": {"type": "BertNormalizer", "lowercase": True},
    }
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))
    (folder / "config.json").write_text(json.dumps({"normalize": True}))
    return folder


# --------------------------------------------------------------------------- install.sh


def plugin_copy_leftovers(names: set[str], root: Path) -> set[str]:
    """Of the git-ignored files `names` that a plugin install copies from the checkout `root`
    (Claude Code copies the whole tree but .git), those that must not be there: all but
    bytecode a developer's own python run left, `.ccstate/` (ccstate's state for this very
    repository) and `.claude/settings.json` when it holds nothing but ccstate's own hooks,
    which the README's first command writes (`bash install.sh` wires the repository it runs
    in). A plugin's hooks are read from hooks/hooks.json, never from its .claude/settings.json:
    that copy is inert (#23)."""
    from ccstate import paths
    from ccstate.install import wiring

    wiring_file = str(paths.project_settings_path(Path()).as_posix())
    left = {n for n in names if "__pycache__/" not in n and not n.startswith(".ccstate/")}
    if wiring_file in left:
        settings = json.loads((root / wiring_file).read_text(encoding="utf-8"))
        if wiring.wired_events(settings) and not wiring.remove_ours(settings):
            left.discard(wiring_file)
    return left


def venv_unavailable() -> str | None:
    """Why `python -m venv` can't work here, or None when it can."""
    probe = subprocess.run(
        [sys.executable, "-c", "import venv, ensurepip"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["import venv, ensurepip failed"])[-1]
        return f"{sys.executable} -m venv is unavailable: {last}"
    return None


def isolated_env(root: Path) -> dict[str, str]:
    """The caller's environment minus anything that points ccstate or Python elsewhere."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CCSTATE_", "CLAUDE_", "XDG_"))
        and key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}
    }
    env.update(
        HOME=str(root / "home"),
        XDG_DATA_HOME=str(root / "data"),
        CCSTATE_BIN_DIR=str(root / "bin"),
        CCSTATE_PYTHON=sys.executable,
        CCSTATE_VENV_ARGS="--system-site-packages",
    )
    return env


def run_install(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """install.sh as a user runs it (tests/test_install_sh.py, tests/e2e/test_team.py)."""
    return subprocess.run(
        ["bash", str(REPO / "install.sh"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
    )


def indexed(state: Path, files: list[Path]) -> Any:
    """A recall index in `state` over the transcripts `files` (redacted, no size bound): the
    open connection."""
    from ccstate.recall import index, sources, writer
    from ccstate.secrets import redact

    con = index.connect(state)
    srcs = [sources.transcript_source(f) for f in files]
    writer.update(con, srcs, redactor=redact.Redactor(), max_bytes=1 << 30)
    return con


class LookClock:
    """A stand-in for `time` in `transcript.lines`: monotonic() is before any deadline for
    the first `after` looks, past it from then on (a deadline that fires where a test says)."""

    def __init__(self, after: int) -> None:
        self.looks, self.after = 0, after

    def monotonic(self) -> float:
        self.looks += 1
        return 10.0 if self.looks > self.after else 0.0
