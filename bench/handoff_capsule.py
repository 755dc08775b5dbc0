#!/usr/bin/env python3
"""What the capsule says about a handoff, over the public transcripts (#42).

Makes the figures of docs/HANDOFF.md's "The capsule section".

    python bench/handoff_capsule.py                  # this tree
    git archive 0c73d6d src | tar -x -C /tmp/before  # the tree before #42
    python bench/handoff_capsule.py --src /tmp/before/src

For each transcript of ../shared/transcripts/public (CCSTATE_SHARED names the shared folder
elsewhere): a fresh git repository, the handoff written as SessionEnd writes it
(`handoff.store.write_handoff`), then the capsule's handoff lines at the next startup
(`handoff.index.capsule_section`). Prints how many capsules name the handoff file (and
what they say it adds), the handoff lines' tiktoken tokens (min, median, max; `tokens.py`,
estimated when tiktoken is missing) and how many handoffs hold a placeholder instead of a
fact ("none written yet"). docs/HANDOFF.md quotes the figures.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = Path(sys.argv[sys.argv.index("--src") + 1]) if "--src" in sys.argv else REPO / "src"
sys.path.insert(0, str(SRC))

import os  # noqa: E402

from ccstate import config, tokens  # noqa: E402
from ccstate.handoff import index as handoff_index  # noqa: E402
from ccstate.handoff import store as handoff_store  # noqa: E402

SHARED = Path(os.environ.get("CCSTATE_SHARED") or REPO.parent / "shared")
NOW = 1_772_362_800.0  # a fixed clock: the figures do not depend on the day they are taken
PLACEHOLDERS = ("none written yet", "no user prompt in the transcript")


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    env |= dict.fromkeys(("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"), "2026-03-01T10:00:00Z")
    subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True)


def one(transcript: Path, work: Path) -> tuple[list[str], str]:
    """The capsule's handoff lines and the handoff's text for one transcript."""
    project = work / transcript.stem[:40]
    project.mkdir()
    (project / "README.md").write_text("demo\n")
    git(project, "init", "-q", "-b", "main")
    git(project, "-c", "user.name=b", "-c", "user.email=b@b", "add", "-A")
    git(project, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "initial")
    state = project / ".ccstate"
    cfg = config.Config()
    result = handoff_store.write_handoff(
        project, state, cfg, transcript=transcript, event="SessionEnd", now=NOW
    )
    lines = handoff_index.capsule_section(project, state, cfg, "startup", now=NOW + 60)
    return lines, result.text


def main() -> int:
    files = sorted((SHARED / "transcripts" / "public").glob("*.jsonl"))
    if not files:
        print(f"no transcripts at {SHARED}/transcripts/public (set CCSTATE_SHARED)")
        return 2
    counts, sizes, adds = Counter(), [], Counter()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for transcript in files:
            lines, text = one(transcript, Path(tmp))
            head = lines[0] if lines else ""
            pointed = ".ccstate/handoff/" in head
            counts["pointed" if pointed else "not pointed"] += 1
            counts["placeholder"] += any(p in text for p in PLACEHOLDERS)
            if pointed and "full handoff:" not in head:
                said = head.split("): ", 1)[1].rsplit(" in .ccstate/", 1)[0]
                adds.update(part.split(" ", 1)[-1].rstrip("s") for part in said.split(", "))
            sizes.append(tokens.count_tokens("\n".join(lines))[0])
    print(f"{len(files)} public transcripts, tree {SRC} ({time.monotonic() - started:.0f} s)")
    print(f"capsules that name the handoff file: {counts['pointed']} of {len(files)}")
    if adds:
        print("what they say it adds: " + ", ".join(f"{k} {v}" for k, v in adds.most_common()))
    print(
        f"handoff lines in the capsule, tokens: min {min(sizes)}, median "
        f"{statistics.median(sizes):g}, max {max(sizes)}, total {sum(sizes)}"
    )
    print(f"handoffs with a placeholder instead of a fact: {counts['placeholder']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
