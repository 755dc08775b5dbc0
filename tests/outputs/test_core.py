"""Which results get a digest, and the closing line (outputs/core.py)."""

from __future__ import annotations

import json
import os

import pytest

from ccstate import config
from ccstate.outputs import core
from helpers import FIXTURES

VITEST = (FIXTURES / "outputs" / "vitest-3-failures.txt").read_text()
UPDATE = os.environ.get("CCSTATE_UPDATE_GOLDEN") == "1"
WORDS = [a + b for a in ("alpha", "beta", "gamma", "delta", "omega") for b in "klmnopqrstuvwxyz"]


def test_options_follow_the_config_and_the_environment() -> None:
    opts = core.Options.from_config(config.Config())
    assert (opts.enabled, opts.min_chars) == (True, 2000)
    assert all(opts.wants(t) for t in ("Bash", "Grep", "Glob", "WebFetch", "mcp__gh__get"))
    assert not opts.wants("Read") and not opts.wants("Agent")
    values = {**config.defaults(), "outputs.grep": False, "outputs.min_chars": 900}
    opts = core.Options.from_config(config.Config(values))
    assert not opts.wants("Grep") and opts.wants("Bash") and opts.min_chars == 900
    off = config.env_overrides(config.Config(), {"CCSTATE_DIGEST": "0"})
    assert not core.Options.from_config(off).wants("Bash")
    assert config.env_overrides(config.Config(), {"CCSTATE_DIGEST": "1"}).get("outputs.enabled")


def test_the_handle_names_the_original_and_its_size() -> None:
    body = core.Body("kept lines", "lines")
    assert core.with_handle(body, "a\nb\nc", "/p/.ccstate/out/0123456789abcdef.txt") == (
        "kept lines\n[ccstate: digest of 3 lines, 5 chars (errors and summaries kept, repeats "
        "collapsed). Complete output: /p/.ccstate/out/0123456789abcdef.txt - Read it for "
        "anything left out.]"
    )


def test_each_tool_gets_its_treatment() -> None:
    assert core.digest_for("Bash", VITEST).how == "lines"  # type: ignore[union-attr]
    # matches that are code, each its own (a word with as many values as rows is data)
    grep = "\n".join(
        f"/repo/src/file_{i // 20}.ts:{i}:  const {w} = load({w!r}, {i})"
        for i, w in enumerate(WORDS[:60])
    )
    assert core.digest_for("Grep", grep).how == "grep"  # type: ignore[union-attr]
    glob = "\n".join(f"/home/me/project/src/components/{w}.tsx" for w in WORDS[:40])
    paths = core.digest_for("Glob", glob)
    assert paths is not None and paths.text.startswith(
        "[ccstate: the paths below are in /home/me/project/src/components/]\nalphak.tsx\n"
    )
    # of one shape but for a path, a number or a word: said once, by the uniform digests
    grep = "\n".join(f"/repo/src/file_{i // 20}.ts:{i}:  code line {i}" for i in range(60))
    assert core.digest_for("Grep", grep).how == "grep-uniform"  # type: ignore[union-attr]
    glob = "\n".join(f"/home/me/project/src/components/w{i}.tsx" for i in range(40))
    assert core.digest_for("Glob", glob).how == "paths-grouped"  # type: ignore[union-attr]
    blob = json.dumps([{"id": i, "url": f"https://api.x.com/{i}", "note": None} for i in range(9)])
    assert core.digest_for("mcp__x__list", blob).how == "json"  # type: ignore[union-attr]


def test_progress_redraws_and_colours_alone_give_what_a_terminal_shows() -> None:
    text = (FIXTURES / "outputs" / "esptool-flash.txt").read_bytes().decode()  # \r kept
    body = core.digest_for("Bash", text)
    assert body is not None and body.how == "terminal" and len(body.text) < len(text) / 5
    rows = body.text.split("\n")
    done = "Writing at 0x00190000 [==============================] 100.0% 1048576/1048576 bytes... "
    assert done in rows
    assert "\x1b" not in body.text and "\r" not in body.text
    assert "(terminal codes removed, redrawn lines at their last state)" in core.with_handle(
        body, text, "/p/o.txt"
    )
    # colours alone: the same text without them
    coloured = "\n".join(
        f"\x1b[1;3{i % 8}m{w}\x1b[0m: {i} \x1b[2m(cached)\x1b[0m" for i, w in enumerate(WORDS)
    )
    body = core.digest_for("Bash", coloured)
    assert body is not None and body.how == "terminal"
    assert body.text.split("\n")[:2] == ["alphak: 0 (cached)", "alphal: 1 (cached)"]


@pytest.mark.parametrize(
    "text",
    [
        "binary\x00data" * 300,
        '{"cut": "short',
        '[{"a": 1}, {"b": ' + "2" * 3000,
        "\n".join(f"Sentence {w} is {w[::-1]} and unique." for w in WORDS),
    ],
    ids=["binary", "json-cut", "json-cut-long", "nothing-to-collapse"],
)
def test_what_the_digester_is_unsure_of_passes_through(text: str) -> None:
    assert core.digest_for("Bash", text) is None


def test_a_digest_must_keep_a_fair_share_out_unless_claude_code_persisted_the_output() -> None:
    original = "x" * 10_000
    assert core.worth_it("y" * 5_000, original, persisted=False)
    assert not core.worth_it("y" * 9_500, original, persisted=False)
    assert core.worth_it("y" * 9_500, original, persisted=True)  # beats a 2 KB preview
    assert not core.worth_it("y" * 10_000, original, persisted=True)


def test_a_bash_path_list_names_its_shared_folder_once() -> None:
    text = "\n".join(f"/home/me/project/src/{w}/{w[::-1]}.py" for w in WORDS)
    body = core.digest_for("Bash", text)
    assert body is not None and body.how == "paths"
    assert all(f"{w}/{w[::-1]}.py" in body.text.split("\n") for w in WORDS)


def test_json_lines_get_each_row_compacted_and_long_rows_cut() -> None:
    path = FIXTURES / "outputs" / "session-log.jsonl"
    text = path.read_text()
    body = core.digest_for("Bash", text)
    assert body is not None and body.how == "jsonl"
    expected = path.with_suffix(".digest.txt")
    if UPDATE:
        expected.write_text(body.text + "\n")
    assert body.text + "\n" == expected.read_text()  # reviewed
    rows = body.text.split("\n")
    assert '"model":"[ccstate: same as line 1.session.model]"' in rows[2]
    assert "chars of this line left out]" in rows[6] and len(rows[6]) < 1000
    result = json.loads(rows[4])  # the failed test run, whole
    assert "AssertionError: assert 2 == 3" in result["output"].split("\n")
    assert core.with_handle(body, text, "/p/o.txt").endswith(
        "(JSON lines: links, ids and empty values dropped, long lines cut). Complete output: "
        "/p/o.txt - Read it for anything left out.]"
    )
