"""Splitting a shell line into its simple commands (#42)."""

from __future__ import annotations

import pytest

from ccstate.handoff.commands import Simple, split, unwrap


def shape(line: str) -> list[tuple[str, str]]:
    return [(" ".join(s.words), s.joiner) for s in split(line)]


def test_pipes_lists_and_redirections() -> None:
    line = 'cd web && npm test 2>&1 | tail -5; echo "exit=$?" > /dev/null || true'
    assert shape(line) == [
        ("cd web", "&&"),
        ("npm test", "|"),
        ("tail -5", ";"),
        ("echo exit=$?", "||"),
        ("true", ""),
    ]


def test_subshells_loops_and_newlines() -> None:
    line = (
        "(cd a && make)&>/dev/null\n"
        'for t in black flake8; do command -v $t || echo "$t: MISSING"; done; black --check .'
    )
    assert shape(line) == [
        ("cd a", "&&"),
        ("make", ";"),
        ("command -v $t", "||"),
        ("echo $t: MISSING", ";"),
        ("black --check .", ""),
    ]  # the loop's header names values, not commands


def test_heredoc_bodies_continuations_and_shells_inside() -> None:
    line = "cat > t.py <<'EOF'\nimport pytest\nit's not a command\nEOF\npytest \\\n  -q t.py"
    assert shape(line) == [("cat", ";"), ("pytest -q t.py", "")]
    assert shape("bash -c 'cd x && pytest -q' | tail -3") == [
        ("cd x", "&&"),
        ("pytest -q", "|"),
        ("tail -3", ""),
    ]
    assert shape("cat <<< 'x'; ls") == [("cat", ";"), ("ls", "")]  # a here-string has no body


def test_an_unclosed_quote_still_splits() -> None:
    assert shape("pytest -k 'unclosed && make test") == [
        ("pytest -k 'unclosed", "&&"),
        ("make test", ""),
    ]


def test_background_and_trailing_separators() -> None:
    assert split("npm run dev & pytest -q;") == [
        Simple(("npm", "run", "dev"), "&"),
        Simple(("pytest", "-q"), ""),
    ]


@pytest.mark.parametrize(
    ("words", "bare"),
    [
        ("FOO=1 env -u X BAR=2 timeout -s KILL 60 pytest -q", "pytest -q"),
        ("uv run --with pytest-cov --frozen pytest tests", "pytest tests"),
        ("poetry run mypy src", "mypy src"),
        ("npx --yes tsc --noEmit", "tsc --noEmit"),
        ("pnpm exec vitest run", "vitest run"),
        ("coverage run --source src -m pytest", "python -m pytest"),
        ("docker compose -f dc.yml exec -T web pytest -x", "pytest -x"),
        ("docker exec -it box make test", "make test"),
        ("sudo -u ci nice -n 5 cargo test", "cargo test"),
        ("command -v black", ""),
        ("docker compose up", ""),
    ],
)
def test_unwrap(words: str, bare: str) -> None:
    assert " ".join(unwrap(tuple(words.split()))) == bare
