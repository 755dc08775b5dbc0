#!/usr/bin/env python3
"""Recall quality on the public transcripts: hit@3 and honest "nothing relevant".

    python bench/recall_eval.py              # the figures
    python bench/recall_eval.py -v           # and each question's top hits

The 33 transcripts of ../shared/transcripts/public are laid out as one project's sessions
(`<home>/.claude/projects/<slug>/<session>.jsonl`, as Claude Code keeps them) and indexed
the way `ccstate recall --reindex` does. Each question of bench/recall_questions.json names
the session and the transcript lines that answer it; a question scores when one of its
lines is among the top 3 hits. The "none" questions ask about work no session did: they
score when recall returns nothing above its floor. Targets (issue #17): hit@3 >= 0.8, and
most "none" questions return nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ccstate import redact  # noqa: E402
from ccstate.recall import index, search, sources  # noqa: E402

CORPUS = REPO.parent / "shared" / "transcripts" / "public"
QUESTIONS = Path(__file__).with_name("recall_questions.json")
TOP = 3


def lay_out(corpus: Path, projects: Path) -> list[Path]:
    """`Owner__repo__<session>.jsonl` -> `projects/-corpus/<session>.jsonl` (one project)."""
    folder = projects / "-corpus"
    folder.mkdir(parents=True)
    out = []
    for source in sorted(corpus.glob("*.jsonl")):
        target = folder / (source.stem.split("__")[-1] + ".jsonl")
        shutil.copyfile(source, target)
        out.append(target)
    return out


def answers(item: dict[str, Any]) -> list[tuple[str, int]]:
    sessions = item["session"]
    if isinstance(sessions, list):
        return list(zip(sessions, item["lines"], strict=True))
    return [(sessions, line) for line in item["lines"]]


def scores(hit: search.Hit, wanted: list[tuple[str, int]]) -> bool:
    return any(hit.session.startswith(s) and hit.line == line for s, line in wanted)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--floor", type=float, default=search.FLOOR, help=f"score floor (default {search.FLOOR})"
    )
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus}: no such corpus (../shared/transcripts/public)")
    spec = json.loads(QUESTIONS.read_text())
    with tempfile.TemporaryDirectory(prefix="ccstate-recall-eval-") as work:
        files = lay_out(args.corpus, Path(work) / "projects")
        con = index.connect(Path(work) / "state")
        started = time.monotonic()
        report = index.update(
            con,
            [sources.transcript_source(f) for f in files],
            redactor=redact.Redactor(),
            max_bytes=1 << 30,
            jobs=min(2, os.cpu_count() or 1),
        )
        built = time.monotonic() - started
        found, lines = 0, []
        for item in spec["questions"]:
            hits = search.search(con, search.Query(item["q"], limit=TOP, floor=args.floor))
            ok = any(scores(h, answers(item)) for h in hits)
            found += ok
            lines.append(_line("hit " if ok else "MISS", item["q"], hits, args.verbose))
        quiet, none_lines = 0, []
        for question in spec["none"]:
            hits = search.search(con, search.Query(question, limit=TOP, floor=args.floor))
            quiet += not hits
            none_lines.append(_line("none" if not hits else "NOISE", question, hits, True))
        con.close()
    total, nones = len(spec["questions"]), len(spec["none"])
    print("\n".join([*lines, *none_lines]))
    print(
        f"\n{report.moments} moments from {len(files)} transcripts indexed in {built:.1f}s; "
        f"floor {args.floor}\nhit@{TOP}: {found}/{total} = {found / total:.2f} (target 0.80)"
        f"\nno-answer questions with nothing above the floor: {quiet}/{nones}"
    )
    if args.json:
        figures = {"hit_at_3": found / total, "questions": total, "none_quiet": quiet}
        args.json.write_text(json.dumps({**figures, "none": nones}, indent=2) + "\n")
    return 0 if found / total >= 0.8 and quiet * 2 > nones else 1


def _line(tag: str, question: str, hits: list[search.Hit], verbose: bool) -> str:
    out = f"{tag:5} {question}"
    if verbose:
        for h in hits:
            out += f"\n        {h.score:.2f} {h.kind:8} {h.session[:8]}:{h.line} {h.snippet[:110]}"
    return out


if __name__ == "__main__":
    sys.exit(main())
