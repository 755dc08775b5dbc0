"""The read ledger's decision core: pure tests with literal inputs (docs/LEDGER.md)."""

from __future__ import annotations

import pytest

from ccstate.ledger import core as ledger
from ccstate.ledger.core import Claim, Decision, Ledger, Options, ReadEvent, Segment

PATH = "/p/app.py"
TEXT = "".join(f"line {i:02d} of app.py, with enough text to matter\n" for i in range(1, 41))
OPTS = Options()


class Blobs(dict[str, str]):
    """An in-memory blob store: the `load` the decision core gets."""

    def load(self, sha: str) -> str | None:
        return self.get(sha)


def response(
    content: str, start: int = 1, total: int | None = None, path: str = PATH, **extra: object
) -> dict:
    lines = content.split("\n")
    total = total if total is not None else len(lines)
    file = {"filePath": path, "content": content, "numLines": len(lines), "startLine": start}
    return {"type": "text", "file": {**file, "totalLines": total, **extra}}


def window(text: str, offset: int, limit: int) -> tuple[dict, dict]:
    """(tool_input, tool_response) of `Read(offset, limit)` on a file holding `text`."""
    lines = text.split("\n")
    part = "\n".join(lines[offset - 1 : offset - 1 + limit])
    return {"file_path": PATH, "offset": offset, "limit": limit}, response(part, offset, len(lines))


class Session:
    """Drive decide + record the way the hook does, keeping blobs in memory."""

    def __init__(self, opts: Options = OPTS) -> None:
        self.ledger = Ledger()
        self.blobs = Blobs()
        self.opts = opts

    def read(self, content: str | None = None, **tool_input: object) -> Decision:
        tool_input = {"file_path": PATH, **tool_input}
        resp = response(TEXT if content is None else content)
        return self.read_raw(tool_input, resp)

    def read_raw(self, tool_input: dict, resp: object, cwd: str = "/p") -> Decision:
        event = ledger.read_event(tool_input, resp, cwd, f"toolu_{self.ledger.reads + 1}")
        decision = ledger.decide(self.ledger, event, self.blobs.load, self.opts)
        self.ledger = ledger.record(self.ledger, event, decision)
        got = ledger.delivered(event, decision)
        if got is not None:
            self.blobs[ledger.sha256(got[2])] = got[2]
        return decision

    def window(self, text: str, offset: int, limit: int) -> Decision:
        return self.read_raw(*window(text, offset, limit))


# --------------------------------------------------------------------------- identical


def test_first_read_is_full_and_a_repeat_is_a_one_line_notice() -> None:
    s = Session()
    assert s.read() == Decision("full", "first read of this path in this epoch")
    notice = s.read()
    sha = ledger.sha256(TEXT)
    assert notice.kind == "identical"
    assert (notice.start_line, notice.num_lines, notice.context) == (0, 1, "")
    assert notice.content == (
        "[ccstate: not file content] /p/app.py lines 1-41 of 41: unchanged since your Read #1 "
        f"(sha256 {sha[:8]}), so the text you have from it is current. For the full text again, "
        "repeat this Read (same path, offset and limit)."
    )
    assert "\n" not in notice.content
    assert notice.claims == (Claim(1, 1, 41, sha),)
    assert notice.saved_chars == len(TEXT) - len(notice.content)


def test_escape_hatch_serves_the_very_next_same_read_in_full() -> None:
    s = Session()
    s.read()
    assert s.read().kind == "identical"
    hatch = s.read()
    assert (hatch.kind, hatch.reason) == (
        "full",
        "escape hatch: same Read right after a notice or diff",
    )
    again = s.read()  # the hatch delivered the text anew: notices now cite Read #3
    assert again.kind == "identical" and "since your Read #3 " in again.content


def test_escape_hatch_needs_the_same_range_and_the_very_next_read() -> None:
    s = Session()
    s.read()
    assert s.read().kind == "identical"
    s.read_raw(
        {"file_path": "/p/other.py"}, response("other\n", path="/p/other.py")
    )  # another Read in between
    assert s.read().kind == "identical"
    assert s.read(offset=1, limit=41).kind == "identical"  # other args: not the hatch
    assert s.read(offset=1, limit=41).kind == "full"


def test_a_change_between_a_notice_and_the_same_read_cancels_the_escape_hatch() -> None:
    """Issue #15 item 4: Read F, Edit F, Read F (unseen lines), Edit F, Read F served the
    whole file as an escape hatch; the file changed in between, so the agent gets the change."""
    s = Session()
    s.read()
    v2 = TEXT.replace("line 05 of", "line five of")
    assert s.read(v2).kind == "unseen"
    v3 = v2.replace("line 30 of", "line thirty of")
    third = s.read(v3)
    assert "escape hatch" not in third.reason
    assert third.kind in ("unseen", "diff") and third.replaced
    assert "line thirty of" in third.content + third.context


def test_the_escape_hatch_still_fires_when_the_file_did_not_change() -> None:
    s = Session()
    s.read()
    v2 = TEXT.replace("line 05 of", "line five of")
    assert s.read(v2).kind == "unseen"
    hatch = s.read(v2)
    assert (hatch.kind, hatch.reason[:11]) == ("full", "escape hatc")


def test_identical_content_at_two_paths_is_full_twice() -> None:
    s = Session()
    assert s.read_raw({"file_path": "/p/a.py"}, response(TEXT, path="/p/a.py")).kind == "full"
    assert s.read_raw({"file_path": "/p/b.py"}, response(TEXT, path="/p/b.py")).kind == "full"
    assert s.read_raw({"file_path": "/p/a.py"}, response(TEXT, path="/p/a.py")).kind == "identical"


def test_a_subpath_spelling_is_normalised_but_symlinks_are_not_resolved() -> None:
    s = Session()
    s.read_raw({"file_path": "/p/src/../app.py"}, {"type": "text", "file": {}})
    event = ledger.read_event({"file_path": "/p/./app.py"}, response(TEXT), "/")
    assert event.path == "/p/app.py"


def test_tiny_files_are_never_replaced() -> None:
    s = Session()
    small = "x = 1\n"
    s.read(small)
    assert s.read(small) == Decision("full", "identical, but too short to be worth a notice")


# --------------------------------------------------------------------------- unseen ranges


def test_growing_window_serves_only_the_unseen_lines_with_true_numbers() -> None:
    s = Session()
    assert s.window(TEXT, 1, 10).kind == "full"
    grown = s.window(TEXT, 1, 30)
    lines = TEXT.split("\n")
    assert grown.kind == "unseen"
    assert (grown.start_line, grown.num_lines) == (11, 20)
    assert grown.content == "\n".join(lines[10:30])
    assert grown.context == (
        "[ccstate] /p/app.py: this Read result shows only lines 11-30 of the 1-30 you asked for. "
        "Omitted: lines 1-10, unchanged since your Read #1, so the text you have from it is "
        "current. For the full text again, repeat this Read (same path, offset and limit)."
    )
    assert grown.claims == (Claim(1, 1, 10, ledger.sha256("\n".join(lines[:10]))),)
    # Both reads together cover 1..30: a read inside them is identical, citing both.
    inside = s.window(TEXT, 5, 20)
    assert inside.kind == "identical" and "unchanged since your Reads #1 and #2 " in inside.content


def test_unseen_lines_on_both_sides_are_served_as_one_span() -> None:
    s = Session()
    s.window(TEXT, 15, 10)  # lines 15..24: unseen lines at both ends, nothing to omit there
    assert s.read() == Decision("full", "changed or unseen lines; replacing would save too little")
    s2 = Session()
    s2.window(TEXT, 1, 12)
    s2.window(TEXT, 30, 12)  # 30..41
    middle = s2.read()
    assert middle.kind == "unseen" and (middle.start_line, middle.num_lines) == (13, 17)
    assert "Omitted: lines 1-12 and lines 30-41, unchanged since your Reads #1 and #2" in (
        middle.context
    )


def test_unseen_ranges_switch() -> None:
    s = Session(Options(unseen_ranges=False))
    s.window(TEXT, 1, 10)
    assert s.window(TEXT, 1, 30).kind == "full"


def test_a_changed_line_inside_a_seen_range_is_served_again() -> None:
    s = Session(Options(diff=False))
    s.read()
    changed = TEXT.replace("line 20 of", "LINE TWENTY of")
    d = s.read(changed)
    assert d.kind == "unseen" and (d.start_line, d.num_lines) == (20, 1)
    assert d.content.startswith("LINE TWENTY")
    assert "Omitted: lines 1-19 and lines 21-41, unchanged since your Read #1" in d.context


# --------------------------------------------------------------------------- diffs


def test_a_changed_file_comes_back_as_a_diff_with_true_line_numbers() -> None:
    s = Session()
    s.read()
    old_sha = ledger.sha256(TEXT)
    new = TEXT.replace("line 20 of app.py", "line 20 CHANGED").replace(
        "line 21 of", "line 21a of app.py\nline 21b of"
    )
    d = s.read(new)
    assert d.kind == "diff"
    assert (d.start_line, d.num_lines) == (0, 1)
    assert d.content.startswith("[ccstate: not file content] /p/app.py lines 1-42 of 42: changed")
    tail = "with enough text to matter"
    assert d.context.split("\n") == [
        f"[ccstate] /p/app.py changed since your Read #1 (sha256 {old_sha[:8]} -> "
        f"{ledger.sha256(new)[:8]}). Unified diff of the lines you asked for, from the text that "
        "Read returned to the current file (a ccstate note, not file content):",
        "--- /p/app.py (your Read #1)",
        "+++ /p/app.py (now)",
        "@@ -17,8 +17,9 @@",
        *[f" line {i} of app.py, {tail}" for i in (17, 18, 19)],
        f"-line 20 of app.py, {tail}",
        f"-line 21 of app.py, {tail}",
        f"+line 20 CHANGED, {tail}",
        "+line 21a of app.py",
        f"+line 21b of app.py, {tail}",
        *[f" line {i} of app.py, {tail}" for i in (22, 23, 24)],
    ]
    assert d.claims == (Claim(1, 1, 41, old_sha),)


def test_a_diff_in_a_window_uses_file_line_numbers() -> None:
    text = TEXT.replace("line 12 of", "inserted\nline 12 of")
    s = Session()
    s.window(TEXT, 10, 32)
    d = s.window(text, 10, 32)
    assert d.kind == "diff"
    hunk = d.context.split("\n")[3:]
    assert hunk[0] == "@@ -10,5 +10,6 @@"  # from the window's first line, 3 after the change
    assert [line[:9] for line in hunk[1:]] == [
        " line 10 ",
        " line 11 ",
        "+inserted",
        " line 12 ",
        " line 13 ",
        " line 14 ",
        "@@ -38,4 ",  # the window still ends at line 41: its old last line slid out
        " line 38 ",
        " line 39 ",
        " line 40 ",
        "-",
    ]
    assert hunk[7] == "@@ -38,4 +39,3 @@"


def test_a_large_change_is_served_in_full() -> None:
    s = Session()
    s.read()
    rewritten = TEXT.replace("line", "LINE")
    d = s.read(rewritten)
    assert d == Decision("full", "changed or unseen lines; replacing would save too little")


@pytest.mark.parametrize("ratio, kind", [(0.5, "diff"), (0.01, "unseen")])
def test_diff_max_ratio(ratio: float, kind: str) -> None:
    s = Session(Options(diff_max_ratio=ratio))
    s.read()
    assert s.read(TEXT.replace("line 25 of", "new line\nline 25 of")).kind == kind


def test_an_in_place_edit_is_served_as_the_changed_lines_when_that_is_smaller() -> None:
    s = Session()
    s.read()
    d = s.read(TEXT.replace("line 05 of", "line five of"))
    assert (d.kind, d.start_line, d.num_lines) == ("unseen", 5, 1)


def test_diff_needs_the_same_requested_range() -> None:
    s = Session(Options(unseen_ranges=False))
    s.window(TEXT, 1, 20)
    changed = TEXT.replace("line 05 of", "line five of")
    assert s.read(changed).kind == "full"  # whole-file read vs an earlier window: no base


def test_after_a_diff_the_next_change_is_diffed_against_the_text_last_seen_in_full() -> None:
    s = Session()
    s.read()
    v2 = TEXT.replace("line 05 of", "line five of\nnew line six")
    assert s.read(v2).kind == "diff"
    s.read_raw(
        {"file_path": "/p/other.py"}, response("x\n", path="/p/other.py")
    )  # not the escape hatch
    v3 = v2.replace("line 30 of", "line thirty\nof")
    d = s.read(v3)
    assert d.kind == "diff" and "since your Read #1 " in d.context
    changes = [line for line in d.context.split("\n") if line.startswith(("+l", "-l", "+n"))]
    assert [c.split(",")[0] for c in changes] == [
        "-line 05 of app.py",
        "+line five of",
        "+new line six app.py",
        "-line 30 of app.py",
        "+line thirty",
    ]


# --------------------------------------------------------------------------- never when unsure


@pytest.mark.parametrize(
    "resp, reason",
    [
        ({"type": "image", "file": {"base64": "AAAA"}}, "not a text read (image)"),
        ({"type": "pdf", "file": {"filePath": PATH}}, "not a text read (pdf)"),
        ({"type": "notebook", "file": {"cells": []}}, "not a text read (notebook)"),
        ("a string", "not a text read (str)"),
        (response(TEXT, truncatedByTokenCap=True), "token-capped partial result"),
        (response(""), "empty content"),
        ({"type": "text", "file": {**response(TEXT)["file"], "numLines": 3}}, "numLines 3 != 41"),
        (
            {"type": "text", "file": {**response(TEXT)["file"], "startLine": 0}},
            "line numbers missing",
        ),
    ],
)
def test_unsure_reads_pass_untouched_and_are_not_remembered(resp: object, reason: str) -> None:
    s = Session()
    for _ in range(2):
        assert s.read_raw({"file_path": PATH}, resp) == Decision("full", reason)
    assert s.ledger.paths == {} and s.ledger.reads == 2


def test_pages_and_notebooks_are_left_alone() -> None:
    s = Session()
    for _ in range(2):
        assert s.read_raw({"file_path": PATH, "pages": "1-2"}, response(TEXT)).reason == (
            "pages requested"
        )
        nb = response(TEXT, path="/p/n.ipynb")
        assert s.read_raw({"file_path": "/p/n.ipynb"}, nb).reason == "notebook"


def test_missing_ledger_text_means_full_content() -> None:
    s = Session()
    s.window(TEXT, 1, 10)
    s.blobs.clear()
    assert s.window(TEXT, 1, 30) == Decision("full", "ledger text missing or damaged")


def test_disabled_and_identical_switches() -> None:
    s = Session(Options(enabled=False))
    s.read()
    assert s.read() == Decision("full", "disabled")
    s = Session(Options(identical=False))
    s.read()
    assert s.read() == Decision("full", "identical, but dedupe.identical is off")


def test_options_from_config() -> None:
    from ccstate.config import Config, defaults

    values = {**defaults(), "dedupe.diff": False, "dedupe.min_saved_chars": 7}
    assert Options.from_config(Config(values=values)) == Options(diff=False, min_saved_chars=7)


# --------------------------------------------------------------------------- bookkeeping


def test_epochs_forget_and_keep_counters() -> None:
    s = Session()
    s.read()
    s.read()
    s.ledger = ledger.new_epoch(s.ledger, "compaction")
    assert (s.ledger.epoch, s.ledger.epoch_reason, s.ledger.reads) == (2, "compaction", 0)
    assert s.ledger.stats["identical"] == 1 and s.ledger.stats["epochs"] == 1
    assert s.read().kind == "full"


def test_record_keeps_history_and_bounds() -> None:
    s = Session()
    for i in range(ledger.MAX_SEGMENTS + 5):
        s.window(TEXT, 1 + i % 40, 1)
    assert len(s.ledger.paths[PATH]) == ledger.MAX_SEGMENTS
    assert s.ledger.history[-1] == {
        "n": ledger.MAX_SEGMENTS + 5,
        "tool_use_id": f"toolu_{ledger.MAX_SEGMENTS + 5}",
        "path": PATH,
        "args": "17:1",
        "range": [17, 17],
        "sha": ledger.sha256(TEXT.split("\n")[16]),
        "file_sha": "",
        "kind": "full",
        "reason": "no line of this range delivered yet",
        "epoch": 1,
    }
    for i in range(ledger.MAX_PATHS + 3):
        s.read_raw({"file_path": f"/p/f{i}.py"}, response("x\n", path=f"/p/f{i}.py"))
    assert len(s.ledger.paths) == ledger.MAX_PATHS
    assert len(s.ledger.history) == ledger.MAX_HISTORY


def test_a_newer_segment_covering_an_older_one_replaces_it() -> None:
    s = Session()
    s.window(TEXT, 5, 5)
    s.read()
    assert s.ledger.paths[PATH] == (Segment(1, 41, ledger.sha256(TEXT), 2, "1:"),)


def test_known_lines() -> None:
    s = Session()
    s.window(TEXT, 1, 5)
    lines = TEXT.split("\n")
    assert ledger.known_lines(s.ledger, PATH, 2, 4, s.blobs.load) == lines[1:4]
    assert ledger.known_lines(s.ledger, PATH, 4, 6, s.blobs.load) is None


def test_read_event_fields() -> None:
    event = ledger.read_event(*window(TEXT, 3, 2), "/p", "toolu_9")
    assert event == ReadEvent(
        PATH,
        "3:2",
        3,
        "\n".join(TEXT.split("\n")[2:4]),
        41,
        "toolu_9",
        "",
        tuple(TEXT.split("\n")[2:4]),
        ledger.sha256("\n".join(TEXT.split("\n")[2:4])),
    )
    assert event.end == 4
    relative = ledger.read_event({"file_path": "app.py", "offset": 0}, response(TEXT), "/p")
    assert (relative.path, relative.args) == ("/p/app.py", "1:")


def test_a_new_epoch_without_reads_is_a_no_op() -> None:
    s = Session()
    once = ledger.new_epoch(s.ledger, "compaction")
    assert once is s.ledger
    s.read()
    twice = ledger.new_epoch(ledger.new_epoch(s.ledger, "compaction"), "compaction")
    assert twice.epoch == 2  # PreCompact firing again does not start a third


def test_replaced_paths_of_an_epoch() -> None:
    s = Session()
    s.read()
    s.read()
    s.read_raw({"file_path": "/p/b.py"}, response(TEXT, path="/p/b.py"))
    assert ledger.replaced_paths(s.ledger, 1) == [PATH]
    s.ledger = ledger.new_epoch(s.ledger, "compaction")
    assert ledger.replaced_paths(s.ledger, 1) == [PATH]
    assert ledger.replaced_paths(s.ledger, 2) == []


def test_an_unseen_span_is_never_a_diff_base() -> None:
    s = Session()
    s.read()
    v2 = TEXT.replace("line 01 of", "LINE ONE of")
    assert s.read(v2).kind == "unseen"  # line 1 only, recorded as part of a range
    assert s.ledger.paths[PATH][-1].args == ""
    s.read_raw({"file_path": "/p/other.py"}, response("x\n", path="/p/other.py"))
    v3 = v2.replace("line 08 of", "new line\nline 08 of")
    d = s.read(v3)
    assert d.kind == "diff" and "since your Read #1 " in d.context  # the whole Read, not #2
