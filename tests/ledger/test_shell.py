"""Bash re-prints of lines a context already holds: detection only (docs/LEDGER.md)."""

from __future__ import annotations

import pytest

from ccstate.ledger import core as ledger
from ccstate.ledger import reprint


@pytest.mark.parametrize(
    "command, expected",
    [
        ("cat app.py", ("/p/app.py", 1, None)),
        ("cat /abs/x.txt", ("/abs/x.txt", 1, None)),
        ("head app.py", ("/p/app.py", 1, 10)),
        ("head -n 25 app.py", ("/p/app.py", 1, 25)),
        ("head -n25 app.py", ("/p/app.py", 1, 25)),
        ("head -7 app.py", ("/p/app.py", 1, 7)),
        ("sed -n '10,20p' src/app.py", ("/p/src/app.py", 10, 20)),
        ("sed -n 5p app.py", ("/p/app.py", 5, 5)),
        ("sed -n '5,$p' app.py", ("/p/app.py", 5, None)),
        ("cat a.py b.py", None),
        ("cat -n app.py", None),
        ("cat app.py | grep x", None),
        ("cat $HOME/x", None),
        ("head -n x app.py", None),
        ("sed -i 's/a/b/' app.py", None),
        ("sed -n '20,10p' app.py", None),
        ("sed -n '/re/p' app.py", None),
        ("cat 'unterminated", None),
        ("ls app.py", None),
        ("", None),
        ("cat", None),
    ],
)
def test_parse_command(command: str, expected: tuple | None) -> None:
    assert reprint.parse_command(command, "/p") == expected


def _ledger_with(text: str) -> tuple[ledger.Ledger, dict[str, str]]:
    lines = text.split("\n")
    resp = {
        "type": "text",
        "file": {
            "filePath": "/p/app.py",
            "content": text,
            "numLines": len(lines),
            "startLine": 1,
            "totalLines": len(lines),
        },
    }
    event = ledger.read_event({"file_path": "/p/app.py"}, resp, "/p")
    decision = ledger.decide(ledger.Ledger(), event, lambda _sha: None, ledger.Options())
    return ledger.record(ledger.Ledger(), event, decision), {event.sha: text}


def test_known_output_is_recognised_and_a_changed_one_is_not() -> None:
    text = "a = 1\nb = 2\nc = 3\n"
    held, blobs = _ledger_with(text)
    target = reprint.parse_command("cat app.py", "/p")
    assert target is not None
    assert reprint.is_known_output(held, target, text, blobs.get)
    assert reprint.is_known_output(held, ("/p/app.py", 2, 3), "b = 2\nc = 3", blobs.get)
    assert not reprint.is_known_output(held, target, "a = 1\nb = 22\nc = 3\n", blobs.get)
    assert not reprint.is_known_output(held, ("/p/other.py", 1, None), text, blobs.get)
    assert not reprint.is_known_output(held, target, "", blobs.get)
    assert not reprint.is_known_output(held, target, text + "d = 4\n", blobs.get)
