"""recall.extract: a moment's title and body redacted together give what each alone gives."""

from __future__ import annotations

import pytest

from ccstate.recall import extract
from ccstate.recall.moments import Moment
from ccstate.secrets import redact
from secrets_corpus import KINDS

PASSWORD = "hunter2" + "Zq9"


@pytest.mark.parametrize(
    ("title", "body"),
    [
        ("curl", f"-u admin:{PASSWORD} https://example.org"),  # `(?:^|\s)-u` at the body's start
        (f"mysql -u root -p{PASSWORD}", "ERROR 1045"),
        ("a", "b"),
        ("key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"),
        ("title\x00\nwith the separator", f"password={PASSWORD}"),
        *((kind, text) for kind, text, _secret, _neg in KINDS),
        *((text, kind) for kind, text, _secret, _neg in KINDS),
    ],
)
def test_title_and_body_redact_as_each_alone(title: str, body: str) -> None:
    red = redact.Redactor()
    row = extract._row(Moment("command", 1, title, body), red, "s")
    assert row[6:8] == (red.redact(title), red.redact(body))
