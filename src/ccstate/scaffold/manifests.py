"""Commands of a JavaScript, Rust or Go project: package.json scripts (with the package manager
its lockfile names), Cargo.toml, go.mod (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ccstate.scaffold.found import Command, clip, kind_of

MAX_SCRIPTS = 16
# The lockfile each package manager writes, first match wins (npm's is the default).
LOCKFILES = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
)
# Lifecycle scripts npm runs on its own around others: not commands a person types.
_HOOKS = ("pre", "post", "prepare", "prepublishOnly", "install")


def package_json(
    data: Mapping[str, Any], manager: str = "npm", source: str = "package.json"
) -> list[Command]:
    """`npm test` / `npm run NAME` (or pnpm, yarn, bun) for each script."""
    scripts = data.get("scripts")
    if not isinstance(scripts, Mapping):
        return []
    field = data.get("packageManager")
    if isinstance(field, str) and field.split("@")[0] in ("npm", "pnpm", "yarn", "bun"):
        manager = field.split("@")[0]
    found = []
    for name, runs in scripts.items():
        name, runs = str(name), str(runs)
        if name in _HOOKS or (name.startswith(_HOOKS[:2]) and name[3:] in scripts):
            continue
        typed = f"{manager} test" if name == "test" else f"{manager} run {name}"
        found.append(Command(kind_of(name, runs), typed, source, clip(runs)))
    return found[:MAX_SCRIPTS]


def cargo_toml(data: Mapping[str, Any], source: str = "Cargo.toml") -> list[Command]:
    """A crate or a workspace builds and tests with cargo; `--workspace` for a workspace."""
    if "package" not in data and "workspace" not in data:
        return []
    scope = " --workspace" if "workspace" in data else ""
    members = data.get("workspace", {}).get("members") if "workspace" in data else None
    note = f"{len(members)} workspace members" if isinstance(members, list) else ""
    return [
        Command("build", f"cargo build{scope}", source, note),
        Command("test", f"cargo test{scope}", source, note),
        Command("lint", f"cargo clippy{scope}", source),
    ]


def go_mod(text: str, source: str = "go.mod") -> list[Command]:
    """A Go module builds, tests and vets every package below it."""
    module = next((ln.split()[1] for ln in text.splitlines() if ln.startswith("module ")), "")
    if not module:
        return []
    return [
        Command("build", "go build ./...", source, f"module {module}"),
        Command("test", "go test ./...", source),
        Command("lint", "go vet ./...", source),
    ]


__all__ = ["LOCKFILES", "cargo_toml", "go_mod", "kind_of", "package_json"]
