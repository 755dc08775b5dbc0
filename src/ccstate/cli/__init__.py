"""The `ccstate` command line: a thin click skin over the concern modules."""

from __future__ import annotations

import contextlib
import enum
import functools
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from ccstate import __version__, paths
from ccstate.errors import CcstateError

F = TypeVar("F", bound=Callable[..., Any])


class ExitStatus(enum.IntEnum):
    OK = 0
    ERROR = 1  # a CcstateError: bad input the user can fix, or lint findings
    USAGE = 2  # click's own usage errors
    UNEXPECTED = 3  # a bug: traceback logged, one line printed


class InputError(click.UsageError):
    """A bad option value in one line, `Error: <option>: <what is wrong>; <fix>`, exit 2 as
    click's usage errors: no usage block, the line names the option and says what to do."""

    def show(self, file: Any = None) -> None:
        click.echo(f"Error: {self.format_message()}", err=True)


def handle_errors(func: F) -> F:
    """Turn CcstateError into click's one-line `Error: …` and exit 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CcstateError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def _existing_dir(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """-C must name a directory that exists: a typo must not grow a project tree."""
    if value is None or value.is_dir():
        return value
    what = "is not a directory" if value.exists() else "does not exist"
    raise InputError(f"--project/-C: {value} {what}; pass the project's directory")


def project_option(func: F) -> F:
    return click.option(
        "--project",
        "-C",
        type=click.Path(path_type=Path),
        callback=_existing_dir,
        default=None,
        help="Project directory (default: nearest parent with .ccstate.yaml or .git).",
    )(func)


_resolved: list[Path] = []  # the project the running command resolved (for the error log)


def resolve_project(project: Path | None) -> Path:
    """The project root for `project` (default: the cwd); warns once about unknown config keys."""
    root = paths.find_project_root(project or Path.cwd())
    _resolved[:] = [root]
    warn_config(root)
    return root


_warned: set[Path] = set()


def warn_config(root: Path) -> None:
    """`warning: .ccstate.yaml: unknown key 'x' is ignored` on stderr, once per process.

    A config that does not load is left to the commands that read it (they fail with
    the file, key and fix) and to `doctor`; commands that do not need it still run.
    """
    from ccstate import config
    from ccstate.errors import ConfigError

    if root in _warned:
        return
    _warned.add(root)
    try:
        warnings = config.load_cached(root).warnings
    except ConfigError:
        return
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


# command name -> module in ccstate.cli that registers it on `cli` when imported. Commands
# load lazily: `ccstate report` should not pay for importing lint, git or tiktoken code.
COMMAND_MODULES: dict[str, str] = {
    "decide": "decisions_cmd",
    "decisions": "decisions_cmd",
    "doctor": "doctor_cmd",
    "find": "find_cmd",
    "handoff": "handoff_cmd",
    "init": "init_cmd",
    "lint": "lint_cmd",
    "map": "map_cmd",
    "recall": "recall_cmd",
    "replay": "replay_cmd",
    "report": "report_cmd",
    "split": "split_cmd",
    "statusline": "statusline_cmd",
}


class LazyGroup(click.Group):
    """A click group that imports a command's module only when that command runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMAND_MODULES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(f"ccstate.cli.{COMMAND_MODULES[cmd_name]}")
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ccstate")
def cli() -> None:
    """Keep a Claude Code project's working state outside the context window.

    \b
    Example:
        ccstate init      # wire this project's hooks and settings
        ccstate doctor    # check that everything is in place
    """


@contextlib.contextmanager
def error_handler() -> Iterator[None]:
    """Anything unexpected: one line on stderr, the traceback in the log, exit 3."""
    try:
        yield
    except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
        raise
    except Exception as exc:
        import traceback

        project = _resolved[0] if _resolved else paths.find_project_root(Path.cwd())  # -C
        log = paths.state_dir(project) / "logs" / "cli.log"
        trace, message = traceback.format_exc(), f"{type(exc).__name__}: {exc}"
        try:  # an exception's text can quote what it failed on (#23)
            from ccstate.secrets import redact

            redactor = redact.for_project(project)
            trace, message = redactor.redact(trace), redactor.redact(message)
        except Exception:
            trace, message = f"{type(exc).__name__} (text withheld: redaction failed)\n", ""
        with contextlib.suppress(OSError):
            from ccstate import store

            store.ensure_private_dir(log.parent)
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, store.PRIVATE_FILE_MODE)
            with os.fdopen(fd, "a", encoding="utf-8") as fh:
                fh.write(trace)
        click.echo(f"An unexpected error has occurred: {message or type(exc).__name__}", err=True)
        click.echo(f"Check the log at {log}", err=True)
        sys.exit(ExitStatus.UNEXPECTED)


# A command that has written all its output may skip the interpreter's teardown: freeing every
# module and object costs `ccstate report` 10-20 ms, a tenth of its run on the public corpus
# (bench/bench_report.py). Only `main` (the console script) acts on it, never a CliRunner.
_fast_exit = False


def request_fast_exit() -> None:
    """Exit with `os._exit` once the command returns: for commands that hold no resources
    (no locks, temporary files or child processes) after their output is written."""
    global _fast_exit
    _fast_exit = True


def main() -> None:
    try:
        with error_handler():
            cli(standalone_mode=True)
    except SystemExit as exc:
        if _fast_exit and (exc.code is None or isinstance(exc.code, int)):
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except OSError:  # a closed pipe: let the normal exit report it
                raise exc from None
            os._exit(exc.code or 0)
        raise


WIDTH_WHEN_PIPED = 140  # text output to a file, a pipe or an agent, unless $COLUMNS says


def output_width() -> int:
    """The width text output fits (#40): $COLUMNS, else the terminal's, else WIDTH_WHEN_PIPED
    (what rich's consoles get in `tables.make_console`)."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        import shutil

        return shutil.get_terminal_size().columns
    return WIDTH_WHEN_PIPED


def echo_json(data: Any) -> None:
    """`--json` output: plain JSON on stdout, keys sorted, nothing else."""
    click.echo(json.dumps(data, indent=2, sort_keys=True))


def load_all_commands() -> None:
    """Import every command module (for tests and docs; the CLI itself loads lazily)."""
    for module in sorted(set(COMMAND_MODULES.values())):
        importlib.import_module(f"ccstate.cli.{module}")


__all__ = [
    "InputError",
    "cli",
    "echo_json",
    "handle_errors",
    "load_all_commands",
    "main",
    "output_width",
    "project_option",
    "request_fast_exit",
    "resolve_project",
    "warn_config",
]
