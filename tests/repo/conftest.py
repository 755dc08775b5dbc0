"""The code index's tests run on a small git project (tests/code_project.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_project import make_code_project


@pytest.fixture
def code_project(tmp_path: Path) -> Path:
    return make_code_project(tmp_path)
