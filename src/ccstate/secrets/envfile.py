"""The values of a project's `.env` files worth hiding (rule 1 of `redact.py`): those of
secret-named keys, or any value that is not a plain word, number or credential-free URL.

Top-level `.env*` files only, regular files only (a FIFO named `.env` never blocks), at most
`_ENV_MAX_FILES` of them and `_ENV_MAX_BYTES` of each.
"""

from __future__ import annotations

import re

from ccstate.secrets.shapes import HARMLESS_VALUE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

ENV_FILE_GLOB = ".env*"
ENV_MIN_CHARS = 6  # shorter .env values (ports, flags) would redact ordinary words
_ENV_LINE = r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$"
_ENV_SECRETISH_NAME = r"(?i)key|secret|token|pass|pwd|auth|credential|private|dsn"
_PLAIN_WORD = r"^[a-z][a-z0-9_-]*$|^\d+(?:\.\d+)*$|^https?://[^@\s]*$"
_ENV_MAX_FILES = 20
_ENV_MAX_BYTES = 256 * 1024


def env_values(texts: Iterable[str]) -> list[str]:
    """Values in `.env`-style texts worth hiding: secret-named keys, or any non-plain word."""
    values: list[str] = []
    for text in texts:
        for line in text.splitlines():
            match = re.match(_ENV_LINE, line)
            if not match or line.lstrip().startswith("#"):
                continue
            name, value = match.group(1), _unquote(match.group(2))
            if len(value) < 4 or re.match(HARMLESS_VALUE, value):
                continue
            if re.search(_ENV_SECRETISH_NAME, name) or (
                len(value) >= ENV_MIN_CHARS and not re.match(_PLAIN_WORD, value)
            ):
                values.append(value)
    return values


def _unquote(value: str) -> str:
    if " #" in value and not value.startswith(("'", '"')):
        value = value.split(" #", 1)[0].rstrip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def env_files(project: Path) -> list[Path]:
    """The project's `.env`, `.env.local`, `.env.production`, ... (top level, files only)."""
    try:
        found = sorted(p for p in project.glob(ENV_FILE_GLOB) if p.is_file())
    except OSError:
        return []
    return found[:_ENV_MAX_FILES]


def project_values(project: Path) -> list[str]:
    """`env_values` of the project's `.env` files (`env_files`), each read without blocking."""
    import os
    import stat

    texts = []
    for path in env_files(project):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO named .env never blocks
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                texts.append(os.read(fd, _ENV_MAX_BYTES).decode("utf-8", "replace"))
        except OSError:
            pass
        finally:
            os.close(fd)
    return env_values(texts)
