"""Markdown said in one line (src/ccstate/instructions/gists.py)."""

from __future__ import annotations

from ccstate.instructions import gists


def test_gist_is_title_and_first_sentence_without_imports() -> None:
    text = "# Architecture\n\n<!-- c -->\nThe CLI is thin. More @x.md here.\n"
    assert gists.gist(text) == "Architecture: The CLI is thin."
    assert gists.gist("") == "notes"
    assert gists.gist("# T\n\n" + "word " * 50).endswith("…")
    assert "@" not in gists.gist("@a.md @b.md imports only here")


def test_slug() -> None:
    assert gists.slug("Build & Run (CI)") == "build-run-ci"
    assert gists.slug("???") == "section"
