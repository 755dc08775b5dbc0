"""Drive the real `claude` interactively: a private tmux server, keys in, the screen out.

What only the interactive CLI shows (the status line, a hook's `systemMessage`, the `/model`
confirm dialog) is read from the screen (`capture-pane`). Time is faked with libfaketime: an
offset in a file that claude, its hooks, its status line and the fake API's cache simulator
all read, so "five minutes later" takes no five minutes.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

TMUX = shutil.which("tmux")
RULE = "\u2500" * 4  # the prompt box's borders
_FAKETIME_GLOBS = (
    "/usr/lib/*/faketime/libfaketime.so.1",
    "/usr/lib/faketime/libfaketime.so.1",
    "/usr/local/lib/faketime/libfaketime.so.1",
    "/usr/lib64/faketime/libfaketime.so.1",
)


def libfaketime() -> str | None:
    for pattern in _FAKETIME_GLOBS:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


class FakeClock:
    """Claude Code's clock, `offset` seconds ahead of the real one (libfaketime reads the file
    at every call: FAKETIME_NO_CACHE). Monotonic clocks are left alone, so timers still run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0.0
        self.set(0)

    def set(self, offset: float) -> None:
        self.offset = float(offset)
        self.path.write_text(f"+{int(offset)}\n")

    def now(self) -> float:
        return time.time() + self.offset

    def env(self) -> dict[str, str]:
        lib = libfaketime()
        if lib is None:
            raise RuntimeError("libfaketime is not installed (apt-get install faketime)")
        return {
            "LD_PRELOAD": lib,
            "FAKETIME_TIMESTAMP_FILE": str(self.path),
            "FAKETIME_NO_CACHE": "1",
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        }


def trust_home(home: Path, project: Path, api_key: str = "test-key") -> None:
    """~/.claude.json as after onboarding: theme chosen, the API key approved, the project's
    folder trusted (hooks and the status line run only in a trusted folder)."""
    state = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [api_key[-20:]], "rejected": []},
        "projects": {
            str(project.resolve()): {
                "hasTrustDialogAccepted": True,
                "hasCompletedProjectOnboarding": True,
            }
        },
    }
    (home / ".claude.json").write_text(json.dumps(state))


class Tmux:
    """One tmux server on a private socket, one session running one command."""

    def __init__(self, socket: Path, width: int = 120, height: int = 40) -> None:
        if TMUX is None:
            raise RuntimeError("tmux is not installed")
        self.socket = socket
        self.width, self.height = width, height

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(TMUX), "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=check,
        )

    def start(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> None:
        """Run `argv` in a fresh session with exactly `env` (nothing of this process's)."""
        assigns = [f"{k}={v}" for k, v in sorted(env.items())]
        command = shlex.join(["env", "-i", *assigns, *argv])
        size = ["-x", str(self.width), "-y", str(self.height)]
        self._tmux("new-session", "-d", "-s", "main", *size, "-c", str(cwd), command)

    def type(self, text: str, enter: bool = True) -> None:
        self._tmux("send-keys", "-t", "main", "-l", text)
        if enter:
            time.sleep(0.3)  # the prompt box takes the text before the key that sends it
            self._tmux("send-keys", "-t", "main", "Enter")

    def keys(self, *names: str) -> None:
        for name in names:
            self._tmux("send-keys", "-t", "main", name)
            time.sleep(0.2)

    def screen(self, ansi: bool = False) -> str:
        args = ["capture-pane", "-p", "-t", "main", *(["-e"] if ansi else [])]
        proc = self._tmux(*args, check=False)
        return proc.stdout

    def history(self) -> str:
        """The whole pane with its scrollback, lines joined where they wrapped."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "main", check=False).stdout

    def alive(self) -> bool:
        return self._tmux("has-session", "-t", "main", check=False).returncode == 0

    def wait_for(
        self, test: str | Callable[[str], bool], timeout: float = 60, what: str = ""
    ) -> str:
        """The screen (with scrollback) once `test` (a substring, or a predicate on it) holds;
        AssertionError with the last screen when it does not within `timeout` seconds."""
        check = (lambda text: test in text) if isinstance(test, str) else test
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.history()
            if check(text):
                return text
            if not self.alive():
                break
            time.sleep(0.25)
        raise AssertionError(f"waited {timeout:.0f} s for {what or test!r}; screen:\n{text}")

    def status_line(self) -> str:
        """The line under the prompt box: what the statusLine command printed."""
        lines = self.screen().rstrip("\n").split("\n")
        rules = [i for i, line in enumerate(lines) if line.startswith(RULE)]
        if len(rules) < 2:
            return ""
        below = [line.strip() for line in lines[rules[-1] + 1 :] if line.strip()]
        return below[0] if below else ""

    def close(self) -> None:
        if self.alive():
            self.type("/exit")
            deadline = time.monotonic() + 15
            while self.alive() and time.monotonic() < deadline:
                time.sleep(0.2)
        self._tmux("kill-server", check=False)
        with contextlib.suppress(OSError):
            os.unlink(self.socket)
