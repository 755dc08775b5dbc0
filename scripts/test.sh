#!/usr/bin/env bash
# The full test suite: lint, types, unit + CLI + hook tests, and the end-to-end suite that
# drives the real Claude Code CLI (npm @anthropic-ai/claude-code, pinned) against a fake API.
# Installs what it needs: a venv in .venv with ccstate and its test tools, and the pinned
# Claude Code CLI in ${CCSTATE_E2E_CACHE:-~/.cache/ccstate-e2e} (outside the repo).
# Extra arguments go to pytest, e.g.  bash scripts/test.sh -k e2e -x
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE_VERSION=2.1.328
PYTHON=${PYTHON:-python3}
VENV=${CCSTATE_TEST_VENV:-.venv}

if [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
echo "== installing ccstate and test tools into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[test]'

cache=${CCSTATE_E2E_CACHE:-$HOME/.cache/ccstate-e2e}
claude_dir="$cache/claude-$CLAUDE_CODE_VERSION"
if [ ! -x "$claude_dir/node_modules/@anthropic-ai/claude-code/bin/claude.exe" ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "== installing Claude Code $CLAUDE_CODE_VERSION into $claude_dir"
    npm install --prefix "$claude_dir" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" \
      --no-audit --no-fund --loglevel=error
  else
    echo "== npm not found: the end-to-end tests will be skipped (CI fails instead)"
  fi
fi
export CCSTATE_E2E_CACHE="$cache"

# shellcheck disable=SC1091
source "$VENV/bin/activate"
echo "== ruff format --check"; ruff format --check src tests scripts hooks bench
echo "== ruff check";          ruff check src tests scripts hooks bench
echo "== mypy";                mypy
echo "== lint-imports";        lint-imports --no-cache
echo "== pytest"
# Exit 5 (no tests collected) must fail, so no special-casing here.
pytest -q "$@"
