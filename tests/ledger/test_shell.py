"""Shell reads (`cat F`, `head -n N F`, `sed -n 'a,bp' F`, `nl F`...) in the read ledger
(docs/LEDGER.md "Shell reads"): parsing with certainty, checking the output against the file,
and the ledger's answers to Reads and shell reads of each other's text."""

from __future__ import annotations

import pytest

from ccstate.ledger import core as ledger
from ccstate.ledger import shell
from ccstate.ledger.shell import Target

TEXT = "".join(f"line {i:02d} of app.py, long enough to be worth a notice\n" for i in range(1, 41))
LINES = TEXT.split("\n")  # 41: the final newline's empty line, as Read counts


@pytest.mark.parametrize(
    "command, expected",
    [
        ("cat app.py", Target("cat", "/p/app.py")),
        ("cat /abs/x.txt", Target("cat", "/abs/x.txt")),
        ("cat -n app.py", Target("cat -n", "/p/app.py")),
        ("nl src/app.py", Target("nl", "/p/src/app.py")),
        ("head app.py", Target("head", "/p/app.py", 1, 10)),
        ("head -n 25 app.py", Target("head", "/p/app.py", 1, 25)),
        ("head -n25 app.py", Target("head", "/p/app.py", 1, 25)),
        ("head -7 app.py", Target("head", "/p/app.py", 1, 7)),
        ("head --lines=7 app.py", Target("head", "/p/app.py", 1, 7)),
        ("tail -n 5 app.py", Target("tail", "/p/app.py", 5)),
        ("tail -5 app.py", Target("tail", "/p/app.py", 5)),
        ("tail -n +30 app.py", Target("tail", "/p/app.py", 30, None, plus=True)),
        ("sed -n '10,20p' src/app.py", Target("sed", "/p/src/app.py", 10, 20)),
        ("sed -n 5p app.py", Target("sed", "/p/app.py", 5, 5)),
        ("sed -n '5,$p' app.py", Target("sed", "/p/app.py", 5, None)),
        ("cat ~/notes.md", Target("cat", "/home/me/notes.md")),
        # never when unsure: several files, pipes, redirections, globs, variables, options
        ("cat a.py b.py", None),
        ("cat -A app.py", None),
        ("nl -ba app.py", None),
        ("cat app.py | grep x", None),
        ("cat app.py > copy.py", None),
        ("cat *.py", None),
        ("cat $HOME/x", None),
        ("cat app.py; ls", None),
        ("cd src && cat app.py", None),
        ("cat ~other/x", None),
        ("head -n x app.py", None),
        ("head -n +3 app.py", None),
        ("sed -i 's/a/b/' app.py", None),
        ("sed -n '20,10p' app.py", None),
        ("sed -n '/re/p' app.py", None),
        ("cat 'unterminated", None),
        ("ls app.py", None),
        ("", None),
        ("cat", None),
        ("cat -", None),
    ],
)
def test_parse_command(command: str, expected: Target | None) -> None:
    assert shell.parse_command(command, "/p", "/home/me") == expected


def test_a_tilde_needs_a_home() -> None:
    assert shell.parse_command("cat ~/notes.md", "/p", "") is None


# --------------------------------------------------------------------------- output vs file


def relayed(printed: str) -> str:
    """What the hook gets for a command's output: Claude Code 2.1.328 drops leading empty
    lines and trailing whitespace (tests/e2e/test_outputs.py shows it)."""
    return printed.lstrip("\n").rstrip()


def event(command: str, output: str, text: str = TEXT) -> ledger.ReadEvent | None:
    target = shell.parse_command(command, "/p")
    assert target is not None
    return shell.read_event(target, output, text, "toolu_1", command)


def test_cat_delivers_the_whole_file_as_a_whole_file_read_does() -> None:
    got = event("cat app.py", relayed(TEXT))
    assert got is not None
    read = ledger.read_event(
        {"file_path": "/p/app.py"},
        {
            "type": "text",
            "file": {
                "filePath": "/p/app.py",
                "content": TEXT,
                "numLines": 41,
                "startLine": 1,
                "totalLines": 41,
            },
        },
        "/p",
    )
    assert (got.path, got.args, got.start, got.end, got.sha) == (
        read.path,
        read.args,
        read.start,
        read.end,
        read.sha,
    )
    assert got.command == "cat app.py" and got.total_lines == 41


@pytest.mark.parametrize(
    "command, start, end, args",
    [
        ("head -n 5 app.py", 1, 5, "1:5"),
        ("sed -n '10,12p' app.py", 10, 12, "10:3"),
        ("sed -n '38,$p' app.py", 38, 41, "38:"),
        ("tail -n 3 app.py", 38, 41, "38:"),
        ("tail -n +39 app.py", 39, 41, "39:"),
        ("head -n 100 app.py", 1, 41, "1:100"),
    ],
)
def test_ranges_use_the_files_line_numbers(command: str, start: int, end: int, args: str) -> None:
    printed = "\n".join(LINES[start - 1 : min(end, 40)])
    got = event(command, relayed(printed))
    assert got is not None
    assert (got.start, got.end, got.args) == (start, end, args)
    assert got.content == "\n".join(LINES[start - 1 : end])


def test_numbered_output_is_checked_against_the_file() -> None:
    text = "alpha\n\nbeta\n"
    nl = "     1\talpha\n       \n     2\tbeta"  # GNU nl: an empty line is spaces only
    assert event("nl f.txt", nl, text) is not None
    cat_n = "     1\talpha\n     2\t\n     3\tbeta"
    assert event("cat -n f.txt", cat_n, text) is not None
    assert event("cat -n f.txt", "     1\talpha\n     2\t\n     3\tBETA", text) is None


@pytest.mark.parametrize(
    "output",
    [
        TEXT.replace("line 07", "line seven"),  # the file changed since the command ran
        "",  # nothing printed
        relayed(TEXT) + "\nextra line",
        "\n".join(LINES[1:40]),  # shifted by one line
    ],
)
def test_output_that_is_not_the_files_text_is_no_read(output: str) -> None:
    assert event("cat app.py", output) is None


def test_an_edge_whitespace_difference_claude_code_makes_is_allowed() -> None:
    text = "\n\nfirst  \nsecond\t\n\n\n"
    assert event("cat f.txt", "first  \nsecond", text) is not None


def test_a_range_past_the_end_is_no_read() -> None:
    assert event("sed -n '50,60p' app.py", "") is None


def test_replay_takes_the_output_for_the_file() -> None:
    target = shell.parse_command("sed -n '3,4p' app.py", "/p")
    assert target is not None
    got = shell.replay_event(target, "three\nfour", "t", "sed -n '3,4p' app.py")
    assert got is not None and (got.start, got.end, got.args) == (3, 4, "3:2")
    tail = shell.parse_command("tail -n 5 app.py", "/p")
    assert tail is not None and shell.replay_event(tail, "x\ny") is None  # first line unknown
    nl = shell.parse_command("nl app.py", "/p")
    assert nl is not None
    got = shell.replay_event(nl, "     1\ta\n       \n     2\tb")
    assert got is not None and got.lines == ("a", "", "b")
    assert shell.replay_event(nl, "not numbered\n     1\ta") is None


# --------------------------------------------------------------------------- in the ledger


class Context:
    """decide + record for Reads and shell reads, the way the hook does."""

    def __init__(self) -> None:
        self.ledger = ledger.Ledger()
        self.blobs: dict[str, str] = {}

    def answer(self, read: ledger.ReadEvent, opts: ledger.Options) -> ledger.Decision:
        decision = ledger.decide(self.ledger, read, self.blobs.get, opts)
        self.ledger = ledger.record(self.ledger, read, decision)
        got = ledger.delivered(read, decision)
        if got is not None:
            self.blobs[ledger.sha256(got[2])] = got[2]
        return decision

    def cat(self, text: str = TEXT) -> ledger.Decision:
        read = event("cat app.py", relayed(text), text)
        assert read is not None
        return self.answer(read, shell.options(ledger.Options()))

    def read(self, text: str = TEXT) -> ledger.Decision:
        lines = text.split("\n")
        file = {"filePath": "/p/app.py", "content": text, "numLines": len(lines)}
        response = {"type": "text", "file": {**file, "startLine": 1, "totalLines": len(lines)}}
        read = ledger.read_event({"file_path": "/p/app.py"}, response, "/p")
        return self.answer(read, ledger.Options())


def test_an_identical_cat_gets_the_notice_with_the_shell_hint() -> None:
    ctx = Context()
    assert ctx.cat().kind == "full"
    notice = ctx.cat()
    assert notice.kind == "identical"
    assert notice.content == (
        f"[ccstate: not file content] /p/app.py lines 1-41 of 41: unchanged since your shell "
        f"read #1 (sha256 {ledger.sha256(TEXT)[:8]}), so the text you have from it is current. "
        "For the full output again, run the same command again."
    )
    assert ctx.ledger.history[0]["tool"] == "Bash"
    assert ctx.ledger.history[0]["command"] == "cat app.py"


def test_the_same_command_right_after_a_notice_gets_the_full_output() -> None:
    ctx = Context()
    ctx.cat()
    assert ctx.cat().kind == "identical"
    hatch = ctx.cat()
    assert (hatch.kind, hatch.reason[:12]) == ("full", "escape hatch")


def test_after_an_edit_cat_gets_the_new_text_never_a_notice() -> None:
    ctx = Context()
    ctx.cat()
    changed = TEXT.replace("line 07", "line seven")
    assert ctx.cat(changed).kind == "full"  # no diff and no unseen lines for a shell read
    assert ctx.cat(changed).kind == "identical"


def test_a_read_is_answered_from_what_a_cat_delivered_and_vice_versa() -> None:
    ctx = Context()
    ctx.cat()
    read = ctx.read()
    assert read.kind == "identical" and "since your shell read #1 " in read.content
    assert "repeat this Read" in read.content
    ctx = Context()
    ctx.read()
    cat = ctx.cat()
    assert cat.kind == "identical" and "since your Read #1 " in cat.content


def test_a_read_after_a_cat_and_an_edit_gets_the_diff() -> None:
    ctx = Context()
    ctx.cat()
    changed = TEXT.replace("line 07", "line seven")
    diff = ctx.read(changed)
    assert diff.kind in ("diff", "unseen")
    assert "line seven" in diff.content + diff.context


def test_shell_options_turn_off_what_a_bash_result_cannot_show() -> None:
    opts = shell.options(ledger.Options(min_saved_chars=7, identical=False))
    assert (opts.unseen_ranges, opts.diff, opts.identical, opts.min_saved_chars) == (
        False,
        False,
        False,
        7,
    )


def test_a_large_or_binary_file_is_not_checked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    small = tmp_path / "a.txt"
    small.write_text("x\n")
    assert shell.read_file_text(str(small)) == "x\n"
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"\xff\xfe\x00")
    assert shell.read_file_text(str(binary)) is None
    assert shell.read_file_text(str(tmp_path / "missing")) is None


def test_shell_reads_are_numbered_apart_and_survive_the_store() -> None:
    from ccstate.ledger import store

    ctx = Context()
    ctx.read()
    ctx.cat()
    ctx.cat(TEXT.replace("line 07", "line seven"))
    assert (ctx.ledger.reads, ctx.ledger.shell_reads) == (1, 2)
    assert [s.read_no for s in ctx.ledger.paths["/p/app.py"]][-1] == -2
    again = store.from_json(store.to_json(ctx.ledger))
    assert again == ctx.ledger
    old = store.to_json(ctx.ledger)
    del old["shell_reads"]  # a ledger written before shell reads
    assert store.from_json(old).shell_reads == 0
    fresh = ledger.new_epoch(ctx.ledger, "compaction")
    assert (fresh.reads, fresh.shell_reads) == (0, 0)


def test_a_window_of_lines_a_cat_delivered_gets_the_notice() -> None:
    ctx = Context()
    ctx.cat()
    read = event("sed -n '3,30p' app.py", relayed("\n".join(LINES[2:30])))
    assert read is not None
    notice = ctx.answer(read, shell.options(ledger.Options()))
    assert notice.kind == "identical" and "lines 3-30 of 41" in notice.content
    assert "since your shell read #1 " in notice.content
