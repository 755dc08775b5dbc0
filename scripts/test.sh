#!/usr/bin/env bash
# The full test suite: lint, types, unit + CLI + hook tests, and the end-to-end suite that
# drives the real Claude Code CLI (npm @anthropic-ai/claude-code) against a fake API, on the
# oldest supported and the newest pinned version (ccstate.install.wiring.TESTED_CLAUDE). README.md's
# second command; CI runs it through .ci/run.
#
# Everything it builds lives outside the checkout, so the tree a plugin install copies holds
# only the source: the venv with ccstate and the test tools, and the mypy/ruff/pytest/bytecode
# caches under ${CCSTATE_TEST_CACHE:-~/.cache/ccstate-test}/<checkout path as a slug>/, the
# Claude Code CLIs under ${CCSTATE_E2E_CACHE:-~/.cache/ccstate-e2e}/claude-<version>/.
#
# Extra arguments go to pytest, e.g.  bash scripts/test.sh -k e2e -x
# `bash scripts/test.sh --venv` prints the venv's path (e.g. "$(bash scripts/test.sh --venv)/bin/pytest").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)

PYTHON=${PYTHON:-python3}
work=${CCSTATE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccstate-test}/$(printf '%s' "$root" | tr -c 'A-Za-z0-9' '-')
VENV=${CCSTATE_TEST_VENV:-$work/venv}
if [ "${1:-}" = "--venv" ]; then
  echo "$VENV"
  exit 0
fi
export PYTHONPYCACHEPREFIX="$work/pycache" MYPY_CACHE_DIR="$work/mypy" RUFF_CACHE_DIR="$work/ruff"
export CCSTATE_TEST_HYPOTHESIS="$work/hypothesis" CCSTATE_TEST_ARTIFACTS="$work/artifacts"

# A venv whose creation was cut short (Ctrl-C, a killed run) has a python and no pip: rebuilt.
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
  echo "== creating $VENV"
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  "$PYTHON" -m venv "$VENV"
fi
echo "== installing ccstate and test tools into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[test]'
# The editable install needs only the .pth file in the venv; the egg-info setuptools leaves
# in src/ would be copied by a plugin install like any other file of the tree.
rm -rf src/ccstate.egg-info

cache=${CCSTATE_E2E_CACHE:-$HOME/.cache/ccstate-e2e}
read -r -a versions <<<"$("$VENV/bin/python" -c 'from ccstate.install.wiring import TESTED_CLAUDE; print(*TESTED_CLAUDE)')"
for version in "${versions[@]}"; do
  claude_dir="$cache/claude-$version"
  if [ ! -x "$claude_dir/node_modules/@anthropic-ai/claude-code/bin/claude.exe" ]; then
    if command -v npm >/dev/null 2>&1; then
      echo "== installing Claude Code $version into $claude_dir"
      npm install --prefix "$claude_dir" "@anthropic-ai/claude-code@$version" \
        --no-audit --no-fund --loglevel=error
    else
      echo "== npm not found: the end-to-end tests will be skipped (CI fails instead)"
    fi
  fi
done
export CCSTATE_E2E_CACHE="$cache"

# shellcheck disable=SC1091
source "$VENV/bin/activate"
echo "== ruff format --check"; ruff format --check src tests scripts hooks bench
echo "== ruff check";          ruff check src tests scripts hooks bench
echo "== mypy";                mypy
echo "== lint-imports";        lint-imports --no-cache pyproject.toml importlinter-typing.toml
# Exit 5 (no tests collected) must fail, so no special-casing here.
if [ $# -gt 0 ]; then
  echo "== pytest $*"
  pytest -q -o cache_dir="$work/pytest" "$@"
  exit
fi
# The whole suite in two streams side by side: the end-to-end tests spend most of their time
# waiting on the real CLI and the fake API, the rest is CPU; one after the other they took
# 28 minutes of wall time for 20 of CPU on a 2-CPU machine. The end-to-end stream's output is
# shown when both are done. The end-to-end tests themselves run in CCSTATE_E2E_WORKERS
# processes (3 by default, pytest-xdist): each waits on its CLI most of the time (1,105 s in
# one process, 531 s in three, on the 2-CPU machine). Each stream ends with its slowest tests
# (CI time is a budget, #40).
echo "== pytest: end-to-end tests on Claude Code ${versions[*]} (tests/e2e, in the background)"
e2e_log="$work/e2e.log"
pytest -q -o cache_dir="$work/pytest-e2e" -n "${CCSTATE_E2E_WORKERS:-3}" --durations=10 tests/e2e \
  >"$e2e_log" 2>&1 &
e2e_pid=$!
echo "== pytest: everything else"
set +e
pytest -q -o cache_dir="$work/pytest" --durations=20 tests --ignore=tests/e2e
rest=$?
wait "$e2e_pid"
e2e=$?
set -e
echo "== pytest: end-to-end tests (tests/e2e)"
cat "$e2e_log"
echo "== pytest exit codes: everything else $rest, end-to-end $e2e"
[ "$rest" -eq 0 ] && [ "$e2e" -eq 0 ]
