"""What filled a context: tool results by tool, first reads vs re-reads, Bash re-prints, and
ccstate's own injections, notices, output digests and the savings they realised (pure;
standard library only). A saving counts only when the transcript shows it applied: the
replaced Read or tool result itself (a notice, a digest's closing line, a Read showing just
the lines a note names), never a note alone (#24). Claude Code's own "file unchanged" answers
to repeated Reads are its saving, counted apart (`cc_*`).

Sizes are characters; reports turn them into estimated tokens (chars / 4). A *context* is
one thread (the main thread, or one subagent) within one *epoch* (up to a compaction), the
unit in which the model can still see what it was given. Definitions: docs/REPORT.md.
"""

from __future__ import annotations

import os
import re
import shlex
from collections import Counter
from typing import Any, NamedTuple

from ccstate.ledger.text import CC_STUB_PREFIXES

# Read kinds. "first": the thread never read the path; "after_compaction": only in an earlier
# epoch; the three re-read kinds: the path was already delivered in this epoch, with the same
# range and identical text / the same range and different text / another range; "ccstate": a
# result the read ledger replaced; "claude_code": Claude Code's own "file unchanged" answer.
READ_KINDS = (
    "first",
    "after_compaction",
    "identical",
    "changed",
    "other_range",
    "ccstate",
    "claude_code",
)
WRITE_TOOLS = ("Write", "Edit", "MultiEdit")
REREAD_KINDS = ("identical", "changed", "other_range")
_NOTICE_HEAD = 512  # characters of a Read result that can hold the start of a notice
BASH_REPRINT_MIN_CHARS = 200  # identical short outputs ("ok", "") are not re-prints
_PRINTERS = frozenset({"cat", "head", "tail", "nl", "less", "more", "bat", "sed"})
_SPLIT = re.compile(r"\|\||&&|[|;&\n]")
_SHELL_SPACE = re.compile(r"[ \t\r\n]+")  # shlex's whitespace, not str.split's
_ANY_PRINTER = re.compile(r"\b(?:" + "|".join(sorted(_PRINTERS)) + r")\b")
_UNSEEN = re.compile(r"shows only lines (\d+)-(\d+) of the (\d+)-(\d+) you asked for")
# The closing line of a tool-output digest (outputs/core.py `with_handle`; a test keeps the two
# equal): the original's size is in it.
DIGEST_TAG = "[ccstate: digest of "
_DIGEST = re.compile(r"\[ccstate: digest of ([\d,]+) lines, ([\d,]+) chars \(")
_DIGEST_TAIL = 1024  # characters at the end of a result that can hold the closing line


# `ccstate report` imports this module before it forks its workers, so its classes are plain
# ones: a dataclass costs about 0.5 ms to create, and the 21-field one below several.
COUNTERS = (
    "tool_count",
    "tool_chars",
    "read_count",
    "read_chars",
    "reread_files",
    "reread_file_chars",
    "attached_count",  # by kind: what Claude Code attached itself (2.1.x `attachment` records)
    "attached_chars",
)
# Attachment records (2.1.x) whose content the model gets, by the kind the report shows:
# files (a compaction's re-attached Reads, @-mentions), instruction files that load on the
# way (nested CLAUDE.md, rules), hooks' additional context, an edited file's changed lines,
# prompts typed while Claude worked, the todo list reminder, skill and MCP listings.
ATTACHED_KINDS = {
    "file": "files",
    "compact_file_reference": "files",
    "nested_memory": "instruction files",
    "hook_additional_context": "hook context",
    "edited_text_file": "edited-file snippets",
    "queued_command": "queued prompts",
    "task_reminder": "todo reminders",
    "todo_reminder": "todo reminders",
    "skill_listing": "skill and tool listings",
    "mcp_instructions_delta": "skill and tool listings",
    "deferred_tools_delta": "skill and tool listings",
}
TOTALS = (
    "error_count",
    "bash_reprints",
    "bash_reprint_chars",
    "injections",
    "injection_chars",
    "injection_char_calls",  # chars x later API calls that carried them
    "notes",  # ledger notes in additionalContext: diffs, "only lines A-B shown"
    "note_chars",
    "note_char_calls",
    "notices",
    "notice_chars",
    "partial_reads",  # Reads ccstate cut to the lines a note names (applied)
    "digests",  # tool outputs ccstate replaced by a digest
    "digest_chars",
    "digest_saved_chars",
    "saved_chars",
    "saved_char_calls",
    "compact_summaries",
    "compact_summary_chars",
    "cc_stubs",  # Claude Code's own answers to repeated Reads
    "cc_saved_chars",  # ... and what they kept out (its saving, not ccstate's)
    "cc_saved_char_calls",
)


class Composition:
    """Counters for one or more contexts (`COUNTERS` by tool, kind or path; `TOTALS`);
    `merge` adds another one in."""

    tool_count: Counter[str]
    tool_chars: Counter[str]
    read_count: Counter[str]
    read_chars: Counter[str]
    reread_files: Counter[str]
    reread_file_chars: Counter[str]
    attached_count: Counter[str]
    attached_chars: Counter[str]
    error_count: int
    bash_reprints: int
    bash_reprint_chars: int
    injections: int
    injection_chars: int
    injection_char_calls: int
    notes: int
    note_chars: int
    note_char_calls: int
    notices: int
    notice_chars: int
    partial_reads: int
    digests: int
    digest_chars: int
    digest_saved_chars: int
    saved_chars: int
    saved_char_calls: int
    compact_summaries: int
    compact_summary_chars: int
    cc_stubs: int
    cc_saved_chars: int
    cc_saved_char_calls: int

    def __init__(self) -> None:
        for name in COUNTERS:
            setattr(self, name, Counter())
        for name in TOTALS:
            setattr(self, name, 0)

    def merge(self, other: Composition) -> None:
        for name in COUNTERS:
            getattr(self, name).update(getattr(other, name))
        for name in TOTALS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Composition) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"Composition({vars(self)!r})"


class _Delivery(NamedTuple):
    range_key: tuple[Any, Any]
    digest: int
    chars: int
    lines: int


class Thread:
    """What one context (main thread or one subagent) has been given in its current epoch."""

    __slots__ = (
        "calls",
        "delivered",
        "epoch",
        "outputs",
        "printed",
        "printed_chars",
        "seen_before",
        "sizes",
    )

    def __init__(self) -> None:
        self.epoch = 0
        self.calls = 0  # API calls so far in this epoch
        self.delivered: dict[str, list[_Delivery]] = {}
        self.seen_before: set[str] = set()  # paths read in earlier epochs
        self.printed: set[str] = set()
        self.printed_chars: dict[str, int] = {}  # path -> size of its last one-file shell read
        self.outputs: set[int] = set()
        # path -> (chars, lines) of the whole file as a Read shows it, when the context's own
        # Write or Edit last set it (what a notice after it keeps out)
        self.sizes: dict[str, tuple[int, int]] = {}

    def new_epoch(self) -> None:
        self.seen_before.update(self.delivered)
        self.delivered = {}
        self.printed = set()
        self.printed_chars = {}
        self.sizes = {}
        self.outputs = set()
        self.epoch += 1
        self.calls = 0


class Tracker:
    """Feeds tool results and injections of one transcript into a Composition."""

    def __init__(
        self, notice_prefixes: tuple[str, ...], capsule_header: str, note_tag: str = "[ccstate]"
    ) -> None:
        self.notice_prefixes = notice_prefixes
        self.capsule_header = capsule_header
        self.note_tag = note_tag
        self.comp = Composition()
        self.threads: dict[str, Thread] = {}
        # (thread, epoch, calls at the time, chars, kind) settled into char-calls by `finish`
        self._pending: list[tuple[str, int, int, int, str]] = []
        self._final_calls: dict[tuple[str, int], int] = {}
        # (thread, path, kind, first line shown, lines shown) of the latest Read
        self._last_read: tuple[str, str, str, int, int] | None = None

    def thread(self, key: str) -> Thread:
        found = self.threads.get(key)
        if found is None:
            found = self.threads[key] = Thread()
        return found

    def api_call(self, key: str) -> None:
        self.thread(key).calls += 1

    def compaction(self, key: str) -> None:
        ctx = self.thread(key)
        self._final_calls[(key, ctx.epoch)] = ctx.calls
        ctx.new_epoch()

    def injection(self, key: str, text: str) -> None:
        """Text ccstate put into the context (its SessionStart capsule)."""
        ctx = self.thread(key)
        self.comp.injections += 1
        self.comp.injection_chars += len(text)
        self._pending.append((key, ctx.epoch, ctx.calls, len(text), "injection"))

    def note(self, key: str, text: str) -> None:
        """A read-ledger note ccstate added as context (a diff, or which lines it left out).

        "shows only lines A-B of the C-D you asked for" also tells what it kept out: the
        omitted lines, estimated at the average line length of the path's last delivery.
        """
        ctx = self.thread(key)
        self.comp.notes += 1
        self.comp.note_chars += len(text)
        self._pending.append((key, ctx.epoch, ctx.calls, len(text), "note"))
        match = _UNSEEN.search(text)
        if match is None:
            return
        shown_from, shown_to, asked_from, asked_to = (int(g) for g in match.groups())
        omitted = (asked_to - asked_from) - (shown_to - shown_from)
        path = _resolve(text[len(self.note_tag) :].split(":")[0].strip(), "")
        prior = ctx.delivered.get(path)
        if not prior or omitted <= 0:
            return
        last_read = self._last_read
        shown = (shown_from, shown_to - shown_from + 1)
        if last_read is None or last_read[:2] != (key, path) or last_read[3:] != shown:
            return  # the note came, but the Read was not cut to its lines: nothing kept out
        last = prior[-1]
        saved = omitted * last.chars // max(1, last.lines)
        self.comp.saved_chars += saved
        self._pending.append((key, ctx.epoch, ctx.calls, saved, "saved"))
        self.comp.partial_reads += 1
        self._reclassify(path, last_read[2], last.chars)

    def _reclassify(self, path: str, kind: str, chars: int) -> None:
        """The Read just counted was ccstate's partial result (only the unseen lines)."""
        comp = self.comp
        comp.read_count[kind] -= 1
        comp.read_chars[kind] -= chars
        comp.read_count["ccstate"] += 1
        comp.read_chars["ccstate"] += chars
        if kind in REREAD_KINDS:
            comp.reread_files[path] -= 1
            comp.reread_file_chars[path] -= chars
            if comp.reread_files[path] <= 0:
                del comp.reread_files[path], comp.reread_file_chars[path]
        self._last_read = None

    def last_read_kind(self, key: str) -> str:
        """The kind of the latest Read counted, when it was in thread `key` ("" otherwise)."""
        last = self._last_read
        return last[2] if last is not None and last[0] == key else ""

    def attached(self, kind: str, chars: int) -> None:
        """Content Claude Code attached to the context itself (`ATTACHED_KINDS`' value)."""
        self.comp.attached_count[kind] += 1
        self.comp.attached_chars[kind] += chars

    def compact_summary(self, text: str) -> None:
        self.comp.compact_summaries += 1
        self.comp.compact_summary_chars += len(text)

    def tool_result(
        self, key: str, name: str, tool_input: dict[str, Any], text: str, is_error: bool, cwd: str
    ) -> None:
        comp = self.comp
        comp.tool_count[name] += 1
        comp.tool_chars[name] += len(text)
        if is_error:
            comp.error_count += 1
            return
        if DIGEST_TAG in text[-_DIGEST_TAIL:]:
            self._digest(key, text)
            return
        if name == "Read":
            self._read(key, tool_input, text, cwd)
        elif name == "Bash":
            self._bash(key, tool_input, text, cwd)
        elif name in WRITE_TOOLS:
            self._write(key, name, tool_input, cwd)

    def finish(self) -> Composition:
        """Settle the char-calls of injections and savings; return the composition."""
        for key, ctx in self.threads.items():
            self._final_calls[(key, ctx.epoch)] = ctx.calls
        for key, epoch, calls_then, chars, kind in self._pending:
            later = max(0, self._final_calls.get((key, epoch), calls_then) - calls_then)
            if kind == "injection":
                self.comp.injection_char_calls += chars * later
            elif kind == "note":
                self.comp.note_char_calls += chars * later
            elif kind == "cc":
                self.comp.cc_saved_char_calls += chars * later
            else:
                self.comp.saved_char_calls += chars * later
        self._pending.clear()
        return self.comp

    # -- Read and Bash

    def _read(self, key: str, tool_input: dict[str, Any], text: str, cwd: str) -> None:
        ctx = self.thread(key)
        path = _resolve(str(tool_input.get("file_path") or ""), cwd)
        range_key = (tool_input.get("offset"), tool_input.get("limit"))
        prior = ctx.delivered.get(path, [])
        kind = self._read_kind(ctx, path, range_key, text, prior)
        self.comp.read_count[kind] += 1
        self.comp.read_chars[kind] += len(text)
        self._last_read = (key, path, kind, *_shown_lines(text))
        if kind == "claude_code":  # not file content: no delivery; Claude Code's saving
            saved = max(0, self._known_size(ctx, path, prior) - len(text))
            self.comp.cc_stubs += 1
            self.comp.cc_saved_chars += saved
            self._pending.append((key, ctx.epoch, ctx.calls, saved, "cc"))
            return
        if kind == "ccstate":
            saved = max(0, self._known_size(ctx, path, prior) - len(text))
            self.comp.notices += 1
            self.comp.notice_chars += len(text)
            self.comp.saved_chars += saved
            self._pending.append((key, ctx.epoch, ctx.calls, saved, "saved"))
            return
        if kind in REREAD_KINDS:
            self.comp.reread_files[path] += 1
            self.comp.reread_file_chars[path] += len(text)
        prior.append(_Delivery(range_key, hash(text), len(text), text.count("\n") + 1))
        ctx.delivered[path] = prior
        ctx.printed.add(path)
        ctx.sizes.pop(path, None)  # this Read is now the latest the context has of it

    @staticmethod
    def _known_size(ctx: Thread, path: str, prior: list[_Delivery]) -> int:
        """What a full Read of `path` would have put in the context now: the size the
        context's own write left it at, else its last delivery's."""
        size = ctx.sizes.get(path)
        if size is not None:
            return size[0]
        return prior[-1].chars if prior else 0

    def _write(self, key: str, name: str, tool_input: dict[str, Any], cwd: str) -> None:
        """The context's own Write / Edit: the whole file's size as a Read would show it
        (exact for a Write; an Edit's estimated from its strings, once, or each time with
        replace_all as if once), for what a later notice keeps out."""
        ctx = self.thread(key)
        path = _resolve(str(tool_input.get("file_path") or ""), cwd)
        content = tool_input.get("content")
        if name == "Write" and isinstance(content, str):
            lines = content.count("\n") + 1
            ctx.sizes[path] = (len(content) + lines + _digits_to(lines), lines)
            return
        size = ctx.sizes.get(path)
        prior = ctx.delivered.get(path)
        if size is None and prior and prior[-1].range_key == (None, None):
            size = (prior[-1].chars, prior[-1].lines)
        if size is None:
            return
        chars, lines = size
        edits = tool_input.get("edits") if name == "MultiEdit" else [tool_input]
        for edit in edits if isinstance(edits, list) else ():
            if isinstance(edit, dict):
                old, new = str(edit.get("old_string") or ""), str(edit.get("new_string") or "")
                grown = new.count("\n") - old.count("\n")
                chars += len(new) - len(old) + grown + _digits_to(lines + grown) - _digits_to(lines)
                lines += grown
        ctx.sizes[path] = (max(0, chars), max(1, lines))

    def _read_kind(
        self, ctx: Thread, path: str, range_key: tuple[Any, Any], text: str, prior: list[_Delivery]
    ) -> str:
        if self._is_notice(text):
            return "ccstate"
        if text.lstrip().startswith(CC_STUB_PREFIXES):
            return "claude_code"
        if not prior:
            return "after_compaction" if path in ctx.seen_before else "first"
        same_range = [d for d in prior if d.range_key == range_key]
        if not same_range:
            return "other_range"
        digest = hash(text)
        return "identical" if any(d.digest == digest for d in same_range) else "changed"

    def _is_notice(self, text: str) -> bool:
        # the head is enough (a notice starts the result), and slicing it copies little
        body = _strip_gutter(text[:_NOTICE_HEAD]).lstrip()
        return body.startswith(self.notice_prefixes)

    def _digest(self, key: str, text: str) -> None:
        """A digest: what it kept out is the original's size (in its closing line) minus its
        own."""
        match = _DIGEST.search(text[-_DIGEST_TAIL:])
        if match is None:
            return
        ctx = self.thread(key)
        saved = max(0, int(match.group(2).replace(",", "")) - len(text))
        comp = self.comp
        comp.digests += 1
        comp.digest_chars += len(text)
        comp.digest_saved_chars += saved
        comp.saved_chars += saved
        self._pending.append((key, ctx.epoch, ctx.calls, saved, "saved"))

    def _bash(self, key: str, tool_input: dict[str, Any], text: str, cwd: str) -> None:
        ctx = self.thread(key)
        printed = printed_paths(str(tool_input.get("command") or ""), cwd)
        if self._is_notice(text):  # a shell read answered with the read ledger's notice
            self._shell_notice(key, ctx, printed, text)
            return
        digest = hash(text)
        repeat = len(text) >= BASH_REPRINT_MIN_CHARS and digest in ctx.outputs
        if repeat or any(p in ctx.printed for p in printed):
            self.comp.bash_reprints += 1
            self.comp.bash_reprint_chars += len(text)
        ctx.printed.update(printed)
        if len(printed) == 1:
            ctx.printed_chars[printed[0]] = len(text)
        if len(text) >= BASH_REPRINT_MIN_CHARS:
            ctx.outputs.add(digest)

    def _shell_notice(self, key: str, ctx: Thread, printed: list[str], text: str) -> None:
        """Kept out: the last full delivery of the file (a Read or a shell read) minus the
        notice."""
        path = printed[0] if len(printed) == 1 else ""
        prior = ctx.delivered.get(path)
        full = ctx.printed_chars.get(path) or (prior[-1].chars if prior else 0)
        saved = max(0, full - len(text))
        comp = self.comp
        comp.notices += 1
        comp.notice_chars += len(text)
        comp.saved_chars += saved
        self._pending.append((key, ctx.epoch, ctx.calls, saved, "saved"))


def printed_paths(command: str, cwd: str) -> list[str]:
    """Files a shell command prints whole or in part (`cat F`, `head -n 5 F`, `sed -n 1,9p F`)."""
    paths: list[str] = []
    if _ANY_PRINTER.search(command) is None:  # most commands (git, pytest, ...) print no file
        return paths
    for segment in _SPLIT.split(command):
        first = segment.split(None, 1)
        if not first or os.path.basename(first[0]) not in _PRINTERS:
            continue  # cheap test first: shlex is slow and most commands print no file
        if "'" in segment or '"' in segment or "\\" in segment:
            try:
                words = shlex.split(segment)
            except ValueError:
                continue
        else:  # no quoting: shlex.split would split on its whitespace alone, 20x slower
            words = _SHELL_SPACE.split(segment.strip(" \t\r\n"))
        if words[0].endswith("sed") and "-n" not in words[1:]:
            continue  # sed without -n edits or filters; only `sed -n ...p` prints a range
        operands = [w for w in words[1:] if not w.startswith("-") and not w.isdigit()]
        if words[0].endswith("sed"):
            operands = operands[1:]  # the script
        paths.extend(_resolve(w, cwd) for w in operands if not w.startswith(("<", ">")))
    return paths


def _resolve(path: str, cwd: str) -> str:
    if not path:
        return path
    if not os.path.isabs(path) and cwd:
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


def _shown_lines(text: str) -> tuple[int, int]:
    """(the first line number a Read result shows, how many lines it shows); (0, 0) when it
    shows no numbered line."""
    head = text[:16]
    for marker in ("\t", "\u2192"):
        number, found, _ = head.partition(marker)
        if found and number.strip().isdigit():
            return int(number), text.count("\n") + 1
    return 0, 0


def _digits_to(last: int) -> int:
    """Digits of the line numbers 1..last, as a Read writes them."""
    total, width, low = 0, 1, 1
    while low <= last:
        high = low * 10 - 1
        total += (min(high, last) - low + 1) * width
        low, width = high + 1, width + 1
    return total


def _strip_gutter(text: str) -> str:
    """Text without Read's first-line gutter: `1\\t` (2.x) or `     1→` (1.0.x)."""
    head = text[:16]
    for marker in ("\t", "\u2192"):
        number, found, _ = head.partition(marker)
        if found and number.strip().isdigit():
            return text[len(number) + 1 :]
    return text
