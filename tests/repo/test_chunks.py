"""repo.chunks: definitions from tree-sitter's tags queries, windows elsewhere."""

from __future__ import annotations

from ccstate.repo import chunks
from code_project import FILES


def parsed(path: str, text: str) -> chunks.Parsed:
    return chunks.parse_file(path, text, text.encode("utf-8"))


def test_python_methods_are_chunks_of_their_own_named_by_their_class() -> None:
    got = parsed("src/webhook.py", FILES["src/webhook.py"])
    assert got.lang == "python" and not got.note
    names = {c.name: (c.start, c.end, c.kind) for c in got.chunks if c.name}
    assert names["WebhookClient.send_with_retry"] == (12, 18, "function")
    assert names["WebhookClient"][0] == 6
    retry = next(c for c in got.chunks if c.name == "WebhookClient.send_with_retry")
    assert retry.doc == '"""Send one event, retrying with exponential backoff."""'
    assert retry.sig.strip().startswith("def send_with_retry(")
    owner = next(c for c in got.chunks if c.name == "WebhookClient")
    assert "def send_with_retry(self, event, attempts=3):" in owner.body  # a pointer to it
    assert "time.sleep" not in owner.body  # the method's body is its own chunk's


def test_every_line_that_is_not_blank_is_in_a_chunk() -> None:
    for path, text in FILES.items():
        got = parsed(path, text)
        covered = {n for c in got.chunks for n in range(c.start, c.end + 1)}
        for number, line in enumerate(text.splitlines(), start=1):
            assert number in covered or not line.strip(), (path, number, line)


def test_typescript_runs_the_javascript_tags_too() -> None:
    got = parsed("web/cart.ts", FILES["web/cart.ts"])
    assert {(d.name, d.kind) for d in got.defs} >= {
        ("CartItem", "interface"),
        ("totalPrice", "function"),
    }
    assert got.refs["CartItem"] >= 2  # uses counted for the map


def test_comments_above_a_definition_are_its_doc() -> None:
    text = "// Adds two numbers.\n// Never overflows.\nfunction add(a, b) {\n  return a + b;\n}\n"
    (chunk,) = [c for c in parsed("m.js", text).chunks if c.name == "add"]
    assert chunk.doc == "// Adds two numbers. // Never overflows."


def test_decorators_belong_to_what_they_decorate() -> None:
    text = "import functools\n\n@functools.cache\ndef answer():\n    return 42\n"
    got = parsed("a.py", text)
    (chunk,) = [c for c in got.chunks if c.name == "answer"]
    assert (chunk.start, chunk.sig) == (3, "def answer():")
    assert got.defs[0].line == 4  # the map shows the name's line


def test_a_file_no_grammar_reads_is_cut_into_windows() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 101))
    got = parsed("notes.txt", text)
    assert [(c.start, c.end) for c in got.chunks] == [(1, 40), (41, 80), (81, 100)]
    assert got.lang == "" and got.defs == []


def test_a_long_definition_is_cut_into_parts_with_its_name() -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(300))
    got = parsed("big.py", f"def big():\n{body}\n")
    parts = [c for c in got.chunks if c.name == "big"]
    assert [(c.start, c.end) for c in parts] == [(1, 120), (121, 240), (241, 301)]


def test_a_missing_grammar_leaves_the_file_in_windows_with_a_note(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from ccstate.repo import grammars

    monkeypatch.setitem(grammars._LOADED, "python", grammars.Unavailable("no python grammar"))
    got = parsed("src/dates.py", FILES["src/dates.py"])
    assert got.note == "no python grammar" and got.chunks and got.defs == []


def test_a_grammar_that_fails_on_a_file_leaves_it_in_windows(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from ccstate.repo import grammars

    grammar = grammars.grammar("python")

    def broken(data: bytes) -> None:
        raise ValueError("parsing was cancelled")

    monkeypatch.setattr(grammar, "parse", broken)
    got = parsed("src/dates.py", FILES["src/dates.py"])
    assert got.note.startswith("the python grammar failed (ValueError: parsing was cancelled)")
    assert "parse_date" in " ".join(c.body for c in got.chunks)
