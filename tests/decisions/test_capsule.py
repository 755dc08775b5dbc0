"""The decisions capsule lines and the summary cache behind them (#14 item 3).

The cache must never serve a stale line: any change to DECISIONS.md (same size, mtime put
back, replaced, deleted) and any config value must show in the next capsule; and `decide`
appends from the cache exactly what a parse would have written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ccstate import config
from ccstate.decisions import capsule
from ccstate.decisions import edit as decisions_edit
from ccstate.decisions import log as decisions
from helpers import FIXTURES, make_payload, run_hook

CASES = FIXTURES / "decisions"
CANONICAL = (CASES / "canonical" / "log.md").read_text()
DEFAULTS = config.Config()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def state(project: Path) -> Path:
    return project / ".ccstate"


def section(project: Path, cfg: config.Config = DEFAULTS) -> list[str]:
    return capsule.capsule_section(project, state(project), cfg)


def with_cap(cap: int) -> config.Config:
    return config.Config(values={**config.defaults(), "decisions.capsule_max": cap})


def log_with(active: int, superseded: int = 0) -> decisions.Log:
    parts = ["# Decisions\n"]
    for n in range(1, superseded + 1):
        parts.append(f"## D{n}: Old {n}\n\n- Status: superseded by D{superseded + 1}\n")
    for n in range(superseded + 1, superseded + active + 1):
        parts.append(f"## D{n}: Title {n}\n\n- Status: active\n\n**Decision:** body {n}\n")
    return decisions.parse_log("\n".join(parts))


def lines_of(log: decisions.Log, limit: int = 10) -> list[str]:
    return capsule.capsule_lines(capsule.summarize(log), limit)


def no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any parse of a whole DECISIONS.md fail the test (`decide` still parses the one
    entry it renders, to check it reads back)."""
    parse = decisions.parse_log

    def refuse(text: str) -> decisions.Log:
        if "<!-- ccstate: next-id=" in text:
            raise AssertionError("DECISIONS.md was parsed")
        return parse(text)

    monkeypatch.setattr(decisions, "parse_log", refuse)
    monkeypatch.setattr(decisions_edit, "parse_log", refuse)


# --------------------------------------------------------------------------- the lines


def test_capsule_lists_active_decisions_newest_first_one_line_each() -> None:
    assert lines_of(log_with(3, superseded=2)) == [
        "- decisions (DECISIONS.md), newest first; cite as `D5 (DECISIONS.md)` instead of "
        "restating; `ccstate decide` records one:",
        "  - D5: Title 5",
        "  - D4: Title 4",
        "  - D3: Title 3",
    ]


def test_capsule_is_capped_and_says_how_many_more() -> None:
    lines = lines_of(log_with(14))
    assert lines[1] == "  - D14: Title 14" and lines[10] == "  - D5: Title 5"
    assert lines[11:] == ["  - ... 4 older: `ccstate decisions` lists them"]
    assert not any("body" in line for line in lines)


def test_capsule_says_nothing_when_nothing_is_active() -> None:
    """A line saying there is no decision is paid on every request for nothing (#43)."""
    assert lines_of(log_with(0)) == []
    assert lines_of(log_with(0, superseded=2)) == []
    broken = decisions.parse_log("## D1: Old\n\n- Status: superseded by D2\n\n## Oops\n")
    assert lines_of(broken) == [
        "- decisions: DECISIONS.md has problems: run `ccstate decisions lint`"
    ]


def test_capsule_shortens_long_titles_and_flags_problems() -> None:
    title = "x" * 200
    lines = lines_of(decisions.parse_log(f"## D1: {title}\n\n- Status: active\n\n## Oops\n"))
    assert lines[0].endswith("; the file has problems: run `ccstate decisions lint`:")
    assert lines[1] == "  - D1: " + "x" * 87 + "..."


def test_capsule_flags_clashing_ids_from_a_merge() -> None:
    lines = lines_of(decisions.parse_log((CASES / "fix" / "union-merge.md").read_text()))
    assert lines[0].endswith("; the file has problems: run `ccstate decisions lint`:")


def test_the_summary_keeps_the_largest_cap_of_titles_and_every_count() -> None:
    summary = capsule.summarize(log_with(250, superseded=3))
    assert len(summary["active"]) == capsule.MAX_LISTED == 200
    assert summary["active"][0] == [253, "Title 253"]
    assert (summary["active_count"], summary["decisions"], summary["next_id"]) == (250, 253, 254)
    assert capsule.capsule_lines(summary, 200)[-1] == (
        "  - ... 50 older: `ccstate decisions` lists them"
    )


def test_capsule_section_reads_the_file_and_the_config_cap(project: Path) -> None:
    assert section(project) == []
    (project / "DECISIONS.md").write_text(CANONICAL)
    assert section(project, with_cap(1)) == [
        "- decisions (DECISIONS.md), newest first; cite as `D5 (DECISIONS.md)` instead of "
        "restating; `ccstate decide` records one:",
        "  - D5: Cite decisions by ID",
        "  - ... 2 older: `ccstate decisions` lists them",
    ]


def test_session_start_hook_injects_the_index(project: Path) -> None:
    (project / "DECISIONS.md").write_text(CANONICAL)
    payload = make_payload("SessionStart", project, source="startup")
    code, parsed, _, err = run_hook("SessionStart", payload, cwd=project)
    assert (code, err) == (0, "")
    text = parsed["hookSpecificOutput"]["additionalContext"]
    index = [line for line in text.splitlines() if line.startswith("  - D")]
    assert index == [
        "  - D5: Cite decisions by ID",
        "  - D4: Use SQLite for the usage cache",
        "  - D1: Store handoffs as JSON under .ccstate/",
    ]
    assert "PostgreSQL" not in text and "standard library" not in text


# --------------------------------------------------------------------------- the cache


def test_a_second_start_takes_the_lines_from_the_cache(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "DECISIONS.md").write_text(CANONICAL)
    first = section(project)
    cached = json.loads(Path(capsule.cache_path(state(project))).read_text())
    assert cached["stamp"] == capsule.store.file_stamp(project / "DECISIONS.md")
    no_parsing(monkeypatch)
    assert section(project) == first
    # the config applies to the cached summary: it is no part of the key
    assert section(project, with_cap(1)) == [
        *first[:2],
        "  - ... 2 older: `ccstate decisions` lists them",
    ]


def test_identical_files_give_byte_identical_lines_cached_or_not(
    project: Path, tmp_path: Path
) -> None:
    (project / "DECISIONS.md").write_text(CANONICAL)
    parsed = section(project)
    cached = section(project)
    other = tmp_path / "other"
    other.mkdir()
    (other / "DECISIONS.md").write_text(CANONICAL)
    assert parsed == cached == section(other) == lines_of(decisions.parse_log(CANONICAL))
    payload = make_payload("SessionStart", project, source="startup")
    outputs = {run_hook("SessionStart", payload, cwd=project)[2] for _ in range(2)}
    assert len(outputs) == 1


def edit_in_place_same_size_same_mtime(path: Path) -> None:
    """The nastiest hand edit: same size, mtime put back; only ctime tells."""
    before = path.stat()
    text = path.read_text()
    with path.open("r+") as fh:  # in place: the inode stays
        fh.write(text.replace("Cite decisions by ID", "Cite decisions by Id", 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def replace_by_rename(path: Path) -> None:
    """What git checkout and most editors do: a new file renamed over the old one."""
    new = path.with_name("new.md")
    new.write_text(path.read_text().replace("by ID", "by number"))
    os.replace(new, path)


def append_a_broken_entry(path: Path) -> None:
    path.write_text(path.read_text() + "\n## Oops\n")


@pytest.mark.parametrize(
    "change", [edit_in_place_same_size_same_mtime, replace_by_rename, append_a_broken_entry]
)
def test_any_change_to_the_file_is_seen(project: Path, change: Callable[[Path], None]) -> None:
    path = project / "DECISIONS.md"
    path.write_text(CANONICAL)
    before = section(project)
    change(path)
    after = section(project)
    assert after == lines_of(decisions.parse_log(path.read_text()))
    assert after != before


def test_a_deleted_or_unreadable_file_is_never_served_from_the_cache(project: Path) -> None:
    path = project / "DECISIONS.md"
    path.write_text(CANONICAL)
    section(project)
    path.unlink()
    assert section(project) == []
    path.write_bytes(b"\xff\xfe not utf-8")
    assert section(project) == [
        "- decisions: DECISIONS.md is unreadable; run `ccstate decisions lint`"
    ]


def test_a_damaged_cache_is_ignored(project: Path) -> None:
    (project / "DECISIONS.md").write_text(CANONICAL)
    expected = section(project)
    cache = Path(capsule.cache_path(state(project)))
    for damage in ("{not json", json.dumps({"v": 1, "stamp": "x"}), json.dumps([1])):
        cache.write_text(damage)
        assert section(project) == expected


def test_a_read_only_state_dir_still_gives_the_lines(project: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes to read-only folders")
    (project / "DECISIONS.md").write_text(CANONICAL)
    state(project).mkdir()
    state(project).chmod(0o500)
    try:
        assert section(project) == lines_of(decisions.parse_log(CANONICAL))
    finally:
        state(project).chmod(0o700)


# --------------------------------------------------------------------------- decide


def record(project: Path, title: str, **kw: object) -> decisions.Decision:
    return decisions_edit.record(
        project, state(project), title, f"We do {title.lower()}.", date="2026-03-01", **kw
    )  # type: ignore[arg-type]


def clean_cases() -> list[Path]:
    found = [
        *sorted((CASES / "canonical").glob("*.md")),
        *sorted((CASES / "hand").glob("*.expected.md")),
        CASES / "fix" / "clean.expected.md",
    ]
    return [p for p in found if not decisions.parse_log(p.read_text()).problems]


VARIANTS = {  # name -> (text, appended without a parse?)
    "trailing blank and whitespace lines": (CANONICAL + "\n\n   \n\t\n", True),
    "no final newline": (CANONICAL.rstrip("\n"), True),
    "trailing spaces on the last line": (CANONICAL.rstrip("\n") + "   \n", True),
    "CRLF line ends": (CANONICAL.replace("\n", "\r\n"), True),
    "a form feed (another line break for splitlines)": (
        CANONICAL.replace("Handoffs are machine-local", "Handoffs are\x0cmachine-local"),
        False,
    ),
}


def cases() -> list[tuple[str, str, bool]]:
    found = [(f"{p.parent.name}/{p.name}", p.read_text(), True) for p in clean_cases()]
    return found + [(name, text, fast) for name, (text, fast) in VARIANTS.items()]


@pytest.mark.parametrize(("name", "text", "fast"), cases(), ids=[c[0] for c in cases()])
def test_decide_appends_from_the_cache_exactly_what_a_parse_would(
    name: str, text: str, fast: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached, parsed = tmp_path / "cached", tmp_path / "parsed"
    for root in (cached, parsed):
        (root / ".git").mkdir(parents=True)
        (root / "DECISIONS.md").write_bytes(text.encode())
    if text.count("ccstate: next-id=") != 1:  # the first decide writes the one marker
        for root in (cached, parsed):
            record(root, "Warm up")
    section(cached)  # SessionStart summarises the file
    with monkeypatch.context() as patch:
        if fast:
            no_parsing(patch)
        made = record(cached, "Second one", context="Line one\nline two")
    expected = record(parsed, "Second one", context="Line one\nline two")
    written = (cached / "DECISIONS.md").read_bytes()
    assert made == expected
    assert written == (parsed / "DECISIONS.md").read_bytes()
    summary = capsule.read_cache(state(cached))
    assert summary is not None
    assert summary["summary"] == capsule.summarize(decisions.parse_log(written.decode()))
    assert summary["stamp"] == capsule.store.file_stamp(cached / "DECISIONS.md")


def test_after_decide_the_next_start_needs_no_parse(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "DECISIONS.md").write_text(CANONICAL)
    record(project, "First")  # a parse: no summary yet
    record(project, "Second", supersedes=[6])  # superseding always parses; then caches
    no_parsing(monkeypatch)
    record(project, "Third")
    lines = section(project)
    assert lines[1:3] == ["  - D8: Third", "  - D7: Second"]
    assert "  - D6: First" not in lines


def test_a_hand_edit_between_two_decides_is_parsed_not_trusted(project: Path) -> None:
    (project / "DECISIONS.md").write_text(CANONICAL)
    record(project, "First")  # D6; the summary says the next ID is 7
    path = project / "DECISIONS.md"
    path.write_text(path.read_text() + "\n## D9: Added by hand\n\n- Status: active\n")
    assert record(project, "Second").id == "D10"
    assert section(project)[1:3] == ["  - D10: Second", "  - D9: Added by hand"]


def test_decide_refuses_a_file_with_errors_even_with_a_summary(project: Path) -> None:
    (project / "DECISIONS.md").write_text(CANONICAL)
    record(project, "First")
    path = project / "DECISIONS.md"
    path.write_text(path.read_text() + "\n## Not an entry\n")
    with pytest.raises(decisions.CcstateError, match="'## Not an entry' has no '- Status:' line"):
        record(project, "Second")


# a GitHub token as gitleaks' own samples build one (tests/fixtures/gitleaks)
TOKEN = "ghp_" + "Kx7Qm2Vd9Rt4Lp8Ws3Zn6Bf1Hj5Yc0Ga4Eu7"


def test_a_secret_in_a_title_is_neither_stored_nor_shown(project: Path) -> None:
    """#23: the summary cache stores every string redacted, titles too, and the capsule shows
    what it stores: after a parse (SessionStart) and after a parse-free `decide`."""
    (project / "DECISIONS.md").write_text(
        CANONICAL.replace("Cite decisions by ID", f"Rotate {TOKEN} monthly")
    )
    payload = make_payload("SessionStart", project, source="startup")
    code, parsed, _, err = run_hook("SessionStart", payload, cwd=project)
    assert (code, err) == (0, "")
    shown = parsed["hookSpecificOutput"]["additionalContext"]
    assert "  - D5: Rotate " in shown
    cache = Path(capsule.cache_path(state(project)))
    record(project, f"Pin {TOKEN} in CI")
    summary = cache.read_text()
    assert "Pin " in summary and "Rotate " in summary
    for text in (shown, summary, "\n".join(section(project))):
        assert not any(TOKEN[i : i + 12] in text for i in range(len(TOKEN) - 11)), text
