"""Token accounting over Claude Code transcripts: `ccstate report` (docs/REPORT.md).

Modules: `usage` (a transcript -> API calls, compactions, threads), `composition` (what
filled each context), `pricing` (+ `pricing.json`), `scan_cache` (per-file scans kept
between runs), `scan` (which transcripts, scanned over forked workers), `builder` (sessions
built from scans, each response counted once), `summary` (sessions and totals, JSON and
CSV). Rich tables live in `cli/report_render.py`. Nothing is imported here.
"""
