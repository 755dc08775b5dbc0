"""recall.context: the question's words a moment's turn holds, and what they add to it."""

from __future__ import annotations

from pathlib import Path

from ccstate.recall import confidence, context, index, sources, writer
from ccstate.secrets import redact
from helpers import prompt_record, text_record, tool_result_record, tool_use_record, write_jsonl


def test_a_moment_has_the_words_of_its_own_turn_only(tmp_path: Path) -> None:
    records = [
        text_record("warming up before any prompt"),  # line 1: before the first turn
        prompt_record("bundle the gallery with vite"),  # 2: turn one
        tool_use_record("c1", "Bash", {"command": "npm run build"}),  # 3
        tool_result_record("c1", "built in 3.2s"),  # 4
        prompt_record("fix the login page"),  # 5: turn two
        text_record("The login page works again."),  # 6
    ]
    con = index.connect(tmp_path / "state" / "a")
    source = sources.transcript_source(write_jsonl(tmp_path / "s1.jsonl", records))
    writer.update(con, [source], redactor=redact.Redactor(), max_bytes=1 << 30)
    ids = {line: i for i, line in con.execute("SELECT id, line FROM docs")}
    held = {w: confidence.postings(con, w) for w in ("gallery", "login", "warming")}
    words = context.turn_words(con, list(ids.values()), held)
    assert words[ids[3]] == {"gallery"}  # the build: its turn's prompt names the gallery
    assert words[ids[6]] == {"login"}
    assert words[ids[1]] == {"warming"}  # before the first prompt: the first turn's start
    con.close()


def test_sources_without_prompts_have_no_turn(tmp_path: Path) -> None:
    project, state = tmp_path / "p", tmp_path / "p" / ".ccstate"
    project.mkdir()
    (project / "DECISIONS.md").write_text(
        "# Decisions\n\n## D1: Use SQLite\n\n**Decision:** FTS5.\n\n"
        "## D2: Drop Redis\n\n**Decision:** no cache.\n"
    )
    con = index.connect(state)
    writer.update(
        con, sources.state_sources(project, state), redactor=redact.Redactor(), max_bytes=1 << 30
    )
    ids = [i for (i,) in con.execute("SELECT id FROM docs")]
    assert len(ids) == 2
    held = {w: confidence.postings(con, w) for w in ("sqlite", "redis")}
    assert all(held.values())
    assert context.turn_words(con, ids, held) == {i: set() for i in ids}
    con.close()


def test_a_word_only_the_turn_holds_counts_half() -> None:
    weight = {"gallery": 1.0, "build": 1.0}
    strength = {1: 1.0, 2: 1.0}
    own = {1: ["build"], 2: ["build"]}
    scored = context.weigh(strength, own, {1: {"build", "gallery"}, 2: {"build"}}, weight)
    assert list(scored) == [1, 2]
    assert scored[1] == 1.0 * (1 + 0.5 + context.WEIGHT * 0.5) and scored[2] == 1.5
