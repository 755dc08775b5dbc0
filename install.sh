#!/usr/bin/env bash
# Install ccstate from this checkout into a private venv, put `ccstate`, `ccstate-hook`
# (what project hooks run) and `ccstate-statusline` (the status line) on PATH, then wire
# the current git project (`ccstate init`) and check it (`ccstate doctor`). README.md's first
# command; CI runs it through .ci/run, tests/test_install_sh.py in a fresh HOME.
#
# Usage: ./install.sh [--no-init] [PROJECT_DIR]
#        ./install.sh --uninstall [--no-init] [PROJECT_DIR]
#
# --uninstall undoes it: `ccstate init --remove` in the project (unless --no-init),
# then the links and the venv. Other projects keep their hooks; with ccstate gone they
# show one "not installed" message per session until `ccstate init --remove` there.
#
# Why a venv under the user's data dir ($CCSTATE_INSTALL_DIR/venv): it needs only
# `python3 -m venv` and PyPI (no uv or pipx), there is one venv per user whatever
# the number of projects, and a rerun upgrades it in place. The venv is rebuilt
# only when it is missing or broken; ccstate itself is reinstalled on every run
# (non-editable, from this directory, never from PyPI: the name there may belong
# to someone else), so a rerun picks up the checkout's changes.
#
# Safe to rerun: every step either does its work or prints "skip ...".
#
# Environment:
#   CCSTATE_INSTALL_DIR  where the venv lives
#                        (default: ${XDG_DATA_HOME:-$HOME/.local/share}/ccstate)
#   CCSTATE_BIN_DIR      where the `ccstate`, `ccstate-hook` and `ccstate-statusline`
#                        symlinks go (default: ~/.local/bin or ~/bin when on PATH,
#                        else /usr/local/bin when writable, else ~/.local/bin plus a
#                        printed PATH line)
#   CCSTATE_PYTHON       interpreter that creates the venv (default: python3; >= 3.10)
#   CCSTATE_VENV_ARGS    extra `python -m venv` arguments. A test/offline aid: the test
#                        suite passes --system-site-packages so the dependencies
#                        already installed for the base interpreter are reused.
set -euo pipefail

readonly MIN_PYTHON="3.10"
SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
readonly SOURCE_DIR

usage() {
  cat <<'EOF'
Usage: install.sh [--no-init] [PROJECT_DIR]
       install.sh --uninstall [--no-init] [PROJECT_DIR]

Install ccstate from this checkout into a private venv
(${CCSTATE_INSTALL_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/ccstate}/venv),
link `ccstate`, `ccstate-hook` and `ccstate-statusline` into a bin dir on PATH, then,
when PROJECT_DIR (default: the current directory) is inside a git repository, run
`ccstate init` and `ccstate doctor` at its top level. Safe to rerun.

Options:
  --no-init    install and link only; do not wire or check a project
  --uninstall  run `ccstate init --remove` in the project (unless --no-init), then
               remove the links and the venv
  -h, --help   show this help and exit

Environment: CCSTATE_INSTALL_DIR, CCSTATE_BIN_DIR, CCSTATE_PYTHON,
CCSTATE_VENV_ARGS (see the header of this script).
EOF
}

say() { printf '%s\n' "$*"; }
die() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}

parse_args() {
  DO_INIT=1
  UNINSTALL=0
  PROJECT_ARG=""
  local arg only_dirs=0
  for arg in "$@"; do
    if [ "$only_dirs" -eq 0 ]; then
      case "$arg" in
        -h | --help)
          usage
          exit 0
          ;;
        --no-init) DO_INIT=0; continue ;;
        --uninstall) UNINSTALL=1; continue ;;
        --) only_dirs=1; continue ;;
        -*) die "unknown option '$arg' (see --help)" ;;
      esac
    fi
    [ -z "$PROJECT_ARG" ] || die "at most one PROJECT_DIR (got '$PROJECT_ARG' and '$arg')"
    PROJECT_ARG="$arg"
  done
}

# Sets PYTHON to an interpreter >= MIN_PYTHON that can create venvs.
find_python() {
  PYTHON="${CCSTATE_PYTHON:-python3}"
  command -v "$PYTHON" >/dev/null 2>&1 \
    || die "ccstate needs Python >= $MIN_PYTHON, but '$PYTHON' was not found (install python3 or set CCSTATE_PYTHON)"
  local found
  if ! found="$("$PYTHON" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3]); sys.exit(sys.version_info < (3, 10))' 2>/dev/null)"; then
    die "ccstate needs Python >= $MIN_PYTHON, but '$PYTHON' is ${found:-unusable} (set CCSTATE_PYTHON to a newer interpreter)"
  fi
  PYTHON_VERSION="$found"
  "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1 \
    || die "'$PYTHON' cannot create virtual environments (on Debian/Ubuntu: apt-get install python3-venv)"
}

venv_works() {
  [ -x "$VENV/bin/python" ] \
    && "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1 \
    && "$VENV/bin/python" -m pip --version >/dev/null 2>&1
}

ensure_venv() {
  if venv_works; then
    say "skip venv $VENV (exists and works)"
    return
  fi
  if [ -e "$VENV" ]; then
    # Only ever delete something that is recognisably a venv.
    [ -f "$VENV/pyvenv.cfg" ] || die "$VENV exists but is not a venv; move it aside or set CCSTATE_INSTALL_DIR"
    say "removing broken venv $VENV"
    rm -rf -- "$VENV"
  fi
  mkdir -p -- "$(dirname -- "$VENV")"
  local -a venv_args=()
  # Word splitting is intended: CCSTATE_VENV_ARGS may hold several flags.
  # shellcheck disable=SC2206
  [ -z "${CCSTATE_VENV_ARGS:-}" ] || venv_args=(${CCSTATE_VENV_ARGS})
  "$PYTHON" -m venv ${venv_args[@]+"${venv_args[@]}"} -- "$VENV" \
    || die "could not create a venv at $VENV with $PYTHON"
  venv_works || die "the new venv at $VENV has no working pip"
  say "created venv $VENV (python $PYTHON_VERSION)"
}

# pip builds a source tree in place (build/, *.egg-info). Building from a copy
# keeps the checkout clean, works when it is read-only, and leaves no stale
# build/lib behind that could ship deleted modules.
stage_source() {
  STAGE="$(mktemp -d "${TMPDIR:-/tmp}/ccstate-install.XXXXXX")"
  trap 'rm -rf -- "$STAGE"' EXIT
  find "$SOURCE_DIR" -maxdepth 1 -type f -exec cp -p -- {} "$STAGE/" \;
  # -L: copy what any symlink points at, never the link.
  cp -R -L -- "$SOURCE_DIR/src" "$STAGE/src"
  find "$STAGE/src" \( -name '*.egg-info' -o -name '__pycache__' \) -prune -exec rm -rf -- {} +
}

install_package() {
  if [ ! -f "$SOURCE_DIR/pyproject.toml" ] || [ ! -d "$SOURCE_DIR/src/ccstate" ]; then
    die "$SOURCE_DIR is not a ccstate checkout (no pyproject.toml or src/ccstate)"
  fi
  stage_source
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade -- "$STAGE" \
    || die "pip could not install ccstate from $SOURCE_DIR into $VENV (see pip's output above)"
  local version
  version="$("$VENV/bin/python" -c 'from importlib.metadata import version; print(version("ccstate"))')"
  say "installed ccstate $version into $VENV"
}

on_path() {
  case ":${PATH:-}:" in
    *":$1:"*) return 0 ;;
    *) return 1 ;;
  esac
}

# Sets BIN_DIR following the order documented in the header.
choose_bin_dir() {
  local dir
  if [ -n "${CCSTATE_BIN_DIR:-}" ]; then
    BIN_DIR="$CCSTATE_BIN_DIR"
    return
  fi
  for dir in "$HOME/.local/bin" "$HOME/bin"; do
    if on_path "$dir"; then
      BIN_DIR="$dir"
      return
    fi
  done
  if [ -d /usr/local/bin ] && [ -w /usr/local/bin ]; then
    BIN_DIR="/usr/local/bin"
    return
  fi
  BIN_DIR="$HOME/.local/bin"
}

readonly COMMANDS="ccstate ccstate-hook ccstate-statusline"

link_command() {
  choose_bin_dir
  local name target link
  mkdir -p -- "$BIN_DIR"
  for name in $COMMANDS; do
    target="$VENV/bin/$name"
    link="$BIN_DIR/$name"
    [ -x "$target" ] || die "$target is missing after the install"
    if [ -L "$link" ] && [ "$(readlink -- "$link")" = "$target" ]; then
      say "skip link $link (already points at $target)"
    elif [ -L "$link" ] || [ ! -e "$link" ]; then
      ln -sfn -- "$target" "$link"
      say "linked $link -> $target"
    else
      die "$link exists and is not a symlink; remove it or set CCSTATE_BIN_DIR to another dir"
    fi
  done
  if ! on_path "$BIN_DIR"; then
    say "note: $BIN_DIR is not on PATH; add it, e.g. in ~/.bashrc or ~/.profile:"
    say "  export PATH=\"$BIN_DIR:\$PATH\""
  else
    local first
    for name in $COMMANDS; do
      first="$(command -v "$name" 2>/dev/null || true)"
      if [ -n "$first" ] && [ "$first" != "$BIN_DIR/$name" ]; then
        say "warning: '$first' comes before $BIN_DIR/$name on PATH and will run instead"
      fi
    done
  fi
}

# The project's git top level in TOP, or 1 when PROJECT_DIR (default: cwd) is not in git.
find_top() {
  local dir="${PROJECT_ARG:-$PWD}"
  command -v git >/dev/null 2>&1 && TOP="$(git -C "$dir" rev-parse --show-toplevel 2>/dev/null)"
}

wire_project() {
  if ! find_top; then
    say "skip wiring: ${PROJECT_ARG:-$PWD} is not inside a git repository (run 'ccstate init' in your project)"
    return
  fi
  # As Claude Code will once PATH holds BIN_DIR (the note above says so when it does not).
  local path="$BIN_DIR:$PATH"
  say "wiring $TOP (ccstate init):"
  PATH="$path" "$VENV/bin/ccstate" init --project "$TOP" \
    || die "'ccstate init' failed in $TOP (see above)"
  say "wired $TOP"
  say "checking $TOP (ccstate doctor):"
  if ! PATH="$path" "$VENV/bin/ccstate" doctor --project "$TOP"; then
    die "ccstate is installed, but 'ccstate doctor' found problems in $TOP (see the table above)"
  fi
}

# Remove a link only when it points into this venv: anything else is someone else's.
unlink_commands() {
  local dir name link
  local -a dirs=("$HOME/.local/bin" "$HOME/bin" /usr/local/bin)
  [ -z "${CCSTATE_BIN_DIR:-}" ] || dirs=("$CCSTATE_BIN_DIR" "${dirs[@]}")
  for dir in "${dirs[@]}"; do
    for name in $COMMANDS; do
      link="$dir/$name"
      if [ -L "$link" ] && [ "$(readlink -- "$link")" = "$VENV/bin/$name" ]; then
        rm -f -- "$link"
        say "removed link $link"
      fi
    done
  done
}

uninstall() {
  if [ "$DO_INIT" -eq 0 ]; then
    say "skip unwiring (--no-init)"
  elif ! find_top; then
    say "skip unwiring: ${PROJECT_ARG:-$PWD} is not inside a git repository"
  elif [ -x "$VENV/bin/ccstate" ]; then
    say "unwiring $TOP (ccstate init --remove):"
    "$VENV/bin/ccstate" init --remove --project "$TOP" \
      || die "'ccstate init --remove' failed in $TOP (see above); nothing else was removed"
  else
    say "skip unwiring: no ccstate in $VENV to run 'ccstate init --remove' with"
  fi
  unlink_commands
  if [ -f "$VENV/pyvenv.cfg" ]; then
    rm -rf -- "$VENV"
    say "removed venv $VENV"
    rmdir -- "$(dirname -- "$VENV")" 2>/dev/null || true
  elif [ -e "$VENV" ]; then
    die "$VENV is not a venv; not removing it"
  else
    say "skip venv $VENV (absent)"
  fi
  say "note: other projects wired with 'ccstate init' keep their hooks (one 'not installed'"
  say "  message per session); run 'ccstate init --remove' there before uninstalling, or"
  say "  remove the ccstate entries from their .claude/settings.json by hand"
  say "note: the plugin, if installed, is separate: claude plugin uninstall ccstate@ccstate-marketplace"
  say "done: ccstate is uninstalled"
}

main() {
  parse_args "$@"
  [ -n "${HOME:-}" ] || die "HOME is not set"
  if [ -n "$PROJECT_ARG" ] && [ ! -d "$PROJECT_ARG" ]; then
    die "project dir '$PROJECT_ARG' does not exist"
  fi
  VENV="${CCSTATE_INSTALL_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/ccstate}/venv"
  if [ "$UNINSTALL" -eq 1 ]; then
    uninstall
    return
  fi
  find_python
  say "ccstate installer: source $SOURCE_DIR, python $PYTHON_VERSION ($PYTHON)"
  ensure_venv
  install_package
  link_command
  if [ "$DO_INIT" -eq 1 ]; then
    wire_project
  else
    say "skip wiring (--no-init)"
  fi
  say "done: run 'ccstate --help' to get started"
}

main "$@"
