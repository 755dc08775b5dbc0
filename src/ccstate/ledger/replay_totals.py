"""The figures `ccstate replay` adds up per transcript and in total (ledger/replay.py walks;
this module only counts). CLI only.

Token-turns are tokens times the later API calls of the same context and epoch that would
have carried them: what a user pays for, since every call re-reads the whole context. The
denominator of the share ccstate keeps out is every tool result's tokens so counted
(`result_token_turns`), whatever the tool, failures included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KINDS = ("identical", "unseen", "diff")
# Where a replacement's text came from: the Reads (and shell reads) the context received, or
# its own writes (ledger/writes.py); a replacement relying on any write counts as the write's.
SOURCES = ("Read", "Write", "Edit", "MultiEdit")
WRITE_TOOLS = SOURCES[1:]
SHELL_FIELDS = (
    "shell_reads",
    "shell_notices",
    "shell_chars_saved",
    "shell_tokens_saved",
    "shell_token_turns_saved",
)
SUMMED = (
    "reads",
    "rereads",
    "read_chars",
    "chars_saved",
    "tokens_saved",
    "token_turns_saved",
    *SHELL_FIELDS,
    "api_calls",
    "contexts",
    "epochs",
    "result_tokens",
    "result_token_turns",
    "cc_dedupe",
    "cc_dedupe_tokens",
    "cc_dedupe_token_turns",
)


def _zeros(names: tuple[str, ...]) -> dict[str, int]:
    return dict.fromkeys(names, 0)


def _by_source() -> dict[str, list[int]]:
    return {name: [0, 0, 0] for name in SOURCES}  # replacements, tokens, token-turns


@dataclass
class Totals:
    reads: int = 0
    rereads: int = 0  # Reads of a path this context already read or wrote in the epoch
    replaced: dict[str, int] = field(default_factory=lambda: _zeros(KINDS))
    read_chars: int = 0
    chars_saved: int = 0
    tokens_saved: int = 0
    token_turns_saved: int = 0
    shell_reads: int = 0  # `cat F`, `sed -n 'a,bp' F`... whose output matched the file
    shell_notices: int = 0  # repeats that would have become a notice
    shell_chars_saved: int = 0
    shell_tokens_saved: int = 0
    shell_token_turns_saved: int = 0
    api_calls: int = 0
    contexts: int = 0
    epochs: int = 0
    # the context's own writes: calls seen, and those after which the ledger holds the file
    writes: dict[str, int] = field(default_factory=lambda: _zeros(WRITE_TOOLS))
    writes_held: dict[str, int] = field(default_factory=lambda: _zeros(WRITE_TOOLS))
    by_source: dict[str, list[int]] = field(default_factory=_by_source)
    # every tool result, as the model was shown it: tokens, and tokens x later calls
    result_tokens: int = 0
    result_token_turns: int = 0
    # Claude Code's own "file unchanged" answers to repeated Reads: its saving, not ccstate's
    cc_dedupe: int = 0
    cc_dedupe_tokens: int = 0
    cc_dedupe_token_turns: int = 0
    violations: list[str] = field(default_factory=list)
    tokens_exact: bool = True

    def add(self, other: Totals) -> None:
        for name in SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for kind in KINDS:
            self.replaced[kind] += other.replaced[kind]
        for tool in WRITE_TOOLS:
            self.writes[tool] += other.writes[tool]
            self.writes_held[tool] += other.writes_held[tool]
        for source in SOURCES:
            mine, theirs = self.by_source[source], other.by_source[source]
            self.by_source[source] = [a + b for a, b in zip(mine, theirs, strict=True)]
        self.violations += other.violations
        self.tokens_exact = self.tokens_exact and other.tokens_exact

    def as_json(self) -> dict[str, Any]:
        return {
            "reads": self.reads,
            "rereads": self.rereads,
            "replaced": dict(self.replaced),
            "read_chars": self.read_chars,
            "chars_saved": self.chars_saved,
            "tokens_saved": self.tokens_saved,
            "token_turns_saved": self.token_turns_saved,
            **{name: getattr(self, name) for name in SHELL_FIELDS},
            "writes": dict(self.writes),
            "writes_held": dict(self.writes_held),
            "by_source": {
                name: dict(zip(("replaced", "tokens_saved", "token_turns_saved"), v, strict=True))
                for name, v in self.by_source.items()
            },
            "result_tokens": self.result_tokens,
            "result_token_turns": self.result_token_turns,
            "claude_code_dedupe": {
                "stubs": self.cc_dedupe,
                "tokens_kept_out": self.cc_dedupe_tokens,
                "token_turns_kept_out": self.cc_dedupe_token_turns,
            },
            "api_calls": self.api_calls,
            "contexts": self.contexts,
            "epochs": self.epochs,
            "violations": list(self.violations),
            "tokens_exact": self.tokens_exact,
        }


def kept_out_share(total: Totals, digest_token_turns: int) -> tuple[int, float]:
    """(token-turns ccstate keeps out: the ledger's, shell reads' and digests', their share of
    every tool result's token-turns)."""
    kept = total.token_turns_saved + total.shell_token_turns_saved + digest_token_turns
    return kept, (kept / total.result_token_turns if total.result_token_turns else 0.0)
