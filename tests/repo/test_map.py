"""repo.map: the map from the index, cached per generation and budget."""

from __future__ import annotations

from pathlib import Path

from ccstate.repo import index, update
from ccstate.repo import map as repo_map


def test_the_map_is_byte_identical_across_runs_and_cached(code_project: Path) -> None:
    state = code_project.parent / "state"
    update.refresh(code_project, state, max_bytes=1 << 30)
    con = index.connect(state)
    first = repo_map.build(con, 512)
    assert "src/webhook.py:" in first and "def send_with_retry(" in first
    assert repo_map.cached(state, con, 512) == first == repo_map.build(con, 512)
    assert repo_map.read_cached(str(state), 512) == first
    assert repo_map.read_cached(str(state), 1024) == ""  # another budget: not this text
    con.close()


def test_a_change_in_the_code_makes_a_new_map(code_project: Path) -> None:
    state = code_project.parent / "state"
    update.refresh(code_project, state, max_bytes=1 << 30)
    con = index.connect(state)
    before = repo_map.cached(state, con, 512)
    (code_project / "web" / "order.ts").write_text(
        "import { CartItem, totalPrice } from './cart';\n"
        "export const order = (i: CartItem[]) => totalPrice(i, new Map());\n"
    )
    update.refresh(code_project, state, max_bytes=1 << 30)
    after = repo_map.cached(state, con, 512)
    assert after != before and "totalPrice" in after
    con.close()
