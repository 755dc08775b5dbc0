"""Which commands run a check tool, and which (#42)."""

from __future__ import annotations

import pytest

from ccstate.handoff.commands import split
from ccstate.handoff.tools import find_runs


def runs(line: str) -> list[tuple[str, str, str]]:
    return [(r.tool, r.kind, r.target) for r in find_runs(split(line))]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("python3 -m pytest -q", [("pytest", "test", "")]),
        (
            "pytest tests/test_a.py::test_x -k 'fast and not slow' -x",
            [("pytest", "test", "tests/test_a.py::test_x -k fast and not slow")],
        ),
        ("python -m unittest discover -s tests", [("unittest", "test", "")]),
        ("python3 -m black --check . 2>&1 | tail -3", [("black", "lint", "")]),
        (
            "ruff check src && ruff format --check src",
            [
                ("ruff check", "lint", ""),
                ("ruff format", "lint", ""),
            ],
        ),
        ("mypy src/pkg", [("mypy", "type", "src/pkg")]),
        ("cd web && npm test -- --coverage", [("npm test", "test", "")]),
        (
            "npm run build && pnpm lint && yarn workspace app typecheck",
            [
                ("npm run build", "build", ""),
                ("pnpm run lint", "lint", ""),
                ("yarn run typecheck", "type", ""),
            ],
        ),
        ("pnpm --filter web exec tsc --noEmit", [("tsc", "type", "")]),
        (
            "cargo t --all && cargo clippy -- -D warnings",
            [
                ("cargo test", "test", ""),
                ("cargo clippy", "lint", ""),
            ],
        ),
        (
            "go vet ./... && go test ./pkg/...",
            [("go vet", "lint", ""), ("go test", "test", "./pkg/...")],
        ),
        ("make -C api -j4 test VERBOSE=1", [("make test", "test", "")]),
        ("make", [("make", "build", "")]),
        ("./gradlew clean build", [("gradle build", "build", "")]),
        ("bash scripts/test.sh tests/handoff -x", [("scripts/test.sh", "test", "tests/handoff")]),
        ("tox -e py311", [("tox", "test", "")]),
        ("npx vitest run src/a.test.ts", [("vitest", "test", "src/a.test.ts")]),
        ("python manage.py test app.tests", [("manage.py test", "test", "app.tests")]),
    ],
)
def test_check_runs(line: str, expected: list[tuple[str, str, str]]) -> None:
    assert runs(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "ls; ls tests; cat tox.ini Makefile 2>/dev/null | head -60",
        'for t in black flake8 stubtest; do command -v $t >/dev/null || echo "$t: MISSING"; done',
        "which pytest && pytest --version",
        "black src",  # rewrites files: no check
        "ruff format .",
        "prettier --write .",
        "pytest --collect-only -q",
        "npm install && npm run dev",
        "make install",
        "pip install black mypy",
        "python -c 'import pytest'",
        "git commit -m 'make test pass'",
        "grep -r pytest .",
        "cat <<'EOF' > Makefile\ntest:\n\tpytest\nEOF",
    ],
)
def test_not_checks(line: str) -> None:
    assert runs(line) == []


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("./node_modules/.bin/vite build", [("vite", "build", "")]),
        ("npx next build", [("next", "build", "")]),
        ("cargo llvm-cov --html", [("cargo llvm-cov", "test", "")]),
        ("bash -n scripts/a.sh && echo ok", [("bash -n", "lint", "scripts/a.sh")]),
        ("cargo clippy -- -W clippy::unwrap_used", [("cargo clippy", "lint", "")]),
        (
            "mix format --check-formatted; mix credo",
            [("mix format", "lint", ""), ("mix credo", "lint", "")],
        ),
    ],
)
def test_more_check_runs(line: str, expected: list[tuple[str, str, str]]) -> None:
    assert runs(line) == expected


def test_vite_dev_is_no_check() -> None:
    assert runs("npx vite --port 3000") == []
