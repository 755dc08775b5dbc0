"""repo.grammars: every language's wheel loads and its queries compile."""

from __future__ import annotations

import pytest

from ccstate.repo import grammars


@pytest.mark.parametrize("name", sorted(grammars.LANGUAGES))
def test_each_grammar_loads_with_a_tags_and_a_reference_query(name: str) -> None:
    grammar = grammars.grammar(name)
    assert grammar.tags.pattern_count >= 1 and grammar.refs.pattern_count == 1


def test_every_extension_names_a_known_language() -> None:
    assert set(grammars.EXTENSIONS.values()) <= set(grammars.LANGUAGES)
    assert grammars.language_of("A/B.TSX") == "tsx" and grammars.language_of("x.md") == ""


def test_a_wheel_that_is_not_installed_says_what_to_install(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    monkeypatch.setitem(sys.modules, "tree_sitter_lua", None)
    monkeypatch.delitem(grammars._LOADED, "lua", raising=False)
    with pytest.raises(grammars.Unavailable, match="pip install tree-sitter-lua"):
        grammars.grammar("lua")
    assert "pip install tree-sitter-lua" in grammars.installed()["lua"]
    monkeypatch.delitem(grammars._LOADED, "lua")
