"""package.json, Cargo.toml and go.mod of real projects."""

from __future__ import annotations

import json
from pathlib import Path

from ccstate.scaffold import manifests, python

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scaffold"


def test_package_json_scripts_run_with_npm_and_its_lifecycle_scripts_are_left_out() -> None:
    data = json.loads((FIXTURES / "express" / "package.json").read_text())
    found = {c.command: (c.kind, c.note) for c in manifests.package_json(data)}
    assert found["npm test"][0] == "test" and found["npm test"][1].startswith("mocha ")
    assert found["npm run lint"] == ("lint", "eslint .")
    assert "npm run test-ci" in found
    with_hooks = {**data, "scripts": {**data["scripts"], "pretest": "x", "prepare": "y"}}
    assert {c.command for c in manifests.package_json(with_hooks)} == set(found)


def test_the_lockfile_or_package_manager_field_names_the_runner() -> None:
    data = json.loads((FIXTURES / "express" / "package.json").read_text())
    assert manifests.package_json(data, "pnpm")[0].command.startswith("pnpm ")
    pinned = {**data, "packageManager": "yarn@4.1.0"}
    assert {c.command.split()[0] for c in manifests.package_json(pinned, "npm")} == {"yarn"}


def test_a_cargo_workspace_and_a_go_module() -> None:
    data, _ = python.read_toml(FIXTURES / "ripgrep" / "Cargo.toml")
    assert data is not None
    found = {c.command: c.kind for c in manifests.cargo_toml(data)}
    assert found == {
        "cargo build --workspace": "build",
        "cargo test --workspace": "test",
        "cargo clippy --workspace": "lint",
    }
    go = manifests.go_mod((FIXTURES / "cobra" / "go.mod").read_text())
    assert [(c.command, c.kind) for c in go] == [
        ("go build ./...", "build"),
        ("go test ./...", "test"),
        ("go vet ./...", "lint"),
    ]
    assert go[0].note == "module github.com/spf13/cobra"
    assert manifests.go_mod("// no module line\n") == []
