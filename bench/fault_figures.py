"""The figures of docs/RELIABILITY.md (issue #12), each from the code that the test suite runs.

Makes docs/RELIABILITY.md's figures (CONTRIBUTING.md says when to run it).

    python bench/fault_figures.py                       # everything, default sizes
    python bench/fault_figures.py --sequences 200 --steps 40 --decide-rounds 5

Sections: the read ledger under faults (tests/fault_model.py: random sequences of Reads, edits,
compactions, microcompactions, resumes, idle pauses and hook faults through the real hook
entry points, checked by an independent model), secrets (tests/secrets_corpus.py), concurrent
`ccstate decide` writers with different CCSTATE_HOME, and hook time on adversarial inputs.
Prints one JSON object. Times are wall-clock on this machine: note the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "src")]

import fault_model as fm  # noqa: E402
from secrets_corpus import KINDS, ORDINARY  # noqa: E402


def ledger_under_faults(sequences: int, steps: int, seed: int) -> dict[str, object]:
    total = fm.Figures(sequences=0)
    for n in range(sequences):
        rng = random.Random(seed + n)
        with tempfile.TemporaryDirectory() as tmp:
            world = fm.World(Path(tmp), launcher=n % 3 == 0)
            total.add(fm.run_steps(world, fm.random_steps(rng, steps)))
    return {
        "sequences": total.sequences,
        "sequences_through_the_launcher_with_a_broken_venv": len(range(0, sequences, 3)),
        "steps": total.steps,
        "reads": total.reads,
        "answers_checked": total.notices,
        "faults": dict(sorted(total.faults.items())),
        "epochs": dict(sorted(total.epochs.items())),
        "false_notices": len(total.false_notices),
        "false_notice_examples": total.false_notices[:5],
        "hook_exit_or_output_problems": len(total.bad_exits),
        "max_hook_seconds": round(total.max_hook_s, 2),
    }


def secrets() -> dict[str, object]:
    from ccstate.secrets import redact

    leaked = [kind for kind, text, secret, _neg in KINDS if secret in redact.redact(text)]
    lookalikes = [kind for kind, _t, _s, neg in KINDS if redact.redact(neg) != neg]
    mangled = [s for s in ORDINARY if redact.redact(s) != s]
    return {
        "kinds_planted": len(KINDS),
        "leaked": leaked,
        "lookalikes_changed": lookalikes,
        "ordinary_strings": len(ORDINARY),
        "ordinary_changed": len(mangled),
        "ordinary_changed_pct": round(100 * len(mangled) / len(ORDINARY), 2),
        "detect_secrets_rules": redact.maintained_available(),
    }


def decide_writers(rounds: int, writers: int = 20) -> dict[str, object]:
    lost = duplicated = 0
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / "p"
            (project / ".git").mkdir(parents=True)
            procs = [
                subprocess.Popen(
                    [sys.executable, "-m", "ccstate", "decide", f"W{w}", "--decision", "x"],
                    cwd=project,
                    env={**_env(), "CCSTATE_HOME": f"{tmp}/home{w}"},
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                )
                for w in range(writers)
            ]
            ids = [p.communicate(timeout=300)[0].strip() for p in procs]
            text = (project / "DECISIONS.md").read_text()
            titles = set(re.findall(r"^## D\d+: (W\d+)$", text, re.M))
            lost += writers - len(titles)
            duplicated += len(ids) - len(set(ids))
    return {"rounds": rounds, "writers": writers, "lost": lost, "ids_printed_twice": duplicated}


def adversarial() -> dict[str, float]:
    """Seconds each hook took on inputs built to hurt (bounded by the hook, not by us)."""
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "p"
        (project / ".git").mkdir(parents=True)
        fifo = project / "pipe"
        os.mkfifo(fifo)
        rep_old = "\n".join(("}", "", "    pass")[i % 3] for i in range(60_000))
        rep_new = "\n".join(("", "}", "    pass")[i % 3] for i in range(60_000))
        big = project / "rep.py"
        for label, path, first, second in (
            ("read /dev/zero", Path("/dev/zero"), "x" * 500, "x" * 500),
            ("read a FIFO", fifo, "x" * 500, "x" * 500),
            ("diff of a 60k-line repetitive file", big, rep_old, rep_new),
        ):
            if path == big:
                big.write_text(first)
            _post_read(project, path, first)
            if path == big:
                big.write_text(second)
            out[label] = _post_read(project, path, second)
        transcript = project / "huge.jsonl"
        with transcript.open("wb") as fh:  # 256 MB of one line, then malformed lines
            fh.write(b'{"type":"user","message":{"content":"' + b"x" * (256 << 20) + b'"}}\n')
            fh.write((b"{not json " * 100 + b"\n") * 200_000)
        payload = {"session_id": "s", "cwd": str(project), "transcript_path": str(transcript)}
        out["SessionEnd on a 456 MB transcript (256 MB line)"] = _hook(
            "SessionEnd", {**payload, "reason": "other"}, project
        )
    return out


def _post_read(project: Path, path: Path, content: str) -> float:
    lines = content.split("\n")
    file = {"filePath": str(path), "content": content, "numLines": len(lines), "startLine": 1}
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "tool_name": "Read",
        "tool_input": {"file_path": str(path)},
        "tool_response": {"type": "text", "file": {**file, "totalLines": len(lines)}},
    }
    return _hook("PostToolUse", payload, project)


def _hook(event: str, payload: dict[str, object], project: Path) -> float:
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "ccstate.hooks", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=_env(),
        cwd=project,
        timeout=120,
        check=False,
    )
    return round(time.monotonic() - started, 2)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CCSTATE_", "CLAUDE"))}
    env["PYTHONPATH"] = str(REPO / "src")
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sequences", type=int, default=60)
    parser.add_argument("--steps", type=int, default=35)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--decide-rounds", type=int, default=3)
    parser.add_argument("--skip-adversarial", action="store_true")
    args = parser.parse_args()
    report: dict[str, object] = {"load_average": [round(x, 2) for x in os.getloadavg()]}
    report["secrets"] = secrets()
    report["decide"] = decide_writers(args.decide_rounds)
    if not args.skip_adversarial:
        report["adversarial_hook_seconds"] = adversarial()
    report["ledger"] = ledger_under_faults(args.sequences, args.steps, args.seed)
    report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
