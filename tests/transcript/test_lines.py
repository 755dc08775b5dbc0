from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ccstate.transcript import lines as _lines
from ccstate.transcript import runs as _runs
from helpers import LookClock


def test_streams_objects_and_skips_partial_and_odd_lines(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    rows = [{"type": "user", "message": {"content": "hi"}}, {"type": "brand-new"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n[1,2]\n" + '{"type": "assist')
    stats = _lines.ReadStats()
    got = list(_lines.iter_records(path, stats))
    assert got == rows
    assert (stats.records, stats.skipped, stats.skipped_lines) == (2, 2, [4, 5])


def test_a_deeply_nested_line_is_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    deep = "[" * 5_000 + "]" * 5_000  # past orjson's limit and the interpreter's
    path.write_text(f'{{"type": "user", "message": {{"content": "ok"}}}}\n{deep}\n')
    for read in (_lines.iter_records, _runs.iter_light_records):
        stats = _lines.ReadStats()
        assert [r["type"] for r in read(path, stats)] == ["user"]
        assert (stats.records, stats.skipped, stats.skipped_lines) == (1, 1, [2])


# --------------------------------------------------------------------------- bounds (#12)

import json as _json  # noqa: E402
import os as _os  # noqa: E402
import time as _time  # noqa: E402

import pytest as _pytest  # noqa: E402

_RECORD = _json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}})


def _with_a_long_line(path, size: int) -> None:
    with path.open("w") as fh:
        fh.write(_RECORD + "\n")
        fh.write('{"type":"user","message":{"content":"' + "x" * size + '"}}\n')
        fh.write(_RECORD + "\n")
        fh.write("y" * size)  # and a last one without its newline


@_pytest.mark.parametrize("reader", ["records", "light", "numbered"])
def test_every_reader_skips_over_long_lines_unread(tmp_path, monkeypatch, reader) -> None:
    monkeypatch.setattr(_lines, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(_runs, "_CHUNK", 4096)  # the light reader's smallest buffer
    path = tmp_path / "t.jsonl"
    _with_a_long_line(path, 50_000)
    stats = _lines.ReadStats()
    if reader == "records":
        got = list(_lines.iter_records(path, stats))
    elif reader == "light":
        got = list(_runs.iter_light_records(path, stats, max_line=4096))
    else:
        got = [r for _n, r in _lines.iter_numbered(path)]
    assert [r["message"]["content"] for r in got] == ["hi", "hi"]
    if reader != "numbered":
        assert (stats.lines, stats.too_long) == (4, 2)


def test_readers_refuse_what_is_not_a_regular_file(tmp_path) -> None:
    fifo = tmp_path / "t.jsonl"
    _os.mkfifo(fifo)
    for read in (_lines.iter_records, _runs.iter_light_records):
        with _pytest.raises(OSError, match="not a regular file"):
            list(read(fifo))


def test_a_deadline_stops_the_handoff_scan(tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text((_RECORD + "\n") * 100)
    with _pytest.raises(_lines.Deadline):
        list(_lines.iter_numbered(path, deadline=_time.monotonic() - 1))
    stats = _lines.ReadStats()
    assert list(_lines.iter_records(path, stats, deadline=_time.monotonic() - 1)) == []
    assert stats.stopped.startswith("stopped at line 0")


def test_line_runs_hold_every_line_once_numbered_and_closed(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(_runs, "_CHUNK", 4096)  # several runs, and one buffer doubling
    lines = [b'{"n": %d, "pad": "%s"}' % (i, b"x" * (i * 37 % 300)) for i in range(200)]
    lines.insert(120, b'{"long": "' + b"y" * 9000 + b'"}')  # longer than the buffer
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines))  # the last line has no newline (still being written)
    stats = _lines.ReadStats()
    got, firsts = [], []
    for buf, start, end, first in _runs.iter_line_runs(path, stats):
        assert first == len(got) + 1 == stats.lines + 1
        chunk = bytes(buf[start:end])
        assert chunk.endswith(b"\n")
        firsts.append(first)
        got.extend(chunk.splitlines())
    assert got == lines
    assert stats.lines == len(lines)
    assert len(firsts) > 2


def test_line_runs_skip_a_line_over_the_limit_and_count_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(_runs, "_CHUNK", 4096)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "' + b"z" * 20_000 + b'"}\n{"c": 3}\n')
    stats = _lines.ReadStats()
    got = [
        (first, bytes(buf[s:e]))
        for buf, s, e, first in _runs.iter_line_runs(path, stats, max_line=5000)
    ]
    assert b"".join(chunk for _f, chunk in got) == b'{"a": 1}\n{"c": 3}\n'
    assert got[-1][0] == 3  # the third line keeps its number
    assert (stats.lines, stats.too_long, stats.skipped_lines) == (3, 1, [2])


def test_the_fast_reader_yields_what_iter_records_does(tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b'{"type": "user", "message": {"content": "caf\\u00e9 \\ud800"}}\n'  # a lone surrogate
        b"\n   \n[1, 2]\nnot json\n"
        b'{"type": "bad-utf8", "text": "\xff\xfe"}\n'
        b'{"n": 12345678901234567890}\n'  # over 63 bits: orjson's range ends at 64
        b'{"type": "assistant", "last": true}'  # no newline: a session still writing
    )
    slow, fast = _lines.ReadStats(), _lines.ReadStats()
    want = list(_lines.iter_records(path, slow))
    got = list(_runs.iter_fast_records(path, fast))
    assert got == want and len(got) == 4
    assert (fast.lines, fast.records, fast.skipped, fast.skipped_lines) == (
        slow.lines,
        slow.records,
        slow.skipped,
        slow.skipped_lines,
    )


def test_the_fast_reader_matches_on_the_public_corpus() -> None:
    from helpers import PUBLIC

    files = sorted(PUBLIC.rglob("*.jsonl"))[:8] if PUBLIC.is_dir() else []
    if not files:
        _pytest.skip(f"the public transcripts are not at {PUBLIC}")
    for path in files:
        assert list(_runs.iter_fast_records(path)) == list(_lines.iter_records(path))


@_pytest.mark.parametrize("reader", ["light", "fast"])
def test_record_lines_stay_true_across_runs(tmp_path, monkeypatch, reader) -> None:
    """The readers number lines themselves (`counted=True`): across many runs, blank and
    bad lines included, each record's `stats.lines` is its line in the file."""
    monkeypatch.setattr(_runs, "_CHUNK", 4096)
    rows = []
    for n in range(1, 400):
        if n % 7 == 0:
            rows.append(b"")
        elif n % 11 == 0:
            rows.append(b"not json")
        else:
            rows.append(_json.dumps({"type": "user", "n": n, "pad": "x" * (n % 97)}).encode())
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(rows) + b"\n")
    stats = _lines.ReadStats()
    read = (
        _runs.iter_light_records(path, stats)
        if reader == "light"
        else _runs.iter_fast_records(path, stats)
    )
    seen = [(stats.lines, record["n"]) for record in read]
    assert seen and all(line == n for line, n in seen)
    assert len(seen) == 399 - 399 // 7 - 399 // 11 + 399 // 77
    assert stats.lines == 399 and stats.skipped_lines[:2] == [11, 22]


# --------------------------------------------------------------------------- bounds (#37)


def _growing_read(path, read) -> list:
    """Read `path` with `read(path)`, appending a record after the first one came out."""
    out = []
    for item in read(path):
        if not out:
            with path.open("a") as fh:
                fh.write(_RECORD + "\n")
        out.append(item)
    return out


def test_every_reader_reads_to_the_size_seen_when_it_opened(tmp_path) -> None:
    """A transcript that grows while it is read must not make the read endless."""
    path = tmp_path / "t.jsonl"
    readers = (
        lambda p: _lines.iter_lines(p),
        lambda p: _lines.iter_records(p),
        lambda p: _runs.iter_light_records(p),
        lambda p: [run[3] for run in _runs.iter_line_runs(p)],
    )
    for read in readers:
        path.write_text((_RECORD + "\n") * 3)
        got = _growing_read(path, read)
        assert len(got) == (1 if read is readers[-1] else 3)
        assert path.read_text().count("\n") == 4  # it grew meanwhile


def test_lines_that_hold_no_object_are_passed_over_and_numbered(tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    rows = [b"x", _RECORD.encode(), b"[1]", b"", b"  " + _RECORD.encode(), b"junk" * 3000]
    rows += [b"\xef\xbb\xbf" + _RECORD.encode(), b"{not json", _RECORD.encode()]
    path.write_bytes(b"\n".join(rows) + b"\n")
    every = [(n, bytes(line)) for n, line in _lines.iter_lines(path)]
    assert [n for n, _line in every] == list(range(1, 10))
    passed = [(n, bytes(line)) for n, line in _lines.iter_lines(path, objects_only=True)]
    assert passed == [(n, line) for n, line in every if n in (2, 5, 7, 8, 9)]
    assert [n for n, _r in _lines.iter_numbered(path)] == [2, 5, 7, 9]


def test_a_deadline_fires_on_lines_that_hold_no_record(tmp_path) -> None:
    """#37: a budget checked per record never fires when no line parses; each reader checks
    it on lines and on bytes read, and says where it stopped."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"{\n" * 1_500_000)  # about 4 s for any reader
    for read in ("records", "light", "numbered"):
        started = _time.monotonic()
        stats = _lines.ReadStats()
        deadline = started + 0.05
        if read == "numbered":
            with _pytest.raises(_lines.Deadline, match=r"stopped at line [1-9]"):
                list(_lines.iter_numbered(path, deadline))
        elif read == "records":
            assert list(_lines.iter_records(path, stats, deadline=deadline)) == []
        else:
            assert list(_runs.iter_light_records(path, stats, deadline=deadline)) == []
        assert _time.monotonic() - started < 1.0, read
        if read != "numbered":
            assert stats.stopped.startswith("stopped at line ") and 0 < stats.lines < 1_500_000


def test_the_light_reader_counts_junk_lines_without_decoding_them(tmp_path, monkeypatch) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"x\n[1, 2]\n" + _RECORD.encode() + b"\n\n  \n" + b"junk\n" * 3)
    decoded: list[bytes] = []
    real = _runs.fast_loads()

    def loads(view):  # type: ignore[no-untyped-def]
        decoded.append(bytes(view))
        return real(view)

    monkeypatch.setattr(_runs, "fast_loads", lambda: loads)
    stats = _lines.ReadStats()
    assert [r["type"] for r in _runs.iter_light_records(path, stats)] == ["user"]
    assert decoded == [_RECORD.encode()]
    assert (stats.lines, stats.records, stats.skipped, stats.skipped_lines) == (
        8,
        1,
        5,
        [1, 2, 6, 7, 8],
    )
    slow = _lines.ReadStats()
    list(_lines.iter_records(path, slow))
    assert (slow.records, slow.skipped, slow.skipped_lines) == (1, 5, [1, 2, 6, 7, 8])


# ------------------------------------------------------------- going on where it stopped (#37)


_ROWS = st.lists(
    st.one_of(
        st.builds(lambda n: json.dumps({"n": n}).encode(), st.integers(0, 10**6)),
        st.sampled_from([b"", b"{", b"[1]", b"  {}", b"x" * 50, b'{"big": "' + b"y" * 90 + b'"}']),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(rows=_ROWS, newline=st.booleans(), stops=st.lists(st.integers(1, 12), max_size=4))
def test_a_read_stopped_anywhere_goes_on_with_exactly_the_lines_it_did_not_hand_over(
    rows: list[bytes], newline: bool, stops: list[int], tmp_path_factory
) -> None:
    path = tmp_path_factory.mktemp("resume") / "t.jsonl"
    path.write_bytes(b"\n".join(rows) + (b"\n" if newline else b""))
    for objects_only in (False, True):
        whole = [(n, bytes(b)) for n, b in _lines.iter_lines(path, objects_only=objects_only)]
        got: list[tuple[int, bytes]] = []
        start = (0, 0)
        for after in [*stops, 10**9]:  # stopped after each count of looks, then to the end
            clock = LookClock(after)
            saved = (_lines._CHECK_YIELDS, _lines._READ_CHUNK, _lines.time)
            _lines._CHECK_YIELDS, _lines._READ_CHUNK, _lines.time = 1, 64, clock  # type: ignore[assignment]
            stats = _lines.ReadStats()
            try:
                for n, b in _lines.iter_lines(
                    path, stats, deadline=5.0, max_line=80, objects_only=objects_only, start=start
                ):
                    got.append((n, bytes(b)))
                break
            except _lines.Deadline as exc:
                assert exc.offset >= start[0] and exc.line >= start[1]
                start = (exc.offset, exc.line)
            finally:
                _lines._CHECK_YIELDS, _lines._READ_CHUNK, _lines.time = saved
        capped = [(n, b) for n, b in whole if len(b) <= 80]
        if objects_only:  # passing over in bulk stops at a chunk's end: a line may slip by
            got = [(n, b) for n, b in got if b.lstrip(b" \t\r").startswith(b"{")]
            capped = [(n, b) for n, b in capped if b.lstrip(b" \t\r").startswith(b"{")]
        assert got == capped
        data = path.read_bytes()  # the end is known after the last newline, none past a part
        whole_lines = not data or data.endswith(b"\n")
        assert stats.end == ((len(data), data.count(b"\n")) if whole_lines else None)
