"""`ccstate statusline`: the status line from the command line (docs/MOMENTS.md).

Claude Code's settings run `ccstate-statusline`, the same code without click (this command's
imports alone take longer than the whole status line may); this one is for trying a payload,
a `--format`, or checking one.
"""

from __future__ import annotations

import os
import sys
import time

import click

from ccstate.cli import InputError, cli
from ccstate.moments import line
from ccstate.moments import statusline as sl


def _fields_help() -> str:
    return "\n".join(
        f"    {{{name}}}  {what.replace('`', '')}" for name, what in line.FIELDS.items()
    )


@cli.command(name="statusline", epilog="\b\nFields for --format:\n" + _fields_help())
@click.option("--format", "fmt", default=None, help="A line of {fields} (listed below).")
@click.option(
    "--segment",
    is_flag=True,
    help="Only the cache and kept-out parts, plain: for another status-line tool's "
    "custom-command widget (it passes the same stdin).",
)
@click.option("--width", type=click.IntRange(10, 1000), default=None, help="Columns to fit.")
@click.option(
    "--color",
    type=click.Choice(sl.COLOR_CHOICES),
    default="auto",
    show_default=True,
    help="auto: on a terminal or under Claude Code, unless NO_COLOR is set or TERM is dumb.",
)
def statusline_cmd(fmt: str | None, segment: bool, width: int | None, color: str) -> None:
    """Read Claude Code's status-line JSON on stdin; print one line.

    \b
    Example:
        ccstate statusline < payload.json
        ccstate statusline --format '{cache} · {kept}' < payload.json
        ccstate statusline --segment < payload.json
    """
    if fmt is not None:
        try:
            line.parse_format(fmt)
        except line.FormatError as exc:
            raise InputError(f"--format: {exc}") from exc
    opts = sl.Options()
    opts.format, opts.segment, opts.width, opts.color = fmt, segment, width, color
    text = sys.stdin.read()
    out = sl.render(text, opts, os.environ, time.time(), tty=sys.stdout.isatty())
    if out:
        click.echo(out)
