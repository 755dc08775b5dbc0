"""`ccstate-statusline` (and `ccstate statusline`): Claude Code's status-line JSON on stdin,
one line on stdout (docs/MOMENTS.md).

    ctx 41% · cache warm 3:12 · kept out 18.4k tok · $2.31
    cache cold (idle 47m) · next turn re-writes ~217k tok ≈ $1.36 · last miss: 5m TTL expired

Claude Code runs it after every assistant message and every `refreshInterval` seconds, so
it imports the standard library only (no argparse: it brings `re`), writes nothing, and
whatever goes wrong prints a short neutral line and exits 0.

Options: --format TEXT (fields as {name}; --help lists them), --segment (the cache and
kept-out parts alone, plain, for another status-line tool's custom-command widget),
--width N, --color auto|always|never (NO_COLOR is honoured; auto colours when stdout is a
terminal or Claude Code runs it, unless TERM is dumb).
"""

from __future__ import annotations

import os
import sys
import time

from ccstate import config, fastjson, paths
from ccstate.moments import cache as cache_mod
from ccstate.moments import kept, line
from ccstate.moments import rates as rates_mod

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, TextIO

NEUTRAL = "ccstate"  # what a payload with nothing usable in it shows
INDENT = 2  # columns Claude Code 2.1.328/2.1.332 put before the status line
DEFAULT_COLUMNS = 80
COLOR_CHOICES = ("auto", "always", "never")


class UsageError(ValueError):
    """A bad command-line option; the line says what is wrong (exit status stays 0)."""


class Options:
    __slots__ = ("color", "format", "help", "segment", "width")

    def __init__(self) -> None:
        self.format: str | None = None
        self.segment = False
        self.width: int | None = None
        self.color = "auto"
        self.help = False


def parse_args(argv: Sequence[str]) -> Options:
    opts = Options()
    args = list(argv)
    while args:
        arg = args.pop(0)
        name, eq, inline = arg.partition("=")
        if name in ("--format", "--width", "--color"):
            if not eq:
                if not args:
                    raise UsageError(f"{name} needs a value")
                inline = args.pop(0)
            _set(opts, name, inline)
        elif arg == "--segment":
            opts.segment = True
        elif arg == "--no-color":
            opts.color = "never"
        elif arg in ("-h", "--help"):
            opts.help = True
        else:
            raise UsageError(f"unknown option {arg!r} (see --help)")
    return opts


def _set(opts: Options, name: str, value: str) -> None:
    if name == "--format":
        opts.format = value
    elif name == "--width":
        if not value.isdigit() or not 10 <= int(value) <= 1000:
            raise UsageError(f"--width must be a whole number from 10 to 1000 (got {value!r})")
        opts.width = int(value)
    else:
        if value not in COLOR_CHOICES:
            raise UsageError(f"--color must be one of {', '.join(COLOR_CHOICES)} (got {value!r})")
        opts.color = value


def render(
    text: str, opts: Options, environ: Mapping[str, str], now: float, *, tty: bool = False
) -> str:
    """The line for one status-line payload (never raises for any payload)."""
    payload = _payload(text)
    if payload is None:
        return NEUTRAL
    project = _project(payload)
    state = paths.state_dir_str(project, environ) if project else ""
    cfg = config.load_for_hook(project, state, write_cache=False) if project else config.Config()
    if not cfg.get("moments.statusline.enabled"):
        return ""
    fmt = opts.format if opts.format is not None else str(cfg.get("moments.statusline.format"))
    try:
        parts = line.parse_format(fmt) if fmt else None
    except line.FormatError as exc:
        where = "--format" if opts.format is not None else ".ccstate.yaml moments.statusline.format"
        return _cut(f"ccstate: {where}: {exc}", _width(opts, payload, environ))
    view = cache_mod.view(payload, now, environ)
    session = payload.get("session_id")
    transcript = payload.get("transcript_path")
    applied = (
        kept.session_kept(state, session, transcript)
        if state and isinstance(session, str) and isinstance(transcript, str)
        else None
    )
    vals = line.values(payload, view, applied, _card(payload, cfg, project, now))
    width = _width(opts, payload, environ)
    if parts is not None:
        pieces = line.fit_format(vals, parts, width)
    else:
        pieces = line.fit_segments(vals, line.default_layout(view, segment=opts.segment), width)
    if not pieces:
        return "" if opts.segment else NEUTRAL
    return line.paint(pieces, _colour(opts, environ, tty))


def _payload(text: str) -> Mapping[str, Any] | None:
    if not text.strip():
        return None
    try:
        data = fastjson.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _project(payload: Mapping[str, Any]) -> str:
    """The project root ccstate keeps this session's state under; "" when there is none."""
    workspace = payload.get("workspace")
    start = workspace.get("project_dir") if isinstance(workspace, dict) else None
    if not isinstance(start, str) or not start:
        start = payload.get("cwd")
    if not isinstance(start, str) or not start or not os.path.isabs(start):
        return ""
    root = paths.find_project_root_str(start)
    return "" if paths.is_filesystem_root(root) else root


def _card(
    payload: Mapping[str, Any], cfg: config.Config, project: str, now: float
) -> rates_mod.Card | None:
    model = payload.get("model")
    model_id = model.get("id") if isinstance(model, dict) else None
    if not isinstance(model_id, str):
        return None
    override = str(cfg.get("report.pricing"))
    if override and project and not os.path.isabs(override):
        override = os.path.join(project, override)
    today = time.strftime("%Y-%m-%d", time.gmtime(now))
    return rates_mod.card(model_id, today=today, override=override)


def _width(opts: Options, payload: Mapping[str, Any], environ: Mapping[str, str]) -> int:
    if opts.width is not None:
        return opts.width
    given = payload.get("terminal_width")  # what ccstatusline's custom-command widget adds
    if isinstance(given, int) and not isinstance(given, bool) and given > 0:
        return given
    columns = environ.get("COLUMNS", "")
    total = int(columns) if columns.isdigit() and int(columns) > 0 else DEFAULT_COLUMNS
    return max(10, total - INDENT)


def _colour(opts: Options, environ: Mapping[str, str], tty: bool) -> bool:
    if opts.color != "auto":
        return opts.color == "always"
    if environ.get("NO_COLOR") or environ.get("TERM", "") in ("", "dumb"):
        return False
    if opts.segment:
        return False  # a widget host strips or re-colours it: plain unless asked
    return tty or environ.get("CLAUDECODE") == "1"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + line.ELLIPSIS


def usage() -> str:
    names = "\n".join(f"  {{{name}}}  {what}" for name, what in line.FIELDS.items())
    doc = __doc__ or ""
    return doc.strip() + "\n\nFields for --format:\n" + names.replace("`", "")


def run(argv: Sequence[str], stdin: TextIO, stdout: TextIO, environ: Mapping[str, str]) -> int:
    """Print the line; exit status 0 whatever happens (Claude Code shows stdout only)."""
    try:
        try:
            opts = parse_args(argv)
        except UsageError as exc:
            stdout.write(f"ccstate-statusline: {exc}\n")
            return 0
        if opts.help:
            stdout.write(usage() + "\n")
            return 0
        text = stdin.read()
        out = render(text, opts, environ, time.time(), tty=_isatty(stdout))
    except Exception:
        out = NEUTRAL
    if out:
        stdout.write(out + "\n")
    return 0


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def main(argv: Sequence[str] | None = None) -> int:
    return run(sys.argv[1:] if argv is None else argv, sys.stdin, sys.stdout, os.environ)


if __name__ == "__main__":
    sys.exit(main())
