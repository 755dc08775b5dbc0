"""repo.graph: PageRank over uses -> definitions, rendered within a budget, deterministic."""

from __future__ import annotations

from ccstate.repo import graph

DEFS = [
    graph.Def("core.py", "Store", "class", 1, "class Store:"),
    graph.Def("core.py", "Store.load_all", "method", 5, "    def load_all(self):"),
    graph.Def("util.py", "helper", "function", 1, "def helper():"),
    graph.Def("cli.py", "main", "function", 1, "def main():"),
]
USES = {
    "cli.py": {"Store": 3, "load_all": 2, "helper": 1},
    "web.py": {"Store": 1, "load_all": 1},
    "util.py": {"Store": 1},
}


def test_the_most_used_definitions_rank_first() -> None:
    ranked = graph.rank_definitions(DEFS, USES)
    assert [d.name for _s, d in ranked][:2] == ["Store.load_all", "Store"]
    assert "main" not in [d.name for _s, d in ranked]  # nobody uses it


def test_render_groups_by_file_within_the_budget() -> None:
    text = graph.render(graph.rank_definitions(DEFS, USES), 1024)
    assert text.splitlines()[:3] == [
        "core.py:",
        "    1: class Store:",
        "    5: def load_all(self):",
    ]
    assert graph.files_named(text) == ["core.py", "util.py"]
    small = graph.render(graph.rank_definitions(DEFS, USES), 10)
    assert len(small) <= 10 * graph.CHARS_PER_TOKEN and graph.files_named(small) == ["core.py"]


def test_identical_input_gives_identical_bytes_whatever_the_order() -> None:
    one = graph.render(graph.rank_definitions(DEFS, USES), 1024)
    shuffled = dict(reversed(list(USES.items())))
    two = graph.render(graph.rank_definitions(list(reversed(DEFS)), shuffled), 1024)
    assert one == two


def test_a_name_defined_everywhere_makes_no_edge() -> None:
    defs = [graph.Def(f"m{n}.py", "run", "function", 1, "def run():") for n in range(25)]
    assert graph.rank_definitions(defs, {"main.py": {"run": 5}}) == []
