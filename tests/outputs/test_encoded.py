"""Long runs of encoded data cut to their start and a marker (outputs/encoded.py), and the
digests that use it (outputs/core.py, outputs/jsontext.py)."""

from __future__ import annotations

import base64
import json
import random

import pytest

from ccstate.outputs import core, encoded
from ccstate.outputs import lines as L
from helpers import FIXTURES

RND = random.Random(24)
B64 = base64.b64encode(bytes(RND.randrange(256) for _ in range(6_000))).decode()  # 8,000 chars
HEX = bytes(RND.randrange(256) for _ in range(1_000)).hex()  # 2,000 chars


def test_a_base64_run_keeps_its_start_and_says_its_kind_and_length() -> None:
    text = f'logo: "data:image/png;base64,{B64}" (inline)'
    short = encoded.elide(text)
    assert short == (
        f'logo: "data:image/png;base64,{B64[:32]}…[ccstate: {len(B64) - 32:,} base64 '
        'characters left out]" (inline)'
    )
    assert encoded.elided(text, short) == 1
    assert encoded.kind(B64) == "base64" and encoded.kind(HEX) == "hex"


def test_a_hex_dump_and_url_safe_base64_are_runs_too() -> None:
    url_safe = B64.replace("+", "-").replace("/", "_").rstrip("=")
    text = f"sha-chain {HEX}\ntoken={url_safe}\ndone"
    rows = encoded.elide(text).split("\n")
    assert rows[0] == f"sha-chain {HEX[:32]}…[ccstate: {len(HEX) - 32:,} hex characters left out]"
    assert rows[1].startswith(f"token={url_safe[:32]}…[ccstate: ") and rows[2] == "done"


@pytest.mark.parametrize(
    "run",
    [
        "/".join(["components", "widgets", "forms", "inputs"] * 60),  # a path without dots
        "".join(w.capitalize() for w in ["handle", "request", "Factory", "bean"] * 70),  # a name
        "1234567890" * 120,  # digits only: a number
        "ab" * 600,  # two letters: no encoding has so few characters
        B64[:716],  # an RSA 4096 ssh key is shorter than a run
    ],
    ids=["path", "identifier", "digits", "repeated", "ssh-key"],
)
def test_text_that_only_looks_like_a_run_stays(run: str) -> None:
    text = f"value: {run}\n"
    assert encoded.elide(text) is text


def test_a_failure_line_keeps_its_runs() -> None:
    failing = f"Error: invalid image payload {B64}"
    text = f"{failing}\nok {B64}"
    rows = encoded.elide(text).split("\n")
    assert L.is_failure_line(failing) and rows[0] == failing
    assert rows[1].endswith("base64 characters left out]")


def test_a_json_answer_keeps_its_data_and_loses_the_image_bytes() -> None:
    answer = {
        "id": "gen-1",
        "choices": [{"message": {"content": "here", "images": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + B64}}]}}],
        "usage": {"total_tokens": 2580},
    }  # fmt: skip
    text = json.dumps(answer, indent=2)
    body = core.digest_for("mcp__imagegen__create", text)
    assert body is not None and body.how == "json" and body.elided == 1
    data = json.loads(body.text)  # still JSON
    url = data["choices"][0]["message"]["images"][0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64," + B64[:32] + "…[ccstate: 7,968 base64 ")
    assert data["usage"] == {"total_tokens": 2580} and len(body.text) < 400
    closing = core.with_handle(body, text, "/p/o.txt")
    assert "(links, ids and empty values dropped; 1 base64 or hex run cut)" in closing


def test_json_cut_short_by_claude_code_is_left_whole_but_for_its_runs() -> None:
    text = (FIXTURES / "outputs" / "image-api-response.txt").read_text()
    body = core.digest_for("Bash", text)
    assert body is not None and body.how == "encoded" and len(body.text) < 1000
    before, after = text.split("\n"), body.text.split("\n")
    (at,) = (i for i, row in enumerate(before) if "data:image/png" in row)
    assert after[:at] + after[at + 1 :] == before[:at] + before[at + 1 :]  # every other line
    assert after[at].startswith(before[at][: before[at].index("base64,") + 7 + 32] + "…")
    assert "(long base64 and hex runs cut)" in core.with_handle(body, text, "/p/o.txt")


def test_json_lines_and_plain_text_get_their_runs_cut_with_the_rest_of_their_digest() -> None:
    rows = [json.dumps({"n": i, "thumb": B64 if i == 3 else "x"}) for i in range(6)]
    body = core.digest_for("Bash", "\n".join(rows))
    assert body is not None and body.how == "jsonl" and body.elided == 1
    log = [f"12:00:{i:02d} upload chunk {i} ok" for i in range(30)] + [f"payload {B64}"]
    body = core.digest_for("Bash", "\n".join(log))
    assert body is not None and body.how == "lines" and body.elided == 1
    assert body.text.endswith("base64 characters left out]")


def test_grep_and_glob_are_never_cut() -> None:
    grep = "\n".join(f"assets/logo{i}.svg:1:<image href='data:image/png;base64,{B64}'/>"
                     for i in range(2))  # fmt: skip
    body = core.digest_for("Grep", grep)
    assert body is None or encoded.TAG not in body.text
