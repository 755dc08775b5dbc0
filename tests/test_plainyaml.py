"""plainyaml: what it reads, it reads as PyYAML's safe_load does; the rest it refuses (None)."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ccstate import plainyaml
from ccstate.scaffold.plan import template_text


def pyyaml(text: str) -> Any:
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError:
        return "error"
    return {} if loaded is None else loaded


def test_the_template_and_the_documented_shapes_are_read_as_pyyaml_reads_them() -> None:
    template = template_text("ccstate.yaml")
    assert plainyaml.parse(template) == pyyaml(template) != {}
    text = (
        "---\n# team settings\ndedupe:\n  enabled: off   # not for us\n  diff_max_ratio: .25\n"
        "recall:\n    embedding_model: 'models/potion # 8M'\n    max_mb: 64\n"
        'report:\n  pricing: "prices.json"\nmoments:\n  statusline:\n    format: ""\n'
        "  resume:\n    min_usd: 1.\nlint:\n  topic_dir: docs/it's here\nempty:\nnone: ~\n"
    )
    assert plainyaml.parse(text) == pyyaml(text)
    assert plainyaml.parse(text)["dedupe"] == {"enabled": False, "diff_max_ratio": 0.25}


def test_what_it_is_not_sure_of_is_refused() -> None:
    for text in (
        "a: [1, 2]\n",
        "a: {b: 1}\n",
        "a:\n  - 1\n",
        "a: &x 1\n",
        "a: !!str 1\n",
        "a: |\n  text\n",
        'a: "tab\\tescape"\n',
        "a: 'open\n",
        "a: 2026-12-02\n",
        "a: 1_000\n",
        "a: 0x1F\n",
        "a: 017\n",
        "a: 1e3\n",
        "a: .inf\n",
        "a: b: c\n",
        "a:\n\tb: 1\n",
        "a:\n    b: 1\n  c: 2\n",
        "yes: 1\n",
        "'quoted key': 1\n",
        "a: <<\n",
        "just text\n",
    ):
        assert plainyaml.parse(text) is None, text


# keys YAML reads as booleans or null (`no: 1` is {False: 1}) are refused, not read: not keys here
_KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda k: k not in {"yes", "no", "on", "off", "true", "false", "null"}
)
_WORD_TEXT = (
    "yes no on off true False TRUE null ~ 0 7 -3 +4 08 1.5 .5 -.5 +.5 2. 1e3 1.0e+3 0o7 0x1F "
    "07 1_0 12:30 2026-01-02 abc a-b a.b a/b http://x.org a#b a:b docs/claude x=y << = -x "
    "nan inf .nan -.inf Inf"
)
_WORDS = st.sampled_from(_WORD_TEXT.split())
_SCALARS = st.one_of(
    _WORDS,
    st.from_regex(r"[A-Za-z0-9 ._/#:'-]{1,12}", fullmatch=True).map(str.strip).filter(bool),
    st.from_regex(r"[A-Za-z0-9 #:._-]{0,10}", fullmatch=True).map(lambda s: f"'{s}'"),
    st.from_regex(r"[A-Za-z0-9 #:'._-]{0,10}", fullmatch=True).map(lambda s: f'"{s}"'),
)


@st.composite
def documents(
    draw: st.DrawFn,
    scalars: st.SearchStrategy[str],
    comments: tuple[str, ...] = ("", "  # why", " #x"),
    steps: tuple[int, ...] = (2, 4),
    depth: int = 0,
    indent: int = 0,
) -> str:
    """Nested block mappings of `scalars`, with comments and blank or comment lines."""
    lines = []
    for key in draw(st.lists(_KEYS, min_size=1, max_size=4)):
        pad = " " * indent
        if depth < 2 and draw(st.booleans()):
            inner = documents(
                scalars, comments, steps, depth + 1, indent + draw(st.sampled_from(steps))
            )
            lines += [f"{pad}{key}:", draw(inner)]
        else:
            lines.append(f"{pad}{key}: {draw(scalars)}{draw(st.sampled_from(comments))}")
        if comments[1:] and draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "# note", pad + "# indented note"])))
    return "\n".join(lines)


@settings(max_examples=400, deadline=None)
@given(documents(_SCALARS))
def test_what_it_reads_pyyaml_reads_the_same(text: str) -> None:
    mine = plainyaml.parse(text)
    if mine is not None:
        assert mine == pyyaml(text), text


_PLAIN = st.one_of(
    st.sampled_from(
        "yes no On OFF true False null ~ 0 7 -3 +4 08 1.5 .5 2. abc a-b a.b".split()  # noqa: SIM905
    ),
    st.from_regex(r"[a-z][a-z0-9/._-]{0,10}", fullmatch=True),
    st.integers(-10_000, 10_000).map(str),
    st.from_regex(r"[a-z0-9 #:._-]{0,10}", fullmatch=True).map(lambda s: f"'{s}'"),
)


@settings(max_examples=200, deadline=None)
@given(documents(_PLAIN, comments=("", "  # why"), steps=(2,)))
def test_settings_in_plain_words_and_numbers_are_always_read(text: str) -> None:
    """Not only None: what settings files hold (words, numbers, booleans, quoted paths,
    comments, nesting) is read, as PyYAML reads it."""
    assert plainyaml.parse(text) == pyyaml(text), text


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list(" \t\n:#'\"-abcXY01._[]{}|>&*!~%@`\r\ufeff")), max_size=80
    )
)
def test_any_text_gives_a_mapping_or_none_never_an_error(text: str) -> None:
    """The hooks parse whatever the file holds: nothing in it may raise."""
    mine = plainyaml.parse(text)
    assert mine is None or isinstance(mine, dict)
    if mine is not None:
        assert mine == pyyaml(text), text
