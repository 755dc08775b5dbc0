"""The read ledger in the real Claude Code CLI: what the model receives on re-reads (issue #3).

Every test checks the model's view after each Read against the file as it was then
(`ledger_check.wrong_views`): a notice, an omission or a diff that points at text the model did
not get, or got differently, fails it. So "0 false notices" is asserted everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_api import (
    find_text,
    is_main_thread,
    is_subagent,
    system_texts,
    text,
    tool_results,
    tool_use,
)
from ledger_check import NOTICE, model_views, wrong_views

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
BIG = "".join(
    f"def handler_{i:03d}(request, *, timeout=30):  # serves route {i}, see docs\n"
    for i in range(1, 121)
)


def lines(text_: str) -> list[str]:
    return text_.split("\n")


def last_views(fake_api, context=is_main_thread):
    requests = [r for r in fake_api.agent_requests() if context(r)]
    return model_views(requests[-1])


def kinds(views) -> list[str]:
    return [v.kind for v in views]


@pytest.fixture
def big(project: Path) -> Path:
    path = project / "big.py"
    path.write_text(BIG)
    return path


def test_identical_rereads_get_notices_and_the_escape_hatch_serves_full(
    claude, fake_api, big: Path
) -> None:
    read = {"file_path": str(big)}
    fake_api.set_script([tool_use("Read", read) for _ in range(4)] + [text("done")])
    _, result = claude("read big.py a few times", plugin_dir=REPO)
    assert result is not None and result["result"] == "done"
    views = last_views(fake_api)
    assert kinds(views) == ["full", "identical", "full", "identical"]  # the 3rd: escape hatch
    assert views[0].text.startswith("1\tdef handler_001(")
    assert views[1].text == (
        f"{NOTICE}{big} lines 1-121 of 121: unchanged since your Read #1 (sha256 "
        f"{views[1].text.split('sha256 ')[1][:8]}), so the text you have from it is current. "
        "For the full text again, repeat this Read (same path, offset and limit)."
    )
    assert "unchanged since your Read #3 " in views[3].text
    assert wrong_views(views, {str(big): lines(BIG)}) == []


EDIT_OLD = "def handler_060(request, *, timeout=30):  # serves route 60, see docs\n"
EDIT_NEW = EDIT_OLD + "    return cached(request)  # ADDED BY EDIT\n"


def test_edit_then_read_gets_the_notice_naming_the_edit(claude, fake_api, big: Path) -> None:
    """#24: after an Edit of a file it read, the context holds the edited text."""
    fake_api.set_script(
        [
            tool_use("Read", {"file_path": str(big)}),
            tool_use(
                "Edit", {"file_path": str(big), "old_string": EDIT_OLD, "new_string": EDIT_NEW}
            ),
            tool_use("Read", {"file_path": str(big)}),
            text("done"),
        ]
    )
    claude("edit big.py", plugin_dir=REPO)
    assert "ADDED BY EDIT" in big.read_text()
    views = last_views(fake_api)
    assert kinds(views) == ["full", "identical"]
    assert f"{big} lines 1-122 of 122: unchanged since your Edit #1 (sha256 " in views[1].text
    assert "so the text you have (what you read, with your edits applied) is current" in (
        views[1].text
    )
    assert wrong_views(views[1:], {str(big): lines(big.read_text())}) == []


def test_edit_then_read_after_something_else_rewrote_the_file_is_full(
    claude, fake_api, big: Path
) -> None:
    rewrite = f"python3 -c \"open('{big}', 'w').write('regenerated = True\\n' * 90)\""
    fake_api.set_script(
        [
            tool_use("Read", {"file_path": str(big)}),
            tool_use(
                "Edit", {"file_path": str(big), "old_string": EDIT_OLD, "new_string": EDIT_NEW}
            ),
            tool_use("Bash", {"command": rewrite}),
            tool_use("Read", {"file_path": str(big)}),
            text("done"),
        ]
    )
    claude("edit big.py", extra_args=["--allowedTools", "Read Edit Bash"], plugin_dir=REPO)
    assert big.read_text() == "regenerated = True\n" * 90
    views = last_views(fake_api)
    assert kinds(views) == ["full", "full"]
    assert views[1].text.startswith("1\tregenerated = True\n2\tregenerated = True")
    assert wrong_views(views[1:], {str(big): lines(big.read_text())}) == []


def test_edit_then_a_one_line_change_by_something_else_shows_that_line(
    claude, fake_api, big: Path
) -> None:
    fake_api.set_script(
        [
            tool_use("Read", {"file_path": str(big)}),
            tool_use(
                "Edit", {"file_path": str(big), "old_string": EDIT_OLD, "new_string": EDIT_NEW}
            ),
            tool_use("Bash", {"command": f"sed -i 's/route 90,/route NINETY,/' {big}"}),
            tool_use("Read", {"file_path": str(big)}),
            text("done"),
        ]
    )
    claude("edit big.py", extra_args=["--allowedTools", "Read Edit Bash"], plugin_dir=REPO)
    views = last_views(fake_api)
    assert kinds(views) == ["full", "unseen"]
    assert views[1].text == "91\t" + lines(big.read_text())[90]  # the edit added line 61
    assert "Omitted: lines 1-90 and lines 92-122, unchanged since your Edit #1" in views[1].note
    assert wrong_views(views[1:], {str(big): lines(big.read_text())}) == []


def test_write_then_read_gets_the_notice(claude, fake_api, project: Path) -> None:
    target = project / "written.py"
    fake_api.set_script(
        [
            tool_use("Write", {"file_path": str(target), "content": BIG}),
            tool_use("Read", {"file_path": str(target)}),
            text("done"),
        ]
    )
    claude("write written.py", plugin_dir=REPO)
    assert target.read_text() == BIG
    views = last_views(fake_api)
    assert kinds(views) == ["identical"]
    assert views[0].text.startswith(
        f"{NOTICE}{target} lines 1-121 of 121: unchanged since your Write #1 (sha256 "
    )
    assert "so the text you wrote is current" in views[0].text
    assert wrong_views(views, {str(target): lines(BIG)}) == []


def test_sed_i_then_read_shows_the_change(claude, fake_api, big: Path) -> None:
    fake_api.set_script(
        [
            tool_use("Read", {"file_path": str(big)}),
            tool_use("Bash", {"command": f"sed -i 's/route 77,/route SEVENTY-SEVEN,/' {big}"}),
            tool_use("Read", {"file_path": str(big)}),
            text("done"),
        ]
    )
    claude("sed big.py", extra_args=["--allowedTools", "Read Bash"], plugin_dir=REPO)
    assert "SEVENTY-SEVEN" in big.read_text()
    views = last_views(fake_api)
    assert kinds(views) == ["full", "unseen"]  # one line changed in place: just that line
    assert views[1].text == "77\t" + lines(big.read_text())[76]
    assert "Omitted: lines 1-76 and lines 78-121, unchanged since your Read #1" in views[1].note
    assert wrong_views(views[1:], {str(big): lines(big.read_text())}) == []


def test_growing_offset_and_limit_serve_the_unseen_lines(claude, fake_api, big: Path) -> None:
    windows = [(1, 30), (1, 60), (1, 90), (20, 40)]
    script = [
        tool_use("Read", {"file_path": str(big), "offset": o, "limit": n}) for o, n in windows
    ]
    fake_api.set_script([*script, text("done")])
    claude("page through big.py", plugin_dir=REPO)
    views = last_views(fake_api)
    assert kinds(views) == ["full", "unseen", "unseen", "identical"]
    assert views[1].text.split("\n")[0].startswith("31\tdef handler_031(")
    assert views[1].text.split("\n")[-1].startswith("60\tdef handler_060(")
    assert "Omitted: lines 1-30, unchanged since your Read #1" in views[1].note
    assert "unchanged since your Reads #1 and #2 " in views[3].text
    assert wrong_views(views, {str(big): lines(BIG)}) == []


def test_a_subagent_reading_what_the_main_thread_read_gets_full_content(
    claude, fake_api, big: Path
) -> None:
    agent = {
        "description": "Read big.py",
        "prompt": "SUB-TASK: read big.py",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    read = {"file_path": str(big)}
    fake_api.set_script(
        [
            tool_use("Read", read, when=is_main_thread),
            tool_use("Agent", agent, when=is_main_thread),
            tool_use("Read", read, when=is_subagent),
            tool_use("Read", read, when=is_subagent),
            text("SUB DONE", when=is_subagent),
            tool_use("Read", read, when=is_main_thread),
            text("MAIN DONE", when=is_main_thread),
        ]
    )
    _, result = claude("delegate", plugin_dir=REPO)
    assert result is not None and result["result"] == "MAIN DONE"
    sub = last_views(fake_api, is_subagent)
    assert kinds(sub) == ["full", "identical"]  # its own first Read is full
    main = last_views(fake_api)
    assert kinds(main) == ["full", "identical"]  # the subagent's Reads are not the main's
    for views in (sub, main):
        assert wrong_views(views, {str(big): lines(BIG)}) == []


def test_after_compaction_the_next_read_is_full(claude, fake_api, big: Path) -> None:
    read = {"file_path": str(big)}
    high = {"input_tokens": 75_000, "output_tokens": 10}
    fake_api.set_script(
        [
            tool_use("Read", read),
            tool_use("Read", read, usage=high),  # reported context passes the threshold
            tool_use("Read", read),
            text("done"),
        ]
    )
    claude("read, compact, read", plugin_dir=REPO, extra_args=["--autocompact", "100000"])
    kinds_seen = [r.kind for r in fake_api.all_requests() if r.kind in ("agent", "compaction")]
    assert kinds_seen == ["agent", "agent", "compaction", "agent", "agent"], kinds_seen
    before, after = fake_api.agent_requests()[1], fake_api.agent_requests()[-1]
    assert kinds(model_views(before)) == ["full"]
    views = model_views(after)
    # The 2nd Read's notice survives in the turns compaction keeps verbatim, but the Read it
    # points at was summarised, and Claude Code does not re-attach a file whose Read sits in
    # the kept turns. The capsule after compaction says so; the next Read is full (new epoch).
    assert kinds(views) == ["identical", "full"]
    assert views[-1].text.startswith("1\tdef handler_001(")
    assert not find_text(after, "Result of calling the Read tool:\n1\tdef handler_001(")
    warning = "notices kept from before this compaction may point at Reads the summary replaced"
    assert any(warning in t and "big.py" in t for t in system_texts(after))
    beat = json.loads((big.parent / ".ccstate" / "heartbeat" / "PreCompact.json").read_text())
    assert beat["detail"]["ledger_epoch"] == "compaction"


def test_manual_compact_then_resume_reads_full(claude, fake_api, big: Path) -> None:
    read = {"file_path": str(big)}
    fake_api.set_script([tool_use("Read", read), tool_use("Read", read), text("first")])
    _, first = claude("read twice", plugin_dir=REPO)
    assert first is not None
    assert kinds(last_views(fake_api)) == ["full", "identical"]
    claude("/compact keep going", plugin_dir=REPO, resume=first["session_id"])
    fake_api.set_script([tool_use("Read", read), text("second")])
    claude("read again", plugin_dir=REPO, resume=first["session_id"])
    views = last_views(fake_api)
    assert views[-1].kind == "full"


def test_identical_content_at_two_paths_is_full_both_times(claude, fake_api, project: Path) -> None:
    a, b = project / "a.py", project / "b.py"
    a.write_text(BIG)
    b.write_text(BIG)
    fake_api.set_script(
        [
            tool_use("Read", {"file_path": str(a)}),
            tool_use("Read", {"file_path": str(b)}),
            text("ok"),
        ]
    )
    claude("read both", plugin_dir=REPO)
    views = last_views(fake_api)
    assert kinds(views) == ["full", "full"]
    assert all(v.text.startswith("1\tdef handler_001(") for v in views)


def test_ccstate_dedupe_0_turns_it_off(claude, fake_api, big: Path) -> None:
    read = {"file_path": str(big)}
    fake_api.set_script([tool_use("Read", read), tool_use("Read", read), text("ok")])
    claude("read twice", plugin_dir=REPO, env_extra={"CCSTATE_DEDUPE": "0"})
    assert kinds(last_views(fake_api)) == ["full", "full"]


def test_an_edit_after_a_notice_still_works(claude, fake_api, big: Path) -> None:
    """Claude Code tracks the Read itself: replacing its output must not break a later Edit."""
    read = {"file_path": str(big)}
    old = "def handler_005(request, *, timeout=30):"
    edit = {"file_path": str(big), "old_string": old, "new_string": "def handler_five(request):"}
    fake_api.set_script(
        [tool_use("Read", read), tool_use("Read", read), tool_use("Edit", edit), text("ok")]
    )
    claude("read twice then edit", plugin_dir=REPO)
    assert "def handler_five(request):" in big.read_text()
    last = fake_api.agent_requests()[-1]
    results = tool_results(last)
    assert all("has been updated" in r for r in results.values()), results
    assert not find_text(last, "has not been read")


def test_scripted_session_sends_fewer_input_tokens(claude, fake_api, project: Path) -> None:
    """36 tool calls mixing every pattern: >= 25 % fewer input tokens with ccstate than without
    (tiktoken over the JSON of every agent request's messages, summed); 0 false notices."""
    import ledger_scenario as sc

    files = sc.make_files(project)
    originals = {str(p): p.read_text() for p in files.values()}
    assert sc.tool_calls(files) >= 30
    totals = {}
    for label, plugin in (("without", None), ("with", REPO)):
        for path, text_ in originals.items():
            Path(path).write_text(text_)
        seen = len(fake_api.agent_requests())
        fake_api.set_script(sc.full_script(files))
        _, result = claude("work through the files", plugin_dir=plugin)
        assert result is not None and result["result"] == "MAIN DONE", label
        assert fake_api.remaining_steps() == 0, label
        totals[label] = sc.input_tokens(fake_api.agent_requests()[seen:])
    saved = 1 - totals["with"] / totals["without"]
    print(
        f"input tokens without ccstate {totals['without']:,}, with {totals['with']:,}: "
        f"{saved:.1%} fewer"
    )
    assert saved >= 0.25, totals
    main = last_views(fake_api)
    expected = sc.expected_reads(files, originals)
    assert len(main) == len(expected) == 25
    assert wrong_views(main, {v.tool_use_id: e for v, e in zip(main, expected, strict=True)}) == []
    print("main-thread Reads:", " ".join(kinds(main)))
    assert kinds(main).count("full") < 10, kinds(main)
    sub = last_views(fake_api, is_subagent)
    assert kinds(sub) == ["full", "identical"]
