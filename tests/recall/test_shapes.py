"""recall.shapes: the answer a question asks for, and the texts that hold one."""

from __future__ import annotations

import pytest

from ccstate.recall import shapes


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("How big was the production bundle?", ("size",)),
        ("How much of the flash did the firmware take up?", ("size",)),
        ("How long did the migration take?", ("duration",)),
        ("How fast was the cold start after the change?", ("duration",)),
        ("Which version of jq was installed?", ("version",)),
        ("What's the public IP of the server?", ("address",)),
        ("Which port does the dev server listen on?", ("address",)),
        ("How large was the bundle and which vite version built it?", ("size", "version")),
        ("Why did the deploy fail?", ("failure",)),
        ("Why couldn't the container reach the database?", ("failure",)),
        ("What error did the build print?", ("failure",)),
        ("Is the tool's folder under version control?", ()),
        ("How did we set up the webhook retry?", ()),
    ],
)
def test_what_a_question_asks_for(question: str, asked: tuple[str, ...]) -> None:
    assert shapes.asked(question) == asked


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("dist/assets/index.js  169.44 kB │ gzip: 54.05 kB", "size"),
        ("-rw-r--r--@ 1 lee  staff  2382 Jan 21 20:31 help.md", "size"),
        ("37 files changed, 18807 insertions(+), 137 deletions(-)", "size"),
        ("Flash: [=========] 93.9% (used 1722818 bytes)", "size"),
        ("the turn took 3 min 3 s", "duration"),
        ("Done in 4.2s", "duration"),
        ("real\t1m12.5s", "duration"),
        ("/usr/bin/jq\njq-1.6", "version"),
        ("vite v6.4.2 building for production...", "version"),
        ("> mcp-voice-hooks@1.0.40 build", "version"),
        ("95.217.73.126", "address"),
        ("Deployed to https://example.vercel.app", "address"),
        ("[HTTP] Port 5111 already in use", "address"),
        ("listening on localhost:3000", "address"),
        ("Install skills\nexit: failed (exit 127)\ncommand not found: a-sdlc", "failure"),
        ("failed: Exit code 1\nfixed: retried; passed at line 201", "failure"),
        ("remote: Permission to x/y.git denied to z.", "failure"),
        ("TypeError: cannot read properties of undefined", "failure"),
    ],
)
def test_texts_that_hold_a_shape(text: str, shape: str) -> None:
    assert shapes.held(text, (shape,)) == (shape,)


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("the bundle got smaller after the split", "size"),
        ("it took a while", "duration"),
        ("upgrade to the newest release", "version"),
        ("the server address is in the config", "address"),
        ("retries = 3", "size"),
        ("Build verified, all tests pass\nexit: ok", "failure"),
    ],
)
def test_texts_without_the_shape(text: str, shape: str) -> None:
    assert shapes.held(text, (shape,)) == ()


def test_the_words_that_ask() -> None:
    terms = ["big", "backup", "dump", "firmware"]
    assert shapes.asking(terms, ("size",)) == ["big"]
    assert shapes.asking(terms, ()) == []
    assert shapes.asking(["Version", "jq"], ("version",)) == ["Version"]


def test_what_shapes_a_text_holds() -> None:
    assert shapes.held("bundle 412 kB built by vite v5.4.2", ("size", "version")) == (
        "size",
        "version",
    )
    assert shapes.held("bundle 412 kB", ("size", "version")) == ("size",)
