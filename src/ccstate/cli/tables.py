"""Rich tables that stay readable at any width, in a terminal or piped (rich imported here).

Rich shrinks a table that is wider than the console by folding its flexible columns,
down to nothing: at 80 columns `ccstate replay` printed no file names at all. So a
table is printed as a table only when every column gets its full width (numbers,
headers) and each flexible column at least FLEX_MIN characters; otherwise each row
becomes a record: its first cell on a line, then `header value` pairs wrapped to the
width. Piped output (a file, `less`, `grep`) is WIDTH_WHEN_PIPED wide unless $COLUMNS
says otherwise, so it keeps one line per row.

Every command's text output goes through here (#40): a title on its own line, a few named
figures as a two-column table (`facts_table`) rather than a sentence, and a decision the
tool advises as its verdict, a table and one line of caveat (`print_decision`).
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ccstate.cli import WIDTH_WHEN_PIPED as WIDTH_WHEN_PIPED  # defined beside output_width

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ccstate.report.advice import Decision

FLEX_MIN = 16  # a folded file name or session id narrower than this is not readable
SEPARATOR = " · "


def make_console(**kwargs: Any) -> Console:
    """A Console; when piped and $COLUMNS is unset, WIDTH_WHEN_PIPED wide."""
    console = Console(**kwargs)
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        console = Console(width=WIDTH_WHEN_PIPED, **kwargs)
    return console


def print_table(console: Console, table: Table) -> None:
    """The title on its own line, then the table if it fits the console's width, else the
    same cells as stacked records. (Rich would wrap a title to the table's width, and pad
    it out to that width with spaces.)"""
    title, table.title = table.title, None
    try:
        if title:
            print_wrapped(console, title, "italic")
        if needed_width(table) <= console.width:
            console.print(table)
        else:
            print_records(console, table)
    finally:
        table.title = title


def print_wrapped(
    console: Console, line: str | Text, style: str = "", indent: str = "", hang: str = ""
) -> None:
    """One line of text (a title, a verdict, a caveat) wrapped at spaces to the console's
    width, each piece printed whole: rich's own wrap leaves a space at each line's end."""
    text = _text(line)
    wrap = textwrap.TextWrapper(
        console.width,
        initial_indent=indent,
        subsequent_indent=hang,
        break_long_words=False,
        break_on_hyphens=False,
    )
    pieces = wrap.wrap(text.plain) or [text.plain]
    for piece in pieces:
        console.print(Text(piece, style=text.style), style=style)


def needed_width(table: Table) -> int:
    """Columns at full width (flexible ones at FLEX_MIN or less), padding and borders."""
    total = 0
    for column in table.columns:
        full = max(_plain_width(cell) for cell in [column.header, *column.cells])
        if column.max_width is not None:
            full = min(full, column.max_width)
        if not column.no_wrap:  # rich may wrap or fold it, but not below a readable width
            full = min(full, max(FLEX_MIN, _plain_width(column.header)))
        total += full + 2  # the default padding: one space either side
    if table.box is not None:
        total += len(table.columns) - 1 + (2 if table.show_edge else 0)
    return total


def print_records(console: Console, table: Table) -> None:
    """Each row as `first cell` then indented `header value` pairs, wrapped to the width."""
    if table.title:
        print_wrapped(console, table.title, "italic")
    headers = [" ".join(_plain(column.header).split()) for column in table.columns]
    if not table.show_header:
        headers = [""] * len(headers)
    columns = [list(column.cells) for column in table.columns]
    for index, row in enumerate(table.rows):
        cells = [_plain(column[index]) if index < len(column) else "" for column in columns]
        console.print(Text(cells[0] or "-", style=row.style or ""))
        pairs = [
            f"{h} {c}".strip() for h, c in zip(headers[1:], cells[1:], strict=True) if c.strip()
        ]
        for line in _pack(pairs, console.width - 2):  # a longer pair wraps, further in
            print_wrapped(console, Text(line, style=row.style or ""), indent="  ", hang="    ")


def facts_table(title: str | Text, rows: Iterable[tuple[str, str | Text]]) -> Table:
    """A two-column table of `label value` rows, no header: a few figures with their names,
    where a sentence would bury them (#40)."""
    table = Table(title=title, show_header=False)
    table.add_column("what", no_wrap=True)
    table.add_column("value", overflow="fold")
    for label, value in rows:
        table.add_row(label, value)
    return table


def print_decision(console: Console, decision: Decision) -> None:
    """The verdict, the table (stacked records when it does not fit), one line of caveat."""
    print_wrapped(console, decision.verdict, "bold")
    if not decision.rows:
        return
    table = Table()
    for index, name in enumerate(decision.header):
        right = decision.numeric and index > 0
        table.add_column(name, justify="right" if right else "left", no_wrap=True)
    for index, row in enumerate(decision.rows):
        if index == decision.section and index:
            table.add_section()
        table.add_row(*row)
    print_table(console, table)
    print_wrapped(console, decision.caveat, "dim")


def _pack(pairs: Iterable[str], width: int) -> list[str]:
    """Greedy lines of pairs joined by SEPARATOR; a pair never splits across lines."""
    lines: list[str] = []
    for pair in pairs:
        if lines and len(lines[-1]) + len(SEPARATOR) + len(pair) <= width:
            lines[-1] += SEPARATOR + pair
        else:
            lines.append(pair)
    return lines


def _plain(cell: Any) -> str:
    if isinstance(cell, Text):
        return cell.plain
    return str(cell) if cell is not None else ""


def _text(cell: Any) -> Text:
    return cell if isinstance(cell, Text) else Text(str(cell))


def _plain_width(cell: Any) -> int:
    lines = _plain(cell).splitlines() or [""]
    return max(Text(line).cell_len for line in lines)
