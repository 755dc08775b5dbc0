"""JSON text results without link plumbing (outputs/jsontext.py)."""

from __future__ import annotations

import json

from ccstate.outputs import jsontext

USER = {
    "login": "octo",
    "id": 7,
    "node_id": "MDQ6VXNlcjc=",
    "avatar_url": "https://avatars.githubusercontent.com/u/7?v=4",
    "gravatar_id": "",
    "url": "https://api.github.com/users/octo",
    "html_url": "https://github.com/octo",
    "followers_url": "https://api.github.com/users/octo/followers",
    "gists_url": "https://api.github.com/users/octo/gists{/gist_id}",
    "type": "User",
    "site_admin": False,
}
ISSUE = {
    "id": 1,
    "number": 42,
    "title": "Fix the error path",
    "body": "It fails with\nTypeError: x is undefined",
    "user": USER,
    "assignee": None,
    "labels": [],
    "reactions": {"url": "https://api.github.com/r", "total_count": 0, "+1": 0, "-1": 0},
    "closed_by": USER,
    "locked": False,
}


def test_links_ids_and_empty_values_go_and_a_repeated_object_points_back() -> None:
    text = json.dumps(ISSUE, indent=2)
    got = jsontext.compact_json(text)
    assert got is not None
    assert json.loads(got) == {
        "id": 1,
        "number": 42,
        "title": "Fix the error path",
        "body": "It fails with\nTypeError: x is undefined",
        "user": {
            "login": "octo",
            "id": 7,
            "html_url": "https://github.com/octo",
            "type": "User",
            "site_admin": False,
        },
        "closed_by": "[ccstate: same as user]",
        "locked": False,
    }
    assert len(got) < len(text) / 2


def test_text_that_is_not_one_json_value_is_left_alone() -> None:
    assert jsontext.compact_json("plain text") is None
    assert jsontext.compact_json('{"cut": "short') is None
    assert jsontext.compact_json('{"a":1}\n{"b":2}') is None  # JSON lines: more than one value
    assert jsontext.compact_json('{"a":1}') is None  # nothing to drop


def _row(**fields: object) -> str:
    return json.dumps(fields, separators=(",", ":"))


def test_json_lines_are_compacted_row_by_row_and_point_back_across_rows() -> None:
    model = {"provider": "acme", "name": "acme-coder-2", "context_window": 200000, "x": "y" * 20}
    rows = [
        _row(type="start", model=model, parent=None, tags=[]),
        "",
        _row(type="turn", model=model, user=USER),
        _row(type="end", reason="done"),
    ]
    got = jsontext.compact_lines(rows, long_line=2000)
    assert got is not None
    out, failing = got
    assert json.loads(out[0]) == {"type": "start", "model": model}
    assert out[1] == ""
    assert json.loads(out[2])["model"] == "[ccstate: same as line 1.model]"
    assert "followers_url" not in out[2] and '"html_url":"https://github.com/octo"' in out[2]
    assert out[3] == rows[3] and failing == []  # nothing to drop: the row as it was


def test_a_row_with_a_failure_in_its_strings_is_reported_and_long_rows_are_not_pointed_to() -> None:
    trace = 'Traceback (most recent call last):\n  File "a.py", line 3\nValueError: bad sku'
    big = {"files": [f"data/orders/order-{i:04d}.json" for i in range(100)], "more": USER}
    rows = [_row(type="snapshot", snap=big), _row(type="result", output=trace, again=USER)]
    got = jsontext.compact_lines(rows, long_line=2000)
    assert got is not None
    out, failing = got
    assert failing == [1]
    assert "same as" not in out[1]  # USER sits in row 1, which is long: a digest cuts it


def test_text_that_is_not_json_lines_is_left_alone() -> None:
    assert jsontext.compact_lines(['{"a":1}', "plain text", '{"b":2}'], 2000) is None
    assert jsontext.compact_lines(['{"a":null}'], 2000) is None  # one row: a JSON text
    headed = ["==> a.jsonl <==", '{"a":1,"b":null}', '{"c":[]}', "", "==> b.jsonl <==", '{"d"']
    got = jsontext.compact_lines(headed, 2000)  # `head` of two files, the last row cut short
    assert got is not None and got[0] == ["==> a.jsonl <==", '{"a":1}', "{}", "", headed[4], '{"d"']
