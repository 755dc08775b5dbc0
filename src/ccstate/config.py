"""`.ccstate.yaml` -> a frozen Config with defaults, validated key by key.

The CLI calls `load_config` and turns a ConfigError into a one-line error.
Hooks call `load_for_hook`, which never raises: it uses a JSON cache of the
last good parse (keyed by the file's mtime and size) so the hot hooks need no
yaml import, and falls back to defaults with a warning when anything is wrong.
The plain subset settings are written in is read by `plainyaml` (no yaml import); the rest
by PyYAML.
"""

from __future__ import annotations

import os

from ccstate import fastjson, paths, store
from ccstate.errors import ConfigError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from ccstate.store import StrPath

# dotted key -> (type, default, what a valid value looks like)
SCHEMA: dict[str, tuple[type, Any, str]] = {
    "version": (int, 1, "1 (the only config format so far)"),
    "capsule.enabled": (bool, True, "true or false"),
    "capsule.budget_tokens": (int, 500, "a whole number of tokens between 50 and 2400"),
    "capsule.repo_map_tokens": (
        int,
        0,
        "a whole number of tokens between 0 and 4096, e.g. 1024 (0: no repo map in the capsule)",
    ),
    "dedupe.enabled": (bool, True, "true or false"),
    "dedupe.identical": (bool, True, "true or false"),
    "dedupe.unseen_ranges": (bool, True, "true or false"),
    "dedupe.diff": (bool, True, "true or false"),
    "dedupe.diff_max_ratio": (float, 0.5, "a number between 0 and 1, e.g. 0.5"),
    "dedupe.min_saved_chars": (int, 200, "a whole number of characters, e.g. 200"),
    "dedupe.store_max_mb": (int, 64, "a whole number of megabytes between 1 and 4096, e.g. 64"),
    "outputs.enabled": (bool, True, "true or false"),
    "outputs.min_chars": (int, 2000, "a whole number of characters, at least 500, e.g. 2000"),
    "outputs.bash": (bool, True, "true or false"),
    "outputs.grep": (bool, True, "true or false"),
    "outputs.glob": (bool, True, "true or false"),
    "outputs.webfetch": (bool, True, "true or false"),
    "outputs.mcp": (bool, True, "true or false"),
    "outputs.store_max_mb": (int, 64, "a whole number of megabytes between 1 and 4096, e.g. 64"),
    "decisions.capsule_max": (int, 10, "a whole number of decisions between 0 and 200, e.g. 10"),
    "compaction.enabled": (bool, True, "true or false"),
    "compaction.steer_tokens": (
        int,
        300,
        "a whole number of tokens between 50 and 2000, e.g. 300",
    ),
    "handoff.enabled": (bool, True, "true or false"),
    "handoff.max_tokens": (int, 1200, "a whole number of tokens between 200 and 8000, e.g. 1200"),
    "handoff.keep_sessions": (int, 30, "a whole number of sessions between 1 and 1000, e.g. 30"),
    "handoff.progress_max_bytes": (int, 1_048_576, "a whole number of bytes, at least 4096"),
    "handoff.progress_archives": (int, 3, "a whole number of old logs between 0 and 100, e.g. 3"),
    "handoff.stale_days": (int, 7, "a whole number of days, e.g. 7 (0: never by age)"),
    "lint.root_max_lines": (int, 200, "a whole number of lines, e.g. 200"),
    "lint.root_max_tokens": (int, 2000, "a whole number of tokens, e.g. 2000"),
    "lint.import_max_tokens": (int, 500, "a whole number of tokens, e.g. 500"),
    "lint.topic_dir": (str, "docs/claude", "a folder relative to the project, e.g. docs/claude"),
    "lint.split_min_lines": (int, 12, "a whole number of lines between 1 and 10000, e.g. 12"),
    "log.max_bytes": (int, 262_144, "a whole number of bytes, at least 4096"),
    "hooks.budget_seconds": (
        float,
        0.0,
        "a number of seconds between 0 and 600, e.g. 10 (0: each hook's timeout less 5 s)",
    ),
    "recall.enabled": (bool, True, "true or false"),
    "recall.max_mb": (int, 512, "a whole number of megabytes between 1 and 65536, e.g. 512"),
    "recall.embedding_model": (
        str,
        "",
        'a local model2vec model folder (absolute, or relative to the project), or "" for none',
    ),
    "find.enabled": (bool, True, "true or false"),
    "find.max_mb": (int, 256, "a whole number of megabytes between 1 and 65536, e.g. 256"),
    "report.pricing": (str, "", 'a pricing JSON file (relative to the project), or "" for none'),
    # the money moments (docs/MOMENTS.md)
    "moments.statusline.enabled": (bool, True, "true or false"),
    "moments.statusline.format": (
        str,
        "",
        'a line of {fields} (`ccstate statusline --help` lists them), or "" for the default',
    ),
    "moments.resume.enabled": (bool, True, "true or false"),
    "moments.resume.min_usd": (float, 0.05, "a price in USD between 0 and 1000, e.g. 0.05"),
    "moments.resume.compact_min_usd": (float, 0.05, "a price in USD between 0 and 1000, e.g. 0.05"),
    "moments.switch.enabled": (bool, True, "true or false"),
    "moments.switch.min_tokens": (int, 20_000, "a whole number of tokens, e.g. 20000"),
    "moments.switch.ask": (bool, False, "true or false"),
}
_RANGES: dict[str, tuple[float, float]] = {
    "version": (1, 1),
    "capsule.budget_tokens": (50, 2400),
    "capsule.repo_map_tokens": (0, 4096),
    "dedupe.diff_max_ratio": (0.0, 1.0),
    "dedupe.min_saved_chars": (0, 1_000_000),
    "dedupe.store_max_mb": (1, 4096),
    "outputs.min_chars": (500, 10_000_000),
    "outputs.store_max_mb": (1, 4096),
    "decisions.capsule_max": (0, 200),
    "compaction.steer_tokens": (50, 2000),
    "handoff.max_tokens": (200, 8000),
    "handoff.keep_sessions": (1, 1000),
    "handoff.progress_max_bytes": (4096, 1 << 30),
    "handoff.progress_archives": (0, 100),
    "handoff.stale_days": (0, 3650),
    "lint.root_max_lines": (1, 100_000),
    "lint.root_max_tokens": (1, 1_000_000),
    "lint.import_max_tokens": (0, 1_000_000),
    "lint.split_min_lines": (1, 10_000),
    "log.max_bytes": (4096, 1 << 30),
    "hooks.budget_seconds": (0.0, 600.0),
    "recall.max_mb": (1, 65536),
    "find.max_mb": (1, 65536),
    "moments.resume.min_usd": (0.0, 1000.0),
    "moments.resume.compact_min_usd": (0.0, 1000.0),
    "moments.switch.min_tokens": (0, 100_000_000),
}
CACHE_VERSION = 2  # 2: the unknown-key warnings are kept (the CLI shows them)


class Config:
    """Validated settings; `values` holds every schema key (defaults filled in).

    A plain class, not a dataclass: hooks load it on every tool call.
    """

    __slots__ = ("source", "values", "warnings")

    def __init__(
        self,
        values: Mapping[str, Any] | None = None,
        source: str = "defaults",
        warnings: tuple[str, ...] = (),
    ) -> None:
        self.values: Mapping[str, Any] = values if values is not None else defaults()
        self.source = source
        self.warnings = warnings

    def get(self, key: str) -> Any:
        return self.values[key]

    def __repr__(self) -> str:
        return f"Config(source={self.source!r}, warnings={self.warnings!r})"


def defaults() -> dict[str, Any]:
    return {key: spec[1] for key, spec in SCHEMA.items()}


def validate(raw: Any, filename: str) -> Config:
    """Check a parsed YAML document; ConfigError names the file, key and fix."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{filename}: the top level must be a mapping of settings (got {_kind(raw)})"
        )
    flat, unknown = _flatten(raw)
    values = defaults()
    for key, value in flat.items():
        values[key] = _check(key, value, filename)
    warnings = tuple(f"{filename}: unknown key '{key}' is ignored" for key in unknown)
    return Config(values=values, source=filename, warnings=warnings)


def parse_text(text: str, filename: str) -> Config:
    """The settings in `text`: the plain subset read by `plainyaml` (no yaml import: about
    55 ms less for every command, and a bare python3 has no PyYAML), anything else by PyYAML's
    safe loader, which gives the same values where both read a file."""
    from ccstate import plainyaml

    raw = plainyaml.parse(text)
    if raw is not None:
        return validate(raw, filename)
    try:
        import yaml
    except ImportError as exc:  # a bare python3 (the plugin's hooks before its venv)
        raise ImportError(
            f"{filename} uses YAML beyond plain `key: value` lines, which needs PyYAML "
            "(the plugin's venv, once built, has it)"
        ) from exc

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        raw = yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        line = _error_line(text, getattr(exc, "problem_mark", None))
        where = f" line {line}" if line else ""
        raise ConfigError(f"{filename}:{where} is not valid YAML; fix the syntax there") from exc
    return validate(raw, filename)


def _error_line(text: str, mark: Any) -> int | None:
    """The 1-based line to fix. A document that ends too early (an unclosed `[`, `{` or
    quote) is marked at the end of the stream, the line after the last one; name the last
    line that holds text instead."""
    if mark is None:
        return None
    content = text.rstrip()
    if mark.index >= len(content):
        return content.count("\n") + 1
    return int(mark.line) + 1


def load_config(project: Path) -> Config:
    """The project's config for the CLI; defaults when `.ccstate.yaml` is absent."""
    path = paths.config_path(project)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from exc
    return parse_text(text, str(path))


def load_cached(project: Path) -> Config:
    """The project's config for a command that only reads settings (`report`): the hooks'
    JSON cache of the last good parse when it matches the file (no yaml import, ~13 ms),
    else `load_config`, which raises ConfigError on a bad file, and refreshes that cache
    when the project has a state dir. The unknown-key warnings come with it."""
    path = paths.config_path(project)
    try:
        st = path.stat()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from exc
    stamp = [st.st_mtime_ns, st.st_size]
    state = paths.state_dir_str(str(project))
    cache = paths.config_cache_path_str(state)
    cached = _read_cache(cache, stamp, with_warnings=True)
    if cached is not None:
        return cached
    config = load_config(project)
    if os.path.isdir(state):
        _write_cache(cache, stamp, config)
    return config


def load_for_hook(project: StrPath, state: StrPath, *, write_cache: bool = True) -> Config:
    """The config for a hook: never raises, prefers the JSON cache, falls back to defaults.

    os.path only (no pathlib): the hot hooks call this on every tool call. The status line
    (`write_cache=False`) writes nothing: it parses a changed file without caching it.
    """
    path = paths.config_path_str(os.fspath(project))
    try:
        st = os.stat(path)
    except OSError:
        return Config()
    stamp = [st.st_mtime_ns, st.st_size]
    cache = paths.config_cache_path_str(os.fspath(state))
    cached = _read_cache(cache, stamp)
    if cached is not None:
        return cached
    try:
        with open(path, encoding="utf-8") as fh:
            config = parse_text(fh.read(), path)
    except (ConfigError, ImportError, OSError) as exc:
        return Config(warnings=(f"{exc}; using defaults",))
    if write_cache:
        _write_cache(cache, stamp, config)
    return config


def _read_cache(cache: StrPath, stamp: list[int], *, with_warnings: bool = False) -> Config | None:
    """The cached config when it matches `stamp`. Hooks leave the warnings out: they log
    them once, when they parse the file."""
    try:
        with open(cache, encoding="utf-8") as fh:
            data = fastjson.loads(fh.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("v") != CACHE_VERSION or data.get("stamp") != stamp:
        return None
    values = defaults()
    stored = data.get("values")
    if not isinstance(stored, dict) or set(stored) != set(values):
        return None
    values.update(stored)
    warnings = data.get("warnings") if with_warnings else None
    kept = tuple(str(w) for w in warnings) if isinstance(warnings, list) else ()
    return Config(values=values, source=str(data.get("source", "")), warnings=kept)


def _write_cache(cache: StrPath, stamp: list[int], config: Config) -> None:
    payload = {
        "v": CACHE_VERSION,
        "stamp": stamp,
        "source": config.source,
        "values": dict(config.values),
        "warnings": list(config.warnings),
    }
    try:
        store.atomic_write_json(cache, payload, durable=False)
    except OSError:  # read-only state dir: re-parse next time
        return


def _flatten(raw: Mapping[Any, Any], prefix: str = "") -> tuple[dict[str, Any], list[str]]:
    flat: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in raw.items():
        dotted = f"{prefix}{key}"
        if dotted in SCHEMA:
            flat[dotted] = value
        elif isinstance(value, dict) and any(k.startswith(dotted + ".") for k in SCHEMA):
            sub, sub_unknown = _flatten(value, dotted + ".")
            flat.update(sub)
            unknown.extend(sub_unknown)
        else:
            unknown.append(dotted)
    return flat, unknown


def _check(key: str, value: Any, filename: str) -> Any:
    kind, _default, hint = SCHEMA[key]
    original = value
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if ok and key in _RANGES:
        low, high = _RANGES[key]
        ok = low <= value <= high
    if not ok:
        raise ConfigError(f"{filename}: '{key}' must be {hint} (got {original!r})")
    return value


def _kind(value: Any) -> str:
    return type(value).__name__


ENV_SWITCHES = {
    "CCSTATE_DEDUPE": "dedupe.enabled",
    "CCSTATE_DIGEST": "outputs.enabled",
    "CCSTATE_FIND": "find.enabled",
}


def env_overrides(config: Config, environ: Mapping[str, str] = os.environ) -> Config:
    """Apply switches from the environment: CCSTATE_DEDUPE=0 turns the read ledger off,
    CCSTATE_DIGEST=0 the tool-output digests, CCSTATE_FIND=0 the code index (#41)."""
    off = [key for name, key in ENV_SWITCHES.items() if _is_off(environ.get(name, ""))]
    if not off:
        return config
    values = dict(config.values)
    for key in off:
        values[key] = False
    return Config(values=values, source=config.source, warnings=config.warnings)


def least(key: str) -> float:
    """The smallest value `key` may take in any config (its range's lower end)."""
    return _RANGES[key][0]


def is_switched_off(environ: Mapping[str, str], name: str) -> bool:
    """Is the environment switch `name` (CCSTATE_DEDUPE, CCSTATE_DIGEST) set to off?"""
    return _is_off(environ.get(name, ""))


def _is_off(value: str) -> bool:
    return value.strip().lower() in {"0", "false", "off", "no"}
