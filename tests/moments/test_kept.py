"""moments/kept.py: the counter's reads of a transcript never block (#37); the figures
themselves are tested with the Stop hook (tests/hooks/test_stop.py) and the status line."""

from __future__ import annotations

import os
from pathlib import Path

from ccstate.moments import kept


def test_a_fifo_named_as_the_transcript_never_blocks(tmp_path: Path) -> None:
    state, fifo = str(tmp_path / ".ccstate"), tmp_path / "s.jsonl"
    os.mkfifo(fifo)  # opened to read, it would wait for a writer forever
    main = str(fifo)
    assert kept.save(state, "s", main, (10, 40, 1), {main: 0}, now=1.0)
    data = kept.load(state, "s")
    assert kept.advanced(data, main) is None  # the Stop hook then scans: no regular file
    assert kept.session_kept(state, "s", main) is not None  # the status line: no block
    assert kept.is_current(data, main) is True  # st_size 0: nothing since
