"""`ccstate statusline`: the same line as `ccstate-statusline`, with click's errors."""

from __future__ import annotations

import json
import time
from pathlib import Path

from click.testing import CliRunner

from ccstate.cli import cli


def payload(project: Path) -> str:
    cache = {"warm": True, "caching_observed": True, "ttl": "1h", "expires_at": time.time() + 1800}
    return json.dumps({"cwd": str(project), "prompt_cache": cache, "cost": {"total_cost_usd": 1}})


def test_the_line_and_the_fields_in_help(git_project: Path) -> None:
    result = CliRunner().invoke(cli, ["statusline", "--width", "80"], input=payload(git_project))
    assert result.exit_code == 0
    assert result.stdout.startswith("cache warm 29:") and result.stdout.endswith(" · $1.00\n")
    helped = CliRunner().invoke(cli, ["statusline", "--help"])
    assert "{rewrite_usd}" in helped.stdout and "--segment" in helped.stdout


def test_a_bad_format_is_a_usage_error_naming_the_field(git_project: Path) -> None:
    result = CliRunner().invoke(cli, ["statusline", "--format", "{x}"], input=payload(git_project))
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: --format: unknown field {x}; fields: model, ctx")


def test_garbage_is_the_neutral_line() -> None:
    result = CliRunner().invoke(cli, ["statusline"], input="not json")
    assert (result.exit_code, result.stdout) == (0, "ccstate\n")
