"""recall.update: a hook's update gives the model's embedding what is left of its budget."""

from __future__ import annotations

import time
from pathlib import Path

from ccstate.config import Config, defaults
from ccstate.recall import update
from helpers import prompt_record, write_jsonl


def test_a_hook_hands_its_deadline_to_the_embedding(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With a model named, a hook's vectors stop where its budget does (`update_vectors`'s
    deadline), so a big index first embedded in a hook cannot run it past its timeout."""
    project, state = tmp_path / "project", tmp_path / "state"
    project.mkdir()
    transcript = write_jsonl(tmp_path / "s1.jsonl", [prompt_record("retry the webhook", "s1")])
    config = Config({**defaults(), "recall.embedding_model": "models/m"})
    seen: list[float | None] = []
    monkeypatch.setattr(
        update, "_vectors", lambda con, p, c, deadline=None: seen.append(deadline) or ""
    )
    deadline = time.monotonic() + 25.0
    detail = update.update_for_hook(project, state, config, str(transcript), deadline=deadline)
    assert "moments from" in str(detail["recall"]), detail
    assert seen == [deadline]


def test_a_hook_with_no_time_left_skips_the_index(tmp_path: Path) -> None:
    project, state = tmp_path / "project", tmp_path / "state"
    project.mkdir()
    transcript = write_jsonl(tmp_path / "s1.jsonl", [prompt_record("retry the webhook", "s1")])
    deadline = time.monotonic() + update.MIN_SECONDS / 2
    detail = update.update_for_hook(
        project, state, Config(defaults()), str(transcript), deadline=deadline
    )
    assert detail == {"recall": update.NO_TIME}
    assert not state.exists()
