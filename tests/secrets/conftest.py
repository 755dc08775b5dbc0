"""The secrets tests share their samples (`from test_redact import AWS`): they import each
other as top-level modules, whatever pytest's import mode is."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
