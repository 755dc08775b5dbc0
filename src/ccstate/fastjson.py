"""JSON for the hooks: CPython's C accelerator (`_json`), without importing `json`.

`import json` imports `re` (its decoder's and encoder's patterns), and with it enum, functools
and collections: about 7 ms, half a bare interpreter's start, on every hook process (#14,
docs/BENCHMARKS.md). The work itself is done by `_json`'s scanner and encoder either way, so
`loads` and `dumps` here build those two directly and give what `json.loads` and
`json.dumps(separators=...)` give, byte for byte (tests/test_fastjson.py). Where `_json` is
missing or differs (another Python implementation), they fall back to `json` itself.

Output is compact (`,` and `:`) unless told otherwise: state files are read by programs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"  # what json's decoder skips around a document
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """The attributes `_json.make_scanner` reads from a decoder (json.decoder's defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def _default(o: Any) -> Any:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


_scan: Callable[[str, int], tuple[Any, int]] | None
_encoders: dict[tuple[bool, str, str, bool], Callable[[Any, int], Any]] = {}
try:
    import _json

    _scan = _json.make_scanner(_Context())  # type: ignore[arg-type]  # duck-typed decoder
    _ascii, _unicode = _json.encode_basestring_ascii, _json.encode_basestring
    _make_encoder = _json.make_encoder
    _make_encoder(None, _default, _ascii, None, ":", ",", False, False, True)({}, 0)
except Exception:  # pragma: no cover - another implementation: json does it all
    _scan = None


def loads(text: str) -> Any:
    """`json.loads(text)` for a str: the same value, or the same JSONDecodeError (a
    ValueError), which `json` itself raises for a document that is not valid."""
    if _scan is not None:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = _scan(text, start)
        except Exception:  # StopIteration, or a SystemError: the scanner reports a malformed
            pass  # document through json.decoder, which only `json` (below) imports
        else:
            if end == len(text) or not text[end:].strip(_WHITESPACE):
                return value
    import json  # a malformed document (or no _json): json says what is wrong with it

    return json.loads(text)


def dumps(
    value: Any,
    *,
    sort_keys: bool = False,
    ensure_ascii: bool = True,
    separators: tuple[str, str] = (",", ":"),
) -> str:
    """`json.dumps(value, sort_keys=..., ensure_ascii=..., separators=...)`; compact by
    default. TypeError for what JSON cannot hold; circular structures are not checked."""
    item, key = separators
    if _scan is None:  # pragma: no cover
        import json

        return json.dumps(
            value, sort_keys=sort_keys, ensure_ascii=ensure_ascii, separators=(item, key)
        )
    if isinstance(value, str):
        return (_ascii if ensure_ascii else _unicode)(value)
    spec = (ensure_ascii, key, item, sort_keys)
    encode = _encoders.get(spec)
    if encode is None:
        encoder = _ascii if ensure_ascii else _unicode
        encode = _encoders[spec] = _make_encoder(
            None, _default, encoder, None, key, item, sort_keys, False, True
        )
    return "".join(encode(value, 0))
