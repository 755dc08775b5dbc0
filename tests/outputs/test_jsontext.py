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
