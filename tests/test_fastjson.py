"""fastjson: json's values and bytes through `_json`, without importing json or re (#14)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from ccstate import fastjson
from helpers import hook_env

VALUES = [
    {"b": [1, 2.5, -0.0, 1e100, None, True, False], "a": {"z": 'é\u2028"\\\n\t\x00', "y": []}},
    "a string with \udcff a lone surrogate",
    [[], {}, "", 0, -1, 2**70, 3.141592653589793],
    {"nested": [{"deep": [[[{"x": "y"}]]]}]},
]
DOCUMENTS = [' {"a": [1, 2, {"b": null}]}\n', "1", '"x"', "[NaN, Infinity, -Infinity]", " [] "]
MALFORMED = ["", " ", "{", "[1,]", "1 2", '{"a":1}x', "nul", '{"a" 1}', '"\\x"', "[1\n,,2]"]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("sort_keys", [False, True])
@pytest.mark.parametrize("ensure_ascii", [False, True])
@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_dumps_is_json_dumps(
    value: object, sort_keys: bool, ensure_ascii: bool, separators: tuple[str, str]
) -> None:
    kwargs = {"sort_keys": sort_keys, "ensure_ascii": ensure_ascii, "separators": separators}
    assert fastjson.dumps(value, **kwargs) == json.dumps(value, **kwargs)  # type: ignore[arg-type]


def test_dumps_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        fastjson.dumps({"a": {1, 2}})


@pytest.mark.parametrize("text", DOCUMENTS + [fastjson.dumps(v) for v in VALUES])
def test_loads_is_json_loads(text: str) -> None:
    got, want = fastjson.loads(text), json.loads(text)
    assert repr(got) == repr(want) or (
        isinstance(got, list) and math.isnan(got[0]) and math.isnan(want[0])
    )


@pytest.mark.parametrize("text", MALFORMED)
def test_loads_raises_json_s_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as got:
        fastjson.loads(text)
    with pytest.raises(json.JSONDecodeError) as want:
        json.loads(text)
    assert str(got.value) == str(want.value)


def test_neither_json_nor_re_is_imported() -> None:
    code = (
        "import sys; from ccstate import fastjson; "
        "v = fastjson.loads(fastjson.dumps({'a': [1, 'b']})); "
        "print(v == {'a': [1, 'b']}, 'json' in sys.modules, 're' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=hook_env(), check=True
    )
    assert proc.stdout.split() == ["True", "False", "False"]
